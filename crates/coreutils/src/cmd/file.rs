//! `file`: determine file type, phrased as file 5.44 does for the common cases: empty,
//! ASCII/UTF-8/ISO-8859 text with their line-terminator notes, scripts by their `#!`,
//! JSON/NDJSON, HTML, XML, directories, symlinks, and the binary formats in file/binary.rs.
//! Options: -b -L -h -i --mime-type --mime-encoding -N -F -0 -f.

#[path = "file/binary.rs"]
mod binary;

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use common::args::{self, os_bytes, Command};
use common::fsext::{S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK};
use common::{strerror, Io, Parsed, UError};

const SPEC: &str = "brief,b dereference,L no-dereference,h mime,i mime-type mime-encoding no-pad,N separator,F: print0,0 files-from,f: keep-going,k raw,r special-files,s uncompress,z error,E help version,v";

const HELP: &str = "Usage: file [OPTION...] [FILE...]
Determine type of FILEs.

  -b, --brief                do not prepend filenames to output lines
  -E                         on filesystem errors, issue an error message and exit
  -f, --files-from FILE      read the filenames to be examined from FILE
  -F, --separator STRING     use string as separator instead of `:'
  -i, --mime                 output MIME type strings (--mime-type and
                               --mime-encoding)
      --mime-type            output the MIME type
      --mime-encoding        output the MIME encoding
  -k, --keep-going           don't stop at the first match
  -L, --dereference          follow symlinks
  -h, --no-dereference       don't follow symlinks (default)
  -N, --no-pad               do not pad output
  -0, --print0               terminate filenames with ASCII NUL
  -r, --raw                  don't translate unprintable chars to \\ooo
  -s, --special-files        treat special (block/char devices) files as
                             ordinary ones
      --help                 display this help and exit
  -v, --version              output version information and exit
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Show {
    Description,
    Mime,
    MimeType,
    Encoding,
}

/// What a file is: words for people, a MIME type and a charset.
struct Kind {
    text: String,
    mime: String,
    charset: &'static str,
}

fn kind(text: impl Into<String>, mime: &str, charset: &'static str) -> Kind {
    Kind { text: text.into(), mime: mime.to_string(), charset }
}

const FILE: Command = Command { version: "file-5.44 (Airlock coreutils 0.1.0)\n", ..Command::compact("file", SPEC, HELP) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut brief, mut follow, mut pad, mut print0, mut error_exit) = (false, false, true, false, false);
    let mut show = Show::Description;
    let mut separator = b":".to_vec();
    let mut files = Vec::new();
    FILE.options(&args, io, &mut |io, p| {
        match p {
            Parsed::Opt { id: "brief", .. } => brief = true,
            Parsed::Opt { id: "dereference", .. } => follow = true,
            Parsed::Opt { id: "no-dereference", .. } => follow = false,
            Parsed::Opt { id: "mime", .. } => show = Show::Mime,
            Parsed::Opt { id: "mime-type", .. } => show = Show::MimeType,
            Parsed::Opt { id: "mime-encoding", .. } => show = Show::Encoding,
            Parsed::Opt { id: "no-pad", .. } => pad = false,
            Parsed::Opt { id: "separator", value } => separator = os_bytes(&value.unwrap_or_default()).to_vec(),
            Parsed::Opt { id: "print0", .. } => print0 = true,
            Parsed::Opt { id: "error", .. } => error_exit = true,
            Parsed::Opt { id: "files-from", value } => {
                let list = value.unwrap_or_default();
                let text = if os_bytes(&list) == b"-" { {
                    let mut all = Vec::new();
                    io.stdin.read_to_end(&mut all).map(|_| all)
                } } else { std::fs::read(&list) };
                match text {
                    Ok(t) => files.extend(t.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(args::bytes_os)),
                    Err(e) => {
                        return Err(UError::new(1, format!("Cannot open `{}' ({})", list.to_string_lossy(), strerror(&e))));
                    }
                }
            }
            Parsed::Opt { id: "keep-going", .. } | Parsed::Opt { id: "raw", .. } | Parsed::Opt { id: "special-files", .. } => {}
            Parsed::Opt { id: "uncompress", .. } => {
                return Err(UError::new(1, "option not supported in the sandbox: --uncompress"));
            }
            Parsed::Opt { .. } => {}
            Parsed::Operand(f) => files.push(f),
        }
        Ok(())
    })?;
    if files.is_empty() {
        let _ = io.stderr.write_all(b"Usage: file [-bcdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]\n");
        return Ok(1);
    }
    let width = files.iter().map(|f| os_bytes(f).len()).max().unwrap_or(0);
    let mut out = Vec::new();
    for f in &files {
        let k = match classify(Path::new(f), follow) {
            Ok(k) => k,
            Err(e) => {
                if error_exit {
                    return Err(UError::new(1, format!("cannot open `{}' ({})", f.to_string_lossy(), strerror(&e))));
                }
                let text = format!("cannot open `{}' ({})", f.to_string_lossy(), strerror(&e));
                Kind { text: text.clone(), mime: text, charset: "" }
            }
        };
        if !brief {
            out.extend_from_slice(os_bytes(f));
            if print0 {
                out.push(0);
            } else {
                out.extend_from_slice(&separator);
            }
            let fill = if pad { width - os_bytes(f).len() } else { 0 };
            out.extend(std::iter::repeat(b' ').take(fill + 1));
        }
        let line = match show {
            _ if k.charset.is_empty() => k.text,
            Show::Description => k.text,
            Show::Mime => format!("{}; charset={}", k.mime, k.charset),
            Show::MimeType => k.mime,
            Show::Encoding => k.charset.to_string(),
        };
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    if let Err(e) = io.out(&out) {
        return Ok(common::write::write_failed(io, &e));
    }
    Ok(0)
}

fn classify(path: &Path, follow: bool) -> std::io::Result<Kind> {
    let meta = common::fsext::metadata(path, follow)?;
    if meta.is_dir() {
        return Ok(kind("directory", "inode/directory", "binary"));
    }
    if meta.is_symlink() {
        let target = std::fs::read_link(path).map(|t| t.to_string_lossy().into_owned()).unwrap_or_default();
        let broken = common::fsext::metadata(path, true).is_err();
        return Ok(kind(format!("{}symbolic link to {}", if broken { "broken " } else { "" }, target), "inode/symlink", "binary"));
    }
    match meta.file_type() {
        S_IFIFO => return Ok(kind("fifo (named pipe)", "inode/fifo", "binary")),
        S_IFCHR => return Ok(kind("character special", "inode/chardevice", "binary")),
        S_IFBLK => return Ok(kind("block special", "inode/blockdevice", "binary")),
        S_IFSOCK => return Ok(kind("socket", "inode/socket", "binary")),
        _ => {}
    }
    let mut data = Vec::new();
    let mut handle = std::fs::File::open(path)?;
    (&mut handle).take(1 << 20).read_to_end(&mut data)?;
    // ELF keeps its dynamic section and section headers anywhere in the file.
    if data.starts_with(b"\x7fELF") {
        handle.take(256 << 20).read_to_end(&mut data)?;
    }
    if data.is_empty() {
        return Ok(kind("empty", "inode/x-empty", "binary"));
    }
    if let Some((text, mime)) = binary::detect(&data) {
        return Ok(kind(text, mime, "binary"));
    }
    Ok(text_kind(&data).unwrap_or_else(|| kind("data", "application/octet-stream", "binary")))
}

/// file's text_chars: printable ASCII and the usual control characters.
fn is_text_byte(b: u8) -> bool {
    (0x20..0x7f).contains(&b) || matches!(b, 7..=13 | 27)
}

fn text_kind(data: &[u8]) -> Option<Kind> {
    let (bom, body) = if data.starts_with(b"\xef\xbb\xbf") { (true, &data[3..]) } else { (false, data) };
    let ascii = body.iter().all(|b| is_text_byte(*b));
    let (encoding, charset) = if ascii && !bom {
        ("ASCII text", "us-ascii")
    } else if std::str::from_utf8(body).is_ok() && body.iter().all(|b| *b >= 0x80 || is_text_byte(*b)) {
        (if bom { "Unicode text, UTF-8 (with BOM) text" } else { "Unicode text, UTF-8 text" }, "utf-8")
    } else if body.iter().all(|b| *b >= 0xa0 || is_text_byte(*b)) {
        ("ISO-8859 text", "iso-8859-1")
    } else if body.iter().all(|b| *b >= 0x80 || is_text_byte(*b)) {
        ("Non-ISO extended-ASCII text", "unknown-8bit")
    } else {
        return None;
    };
    let notes = notes(body);
    if body.starts_with(b"#!") {
        let line = body.split(|b| *b == b'\n').next().unwrap_or(b"");
        let line = String::from_utf8_lossy(line).trim_end_matches('\r').to_string();
        let mut words = line[2..].split_whitespace();
        let program = words.next().unwrap_or("");
        let mut name = program.rsplit('/').next().unwrap_or("");
        if name == "env" {
            name = words.find(|w| !w.starts_with('-')).unwrap_or("");
        }
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let (text, mime) = match base {
            "sh" | "dash" | "ash" => (format!("POSIX shell script, {} executable", encoding), "text/x-shellscript"),
            "bash" => (format!("Bourne-Again shell script, {} executable", encoding), "text/x-shellscript"),
            "zsh" => (format!("Paul Falstad's zsh script, {} executable", encoding), "text/x-shellscript"),
            "python" => (format!("Python script, {} executable", encoding), "text/x-script.python"),
            "perl" => ("Perl script text executable".to_string(), "text/x-perl"),
            "node" | "nodejs" => (format!("Node.js script executable, {}", encoding), "application/javascript"),
            "ruby" => (format!("Ruby script, {} executable", encoding), "text/x-ruby"),
            "awk" | "gawk" | "mawk" => (format!("awk script, {} executable", encoding), "text/x-awk"),
            _ => (format!("a {} script, {} executable", line[2..].trim(), encoding), "text/plain"),
        };
        return Some(kind(text + &notes, mime, charset));
    }
    let trimmed = trim_ascii(body);
    if charset != "iso-8859-1" && charset != "unknown-8bit" {
        if (trimmed.starts_with(b"{") || trimmed.starts_with(b"[")) && json_value(trimmed).map_or(false, |rest| trim_ascii(rest).is_empty()) {
            return Some(kind("JSON text data", "application/json", charset));
        }
        let lines: Vec<&[u8]> = trimmed.split(|b| *b == b'\n').map(trim_ascii).filter(|l| !l.is_empty()).collect();
        if lines.len() > 1 && lines.iter().all(|l| (l.starts_with(b"{") || l.starts_with(b"[")) && json_value(l).map_or(false, |r| trim_ascii(r).is_empty())) {
            return Some(kind("New Line Delimited JSON text data", "application/x-ndjson", charset));
        }
    }
    let lower: Vec<u8> = trimmed.iter().take(64).map(|b| b.to_ascii_lowercase()).collect();
    if lower.starts_with(b"<?xml version=\"1.0\"") || lower.starts_with(b"<?xml version='1.0'") {
        return Some(kind(format!("XML 1.0 document, {}{}", encoding, notes), "text/xml", charset));
    }
    if lower.starts_with(b"<!doctype html") || lower.starts_with(b"<html") || lower.starts_with(b"<head") {
        return Some(kind(format!("HTML document, {}{}", encoding, notes), "text/html", charset));
    }
    Some(kind(format!("{}{}", encoding, notes), "text/plain", charset))
}

fn trim_ascii(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |e| e + 1);
    &s[start..end]
}

/// The notes file adds after the encoding: long lines, line terminators, escapes.
fn notes(data: &[u8]) -> String {
    let (mut crlf, mut cr, mut lf, mut longest, mut current) = (0, 0, 0, 0usize, 0usize);
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'\r' if data.get(i + 1) == Some(&b'\n') => {
                crlf += 1;
                longest = longest.max(current);
                current = 0;
                i += 1;
            }
            b'\r' => {
                cr += 1;
                longest = longest.max(current);
                current = 0;
            }
            b'\n' => {
                lf += 1;
                longest = longest.max(current);
                current = 0;
            }
            _ => current += 1,
        }
        i += 1;
    }
    longest = longest.max(current);
    let mut s = String::new();
    if longest > 300 {
        s.push_str(&format!(", with very long lines ({})", longest));
    }
    if crlf + cr + lf == 0 {
        s.push_str(", with no line terminators");
    } else if crlf + cr > 0 {
        let mut kinds = Vec::new();
        if crlf > 0 {
            kinds.push("CRLF");
        }
        if cr > 0 {
            kinds.push("CR");
        }
        if lf > 0 {
            kinds.push("LF");
        }
        s.push_str(&format!(", with {} line terminators", kinds.join(", ")));
    }
    if data.contains(&27) {
        s.push_str(", with escape sequences");
    }
    if data.contains(&8) {
        s.push_str(", with overstriking");
    }
    s
}

/// Parses one JSON value at the start of `s`; returns what follows it.
fn json_value(s: &[u8]) -> Option<&[u8]> {
    json_depth(s, 0)
}

fn skip_ws(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')).count();
    &s[n..]
}

fn json_depth(s: &[u8], depth: usize) -> Option<&[u8]> {
    if depth > 256 {
        return None;
    }
    let s = skip_ws(s);
    match *s.first()? {
        b'{' | b'[' => {
            let close = if s[0] == b'{' { b'}' } else { b']' };
            let object = s[0] == b'{';
            let mut rest = skip_ws(&s[1..]);
            if rest.first() == Some(&close) {
                return Some(&rest[1..]);
            }
            loop {
                if object {
                    rest = skip_ws(json_string(skip_ws(rest))?);
                    if rest.first() != Some(&b':') {
                        return None;
                    }
                    rest = &rest[1..];
                }
                rest = skip_ws(json_depth(rest, depth + 1)?);
                match rest.first()? {
                    b',' => rest = &rest[1..],
                    c if *c == close => return Some(&rest[1..]),
                    _ => return None,
                }
            }
        }
        b'"' => json_string(s),
        b't' => s.strip_prefix(b"true"),
        b'f' => s.strip_prefix(b"false"),
        b'n' => s.strip_prefix(b"null"),
        b'-' | b'0'..=b'9' => {
            let n = s.iter().take_while(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')).count();
            Some(&s[n..])
        }
        _ => None,
    }
}

fn json_string(s: &[u8]) -> Option<&[u8]> {
    if s.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'"' => return Some(&s[i + 1..]),
            c if c < 0x20 => return None,
            _ => i += 1,
        }
    }
    None
}
