//! `zip` (Info-ZIP 3.0's interface): add or replace files in an archive (`-r`, `-j`, `-m`,
//! `-u`, `-f`, `-0`…`-9`, `-x`/`-i` patterns, `-` for stdin or a stdout archive) or delete
//! entries (`-d`), printing `  adding: x (deflated 40%)` as Info-ZIP does. Deflate comes from
//! flate2, so percentages can differ from Info-ZIP's by a point now and then.
//! Exit status: 0, 12 nothing to do, 3 bad archive, 18 unreadable files.

#[path = "zip/format.rs"]
pub mod format;

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use common::args::{bytes_os, os_bytes};
use common::fsext;
use common::{strerror, Io, UError};

use format::Member;

struct Opts {
    recurse: bool,
    quiet: bool,
    junk: bool,
    move_files: bool,
    delete: bool,
    update: bool,
    freshen: bool,
    no_dirs: bool,
    level: u32,
    excludes: Vec<Vec<u8>>,
    includes: Vec<Vec<u8>>,
    zipfile: Option<OsString>,
    files: Vec<OsString>,
}

/// A wildcard match where `*` crosses `/`, as Info-ZIP matches names.
pub fn wildmatch(pattern: &[u8], name: &[u8]) -> bool {
    common::fnmatch::fnmatch(pattern, name, common::fnmatch::FnFlags::default())
}

fn parse(args: &[OsString]) -> Result<Opts, String> {
    let mut o = Opts { recurse: false, quiet: false, junk: false, move_files: false, delete: false, update: false, freshen: false, no_dirs: false, level: 6, excludes: Vec::new(), includes: Vec::new(), zipfile: None, files: Vec::new() };
    // 'x' or 'i' while their list is being read.
    let mut list: Option<u8> = None;
    let mut options_done = false;
    for a in args {
        let b = os_bytes(a);
        if !options_done && b == b"--" {
            options_done = true;
            continue;
        }
        if !options_done && b.len() > 1 && b[0] == b'-' {
            list = None;
            let letters: Vec<u8> = if let Some(long) = b.strip_prefix(b"--") {
                match long {
                    b"recurse-paths" => b"r".to_vec(),
                    b"quiet" => b"q".to_vec(),
                    b"junk-paths" => b"j".to_vec(),
                    b"move" => b"m".to_vec(),
                    b"delete" => b"d".to_vec(),
                    b"update" => b"u".to_vec(),
                    b"freshen" => b"f".to_vec(),
                    b"exclude" => b"x".to_vec(),
                    b"include" => b"i".to_vec(),
                    b"no-dir-entries" => b"D".to_vec(),
                    b"help" => b"h".to_vec(),
                    b"version" => b"v".to_vec(),
                    _ => return Err(format!("invalid command arguments (no such option: {})", String::from_utf8_lossy(long))),
                }
            } else {
                b[1..].to_vec()
            };
            for c in letters {
                match c {
                    b'r' | b'R' => o.recurse = true,
                    b'q' => o.quiet = true,
                    b'j' => o.junk = true,
                    b'm' => o.move_files = true,
                    b'd' => o.delete = true,
                    b'u' => o.update = true,
                    b'f' => o.freshen = true,
                    b'D' => o.no_dirs = true,
                    b'x' | b'i' => list = Some(c),
                    b'0'..=b'9' => o.level = (c - b'0') as u32,
                    b'y' | b'v' | b'X' | b'o' | b'l' | b'T' | b'S' => {}
                    b'h' => return Err("help".to_string()),
                    b'e' | b'P' => return Err("option not supported in the sandbox: -e (encryption)".to_string()),
                    other => return Err(format!("invalid command arguments (short option '{}' not supported)", other as char)),
                }
            }
            continue;
        }
        match list {
            Some(b'x') => o.excludes.push(b.to_vec()),
            Some(_) => o.includes.push(b.to_vec()),
            None => {
                if o.zipfile.is_none() {
                    o.zipfile = Some(a.clone());
                } else {
                    o.files.push(a.clone());
                }
            }
        }
    }
    Ok(o)
}

/// One file to add: its member name, where to read it, and its metadata.
struct Source {
    name: Vec<u8>,
    path: Option<PathBuf>,
    meta: Option<fsext::Meta>,
}

/// The stored name of a path: no leading `/`, `./` or `../` parts.
fn member_name(path: &[u8], junk: bool) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = path.split(|b| *b == b'/').filter(|p| !p.is_empty() && *p != b".").collect();
    while parts.first() == Some(&&b".."[..]) {
        parts.remove(0);
    }
    if junk {
        return parts.last().map(|p| p.to_vec()).unwrap_or_default();
    }
    parts.join(&b'/')
}

/// The archive's path: Info-ZIP adds .zip when the name has no extension.
fn archive_path(zipfile: &OsString, to_stdout: bool) -> PathBuf {
    if to_stdout {
        PathBuf::from("-")
    } else {
        let b = os_bytes(&zipfile);
        let base = b.rsplit(|c| *c == b'/').next().unwrap_or(b);
        if base.contains(&b'.') {
            PathBuf::from(&zipfile)
        } else {
            let mut with = b.to_vec();
            with.extend_from_slice(b".zip");
            PathBuf::from(bytes_os(&with))
        }
    }
}

/// `-d`: removes the members the patterns name; whether any was removed.
fn delete(o: &Opts, members: &mut Vec<Member>, messages: &mut Vec<u8>, notes: &mut Vec<u8>) -> bool {
    let mut changed = false;
    for pattern in &o.files {
        let p = os_bytes(pattern);
        let before = members.len();
        members.retain(|m| {
            let hit = wildmatch(p, &m.name);
            if hit && !o.quiet {
                messages.extend_from_slice(b"deleting: ");
                messages.extend_from_slice(&m.name);
                messages.push(b'\n');
            }
            !hit
        });
        if members.len() == before {
            notes.extend_from_slice(format!("\tzip warning: name not matched: {}\n", pattern.to_string_lossy()).as_bytes());
        } else {
            changed = true;
        }
    }
    changed
}

/// `-m`: removes the files added, then the directories that are now empty, deepest first.
fn remove_moved(moved: Vec<PathBuf>) {
    let (dirs, files): (Vec<PathBuf>, Vec<PathBuf>) = moved.into_iter().partition(|p| p.is_dir());
    for f in files {
        let _ = fs::remove_file(f);
    }
    let mut dirs = dirs;
    dirs.sort_by(|a, b| b.cmp(a));
    for d in dirs {
        let _ = fs::remove_dir(d);
    }
}

/// Info-ZIP's command line is not getopt's (`-x` and `-i` make the words after them
/// patterns, `-Z1` is one mode) and its messages do not start with `NAME:`, so the option
/// reading and the reports stay Info-ZIP's own; the exit status is the contract's.
pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    Ok(archive(args, io))
}

/// What zip's and unzip's parse() read, or their exit status once the help text (status 0)
/// or the usage message (after `lead`, with `status`) is printed.
pub fn options_or_exit<T>(parsed: Result<T, String>, io: &mut Io, help: &str, lead: &str, status: i32) -> Result<T, i32> {
    match parsed {
        Ok(o) => Ok(o),
        Err(m) if m == "help" => {
            let _ = io.out(help.as_bytes());
            Err(0)
        }
        Err(m) => {
            let _ = writeln!(io.stderr, "{}{}", lead, m);
            Err(status)
        }
    }
}

fn archive(args: Vec<OsString>, io: &mut Io) -> i32 {
    let mut o = match options_or_exit(parse(&args[1..]), io, HELP, "\nzip error: ", 16) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let zipfile = match o.zipfile.take() {
        Some(z) => z,
        None => {
            let _ = io.out(HELP.as_bytes());
            return 0;
        }
    };
    let to_stdout = os_bytes(&zipfile) == b"-";
    let zip_path = archive_path(&zipfile, to_stdout);
    let shown_zip = zip_path.to_string_lossy().into_owned();
    let mut members: Vec<Member> = Vec::new();
    if !to_stdout {
        if let Ok(data) = fs::read(&zip_path) {
            match format::read_archive(&data) {
                Ok(m) => members = m,
                Err(_) => {
                    let _ = writeln!(io.stderr, "\nzip error: Zip file structure invalid ({})", shown_zip);
                    return 3;
                }
            }
        }
    }
    let Io { stdin, stdout, stderr, .. } = io;
    // Info-ZIP writes its messages (warnings and errors too) on stdout, or on stderr when
    // the archive itself goes to stdout.
    let mut messages: Vec<u8> = Vec::new();
    let mut notes: Vec<u8> = Vec::new();
    let mut changed = false;
    let mut status = 0;
    if o.delete {
        changed = delete(&o, &mut members, &mut messages, &mut notes);
    } else {
        let mut sources = Vec::new();
        for f in &o.files {
            collect(&o, f, &mut sources, &mut notes);
        }
        let mut moved: Vec<PathBuf> = Vec::new();
        for s in sources {
            if !o.includes.is_empty() && !o.includes.iter().any(|p| wildmatch(p, &s.name)) {
                continue;
            }
            if o.excludes.iter().any(|p| wildmatch(p, &s.name)) {
                continue;
            }
            let existing = members.iter().position(|m| m.name == s.name);
            if o.freshen && existing.is_none() {
                continue;
            }
            let mtime = s.meta.as_ref().map(|m| (m.mtime_ns.div_euclid(1_000_000_000)) as i64).unwrap_or_else(|| common::timefmt::now().0);
            if (o.update || o.freshen) && existing.map_or(false, |i| {
                let (t, d) = format::dos_datetime(mtime, common::timefmt::local_offset());
                (members[i].dos_date, members[i].dos_time) >= (d, t)
            }) {
                continue;
            }
            let data = match &s.path {
                None => {
                    let mut d = Vec::new();
                    let _ = stdin.read_to_end(&mut d);
                    d
                }
                Some(_) if s.name.ends_with(b"/") => Vec::new(),
                Some(p) => match fs::read(p) {
                    Ok(d) => d,
                    Err(e) => {
                        notes.extend_from_slice(format!("\tzip warning: could not open for reading: {}: {}\n", p.to_string_lossy(), strerror(&e)).as_bytes());
                        status = 18;
                        continue;
                    }
                },
            };
            let (mode, uid, gid) = match &s.meta {
                Some(m) => (m.mode, m.uid, m.gid),
                None => (0o100600, 0, 0),
            };
            let level = if s.name.ends_with(b"/") { 0 } else { o.level };
            let member = format::new_member(s.name.clone(), &data, level, mtime, mode, uid, gid);
            if !o.quiet {
                let how = if member.method == format::METHOD_DEFLATED { format!("deflated {}%", format::percent(member.size, member.compressed.len() as u64)) } else { "stored 0%".to_string() };
                let verb: &[u8] = if existing.is_some() { b"updating: " } else { b"  adding: " };
                messages.extend_from_slice(verb);
                messages.extend_from_slice(&s.name);
                messages.extend_from_slice(format!(" ({})\n", how).as_bytes());
            }
            match existing {
                Some(i) => members[i] = member,
                None => members.push(member),
            }
            changed = true;
            if o.move_files {
                if let Some(p) = s.path {
                    moved.push(p);
                }
            }
        }
        if !changed {
            // -u/-f with everything current end quietly.
            if !(o.update || o.freshen) || !notes.is_empty() {
                notes.extend_from_slice(format!("\nzip error: Nothing to do! ({})\n", shown_zip).as_bytes());
            }
            let _ = if to_stdout { stderr.write_all(&notes) } else { stdout.write_all(&notes) };
            return 12;
        }
        let result = write_out(&zip_path, to_stdout, &members, stdout);
        notes.extend_from_slice(&messages);
        let _ = if to_stdout { stderr.write_all(&notes) } else { stdout.write_all(&notes) };
        if let Err(e) = result {
            let _ = writeln!(stderr, "zip I/O error: {}", strerror(&e));
            return 15;
        }
        remove_moved(moved);
        return status;
    }
    if !changed {
        notes.extend_from_slice(format!("\nzip error: Nothing to do! ({})\n", shown_zip).as_bytes());
        let _ = if to_stdout { stderr.write_all(&notes) } else { stdout.write_all(&notes) };
        return 12;
    }
    let result = write_out(&zip_path, to_stdout, &members, stdout);
    messages.extend_from_slice(&notes);
    let _ = if to_stdout { stderr.write_all(&messages) } else { stdout.write_all(&messages) };
    match result {
        Ok(()) => status,
        Err(e) => {
            let _ = writeln!(stderr, "zip I/O error: {}", strerror(&e));
            15
        }
    }
}

/// Writes the archive through a temporary file renamed into place (or to stdout).
fn write_out(path: &Path, to_stdout: bool, members: &[Member], stdout: &mut dyn Write) -> io::Result<()> {
    if to_stdout {
        return format::write_archive(stdout, members);
    }
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(".ztmp");
    let tmp = PathBuf::from(tmp);
    {
        let file = fs::File::create(&tmp)?;
        let mut w = io::BufWriter::with_capacity(common::io::BUFFER_SIZE, file);
        format::write_archive(&mut w, members)?;
        w.flush()?;
    }
    fs::rename(&tmp, path)
}

/// Expands one operand into sources (recursing with -r), warning about missing names.
fn collect(o: &Opts, operand: &OsString, out: &mut Vec<Source>, notes: &mut Vec<u8>) {
    if os_bytes(operand) == b"-" {
        out.push(Source { name: b"-".to_vec(), path: None, meta: None });
        return;
    }
    let path = PathBuf::from(operand);
    let meta = match fsext::metadata(&path, true) {
        Ok(m) => m,
        Err(_) => {
            notes.extend_from_slice(format!("\tzip warning: name not matched: {}\n", operand.to_string_lossy()).as_bytes());
            return;
        }
    };
    add_path(o, &path, meta, out);
}

fn add_path(o: &Opts, path: &Path, meta: fsext::Meta, out: &mut Vec<Source>) {
    let mut name = member_name(os_bytes(path.as_os_str()), o.junk);
    if meta.is_dir() {
        if !o.no_dirs && !o.junk && !name.is_empty() {
            name.push(b'/');
            out.push(Source { name, path: Some(path.to_path_buf()), meta: Some(meta) });
        }
        if !o.recurse {
            return;
        }
        let entries: Vec<PathBuf> = match fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
            Err(_) => return,
        };
        for e in entries {
            if let Ok(m) = fsext::metadata(&e, true) {
                add_path(o, &e, m, out);
            }
        }
        return;
    }
    out.push(Source { name, path: Some(path.to_path_buf()), meta: Some(meta) });
}

const HELP: &str = "Copyright (c) 1990-2008 Info-ZIP - Type 'zip \"-L\"' for software license.
Zip 3.0 (July 5th 2008). Usage:
zip [-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] [-xi list]
  The default action is to add or replace zipfile entries from list, which
  can include the special name - to compress standard input.
  If zipfile and list are omitted, zip compresses stdin to stdout.
  -f   freshen: only changed files  -u   update: only changed or new files
  -d   delete entries in zipfile    -m   move into zipfile (delete OS files)
  -r   recurse into directories     -j   junk (don't record) directory names
  -0   store only                   -l   convert LF to CR LF (-ll CR LF to LF)
  -1   compress faster              -9   compress better
  -q   quiet operation              -v   verbose operation/print version info
";
