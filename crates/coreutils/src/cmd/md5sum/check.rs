//! `-c`/`--check`: reads checksum lines (plain `HEX  NAME`, `HEX *NAME`, BSD-reversed
//! `HEX NAME`, or tagged `ALGO (NAME) = HEX`, with GNU's `\` escapes), re-hashes each file
//! and reports as coreutils 9.1 does, including its summary warnings on stderr.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufReader};

use common::args::{bytes_os, os_bytes};
use common::io::open_input;
use common::{strerror, Io};

use super::{escape_name, hex_digest, Algo, Opts};

/// What one checksum line says.
struct Entry {
    algo: Algo,
    hex: Vec<u8>,
    name: Vec<u8>,
}

#[derive(Default)]
struct Tally {
    formatted: usize,
    improper: usize,
    mismatched: usize,
    unreadable: usize,
    verified: usize,
}

/// Checks the lines of one checksum file. Ok(false) when anything failed; Err on EPIPE.
pub fn check_file(io: &mut Io, opts: &Opts, file: &OsStr) -> io::Result<bool> {
    let is_stdin = os_bytes(file) == b"-";
    let display = if is_stdin { "'standard input'".to_string() } else { quote_if_needed(&file.to_string_lossy()) };
    let content = {
        let stdin = &mut *io.stdin;
        open_input(file, stdin).and_then(|mut input| {
            let mut all = Vec::new();
            input.reader().read_to_end(&mut all).map(|_| all)
        })
    };
    let content = match content {
        Ok(c) => c,
        Err(e) => {
            super::warn(io, format!("{}: {}", file.to_string_lossy(), strerror(&e)));
            return Ok(false);
        }
    };
    let mut tally = Tally::default();
    // GNU remembers across lines whether the file uses the BSD-reversed form (`HEX NAME`).
    let mut bsd_reversed: Option<bool> = None;
    let body = content.strip_suffix(b"\n").unwrap_or(&content);
    for (index, raw) in body.split(|b| *b == b'\n').enumerate() {
        if content.is_empty() {
            break;
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.first() == Some(&b'#') || line.is_empty() {
            continue;
        }
        let entry = parse_line(line, opts, &mut bsd_reversed).filter(|e| !(is_stdin && e.name == b"-"));
        let entry = match entry {
            Some(e) => e,
            None => {
                tally.improper += 1;
                if opts.warn {
                    let what = if opts.cksum_any_algo { String::new() } else { format!("{} ", opts.algo.tag()) };
                    super::warn(io, format!("{}: {}: improperly formatted {}checksum line", display, index + 1, what));
                }
                continue;
            }
        };
        tally.formatted += 1;
        check_entry(io, opts, &entry, &mut tally)?;
    }
    let mut warn = |message: String| super::warn(io, message);
    if tally.formatted == 0 {
        warn(format!("{}: no properly formatted checksum lines found", display));
        return Ok(false);
    }
    if !opts.status {
        if tally.improper > 0 {
            warn(format!("WARNING: {} {} improperly formatted", tally.improper, plural(tally.improper, "line is", "lines are")));
        }
        if tally.unreadable > 0 {
            warn(format!("WARNING: {} listed {} could not be read", tally.unreadable, plural(tally.unreadable, "file", "files")));
        }
        if tally.mismatched > 0 {
            warn(format!("WARNING: {} computed {} did NOT match", tally.mismatched, plural(tally.mismatched, "checksum", "checksums")));
        }
    }
    if opts.ignore_missing && tally.verified == 0 && tally.mismatched == 0 && tally.unreadable == 0 {
        if !opts.status {
            warn(format!("{}: no file was verified", display));
        }
        return Ok(false);
    }
    Ok(tally.mismatched == 0 && tally.unreadable == 0 && !(opts.strict && tally.improper > 0))
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn quote_if_needed(name: &str) -> String {
    if name.bytes().any(|b| !(b.is_ascii_alphanumeric() || b"._-/+,:@%^".contains(&b))) {
        format!("'{}'", name)
    } else {
        name.to_string()
    }
}

/// Hashes the named file and prints `NAME: OK|FAILED|FAILED open or read`.
fn check_entry(io: &mut Io, opts: &Opts, entry: &Entry, tally: &mut Tally) -> io::Result<()> {
    let path = bytes_os(&entry.name);
    let result = if entry.name == b"-" {
        hex_digest(entry.algo, &mut *io.stdin)
    } else {
        File::open(&path).and_then(|f| {
            if f.metadata()?.is_dir() {
                return Err(io::Error::from_raw_os_error(airlock_sys::errno::os::ISDIR));
            }
            hex_digest(entry.algo, &mut BufReader::with_capacity(common::io::BUFFER_SIZE, f))
        })
    };
    let verdict: &[u8] = match result {
        Err(e) => {
            if opts.ignore_missing && e.kind() == io::ErrorKind::NotFound {
                return Ok(());
            }
            super::warn(io, format!("{}: {}", path.to_string_lossy(), strerror(&e)));
            tally.unreadable += 1;
            if opts.status {
                return Ok(());
            }
            b": FAILED open or read\n"
        }
        Ok(hex) => {
            if hex.as_bytes().eq_ignore_ascii_case(&entry.hex) {
                tally.verified += 1;
                if opts.quiet || opts.status {
                    return Ok(());
                }
                b": OK\n"
            } else {
                tally.mismatched += 1;
                if opts.status {
                    return Ok(());
                }
                b": FAILED\n"
            }
        }
    };
    // In check output GNU escapes a name only when it holds a newline.
    if entry.name.contains(&b'\n') {
        io.out(b"\\")?;
        io.out(&escape_name(&entry.name))?;
    } else {
        io.out(&entry.name)?;
    }
    io.out(verdict)
}

/// GNU's `split_3`: the tagged form, or `HEX` + whitespace + optional `*`/` ` + name.
fn parse_line(line: &[u8], opts: &Opts, bsd_reversed: &mut Option<bool>) -> Option<Entry> {
    let mut i = 0;
    while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
        i += 1;
    }
    let escaped = line.get(i) == Some(&b'\\');
    if escaped {
        i += 1;
    }
    let rest = &line[i..];
    if let Some(entry) = parse_tagged(rest, opts, escaped) {
        return entry;
    }
    if opts.cksum_any_algo {
        return None;
    }
    let algo = opts.algo;
    let n = algo.hex_len();
    if rest.len() < n + 2 {
        return None;
    }
    let hex = &rest[..n];
    if !hex.iter().all(|b| b.is_ascii_hexdigit()) || !(rest[n] == b' ' || rest[n] == b'\t') {
        return None;
    }
    let mut j = n + 1;
    let after = &rest[j..];
    if after.len() == 1 || (after[0] != b' ' && after[0] != b'*') {
        if *bsd_reversed == Some(false) {
            return None;
        }
        *bsd_reversed = Some(true);
    } else if *bsd_reversed != Some(true) {
        *bsd_reversed = Some(false);
        j += 1;
    }
    let name = &rest[j..];
    let name = if escaped { unescape(name)? } else { name.to_vec() };
    Some(Entry { algo, hex: hex.to_vec(), name })
}

/// `ALGO (NAME) = HEX`: Some(None) when it starts like a tag but is malformed or names a
/// different algorithm; None when it is not a tagged line at all.
fn parse_tagged(rest: &[u8], opts: &Opts, escaped: bool) -> Option<Option<Entry>> {
    let tag_end = rest.iter().position(|b| *b == b' ' || *b == b'(')?;
    let algo = Algo::from_tag(&rest[..tag_end])?;
    if !opts.cksum_any_algo && algo != opts.algo {
        return None;
    }
    let mut i = tag_end;
    if rest.get(i) == Some(&b' ') {
        i += 1;
    }
    if rest.get(i) != Some(&b'(') {
        return Some(None);
    }
    let body = &rest[i + 1..];
    let close = match body.iter().rposition(|b| *b == b')') {
        Some(c) => c,
        None => return Some(None),
    };
    let name = if escaped {
        match unescape(&body[..close]) {
            Some(n) => n,
            None => return Some(None),
        }
    } else {
        body[..close].to_vec()
    };
    let mut j = close + 1;
    while body.get(j).map_or(false, |b| *b == b' ' || *b == b'\t') {
        j += 1;
    }
    if body.get(j) != Some(&b'=') {
        return Some(None);
    }
    j += 1;
    while body.get(j).map_or(false, |b| *b == b' ' || *b == b'\t') {
        j += 1;
    }
    let hex = &body[j..];
    if hex.len() != algo.hex_len() || !hex.iter().all(|b| b.is_ascii_hexdigit()) {
        return Some(None);
    }
    Some(Some(Entry { algo, hex: hex.to_vec(), name }))
}

/// Undoes `\\`, `\n`, `\r`; any other escape makes the line malformed.
fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        if name[i] == b'\\' {
            match name.get(i + 1) {
                Some(b'\\') => out.push(b'\\'),
                Some(b'n') => out.push(b'\n'),
                Some(b'r') => out.push(b'\r'),
                _ => return None,
            }
            i += 2;
        } else {
            out.push(name[i]);
            i += 1;
        }
    }
    Some(out)
}
