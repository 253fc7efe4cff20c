//! `iconv [-c] [-f FROM] [-t TO[//TRANSLIT|//IGNORE]] [-o FILE] [FILE]...`: character set
//! conversion as glibc's iconv does it, between UTF-8, ISO-8859-1, ISO-8859-15, CP1252,
//! ASCII, UTF-16/UCS-2 and UTF-32/UCS-4 (with or without byte order; UTF-16/UTF-32 write a
//! BOM and read one, defaulting to little endian like glibc on x86). Invalid or unconvertible
//! input stops with glibc's message and the byte position; `-c` and `//IGNORE` skip it,
//! `//TRANSLIT` spells it in ASCII where glibc can. Input streams in 64 KiB blocks.

#[path = "iconv/translit.rs"]
mod translit;

use std::ffi::OsString;
use std::io::{Read, Write};

use common::args::{os_bytes, Command, Parsed};
use common::{Io, UError};

const SPEC: &str = "from=f,from-code: to=t,to-code: skip=c list,l output,o: silent,s verbose help version,V";

#[derive(Clone, Copy, PartialEq, Debug)]
enum Charset {
    Utf8,
    Latin1,
    Latin9,
    Cp1252,
    Ascii,
    /// 16-bit units: surrogates allowed, a BOM read and written.
    Utf16 { big: Option<bool>, bom: bool },
    /// UCS-2: no surrogates, no BOM.
    Ucs2 { big: bool },
    Utf32 { big: Option<bool>, bom: bool },
}

const NAMES: &[(&str, Charset)] = &[
    ("UTF-8", Charset::Utf8),
    ("UTF8", Charset::Utf8),
    ("ISO-8859-1", Charset::Latin1),
    ("ISO8859-1", Charset::Latin1),
    ("ISO_8859-1", Charset::Latin1),
    ("LATIN1", Charset::Latin1),
    ("L1", Charset::Latin1),
    ("CP819", Charset::Latin1),
    ("IBM819", Charset::Latin1),
    ("ISO-8859-15", Charset::Latin9),
    ("ISO8859-15", Charset::Latin9),
    ("ISO_8859-15", Charset::Latin9),
    ("LATIN-9", Charset::Latin9),
    ("LATIN9", Charset::Latin9),
    ("CP1252", Charset::Cp1252),
    ("WINDOWS-1252", Charset::Cp1252),
    ("MS-ANSI", Charset::Cp1252),
    ("ASCII", Charset::Ascii),
    ("US-ASCII", Charset::Ascii),
    ("ANSI_X3.4-1968", Charset::Ascii),
    ("646", Charset::Ascii),
    ("US", Charset::Ascii),
    ("UTF-16", Charset::Utf16 { big: None, bom: true }),
    ("UTF16", Charset::Utf16 { big: None, bom: true }),
    ("UTF-16LE", Charset::Utf16 { big: Some(false), bom: false }),
    ("UTF16LE", Charset::Utf16 { big: Some(false), bom: false }),
    ("UTF-16BE", Charset::Utf16 { big: Some(true), bom: false }),
    ("UTF16BE", Charset::Utf16 { big: Some(true), bom: false }),
    ("UCS-2", Charset::Ucs2 { big: false }),
    ("UCS2", Charset::Ucs2 { big: false }),
    ("UCS-2LE", Charset::Ucs2 { big: false }),
    ("UCS-2BE", Charset::Ucs2 { big: true }),
    ("UTF-32", Charset::Utf32 { big: None, bom: true }),
    ("UTF32", Charset::Utf32 { big: None, bom: true }),
    ("UTF-32LE", Charset::Utf32 { big: Some(false), bom: false }),
    ("UTF32LE", Charset::Utf32 { big: Some(false), bom: false }),
    ("UTF-32BE", Charset::Utf32 { big: Some(true), bom: false }),
    ("UTF32BE", Charset::Utf32 { big: Some(true), bom: false }),
    ("UCS-4", Charset::Utf32 { big: Some(true), bom: false }),
    ("UCS4", Charset::Utf32 { big: Some(true), bom: false }),
    ("UCS-4BE", Charset::Utf32 { big: Some(true), bom: false }),
    ("UCS-4LE", Charset::Utf32 { big: Some(false), bom: false }),
    ("WCHAR_T", Charset::Utf32 { big: Some(false), bom: false }),
];

/// CP1252's 0x80-0x9F (0 = undefined).
const CP1252_HIGH: [u16; 32] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
];
/// Where ISO-8859-15 differs from ISO-8859-1.
const LATIN9_DIFF: [(u8, u32); 8] = [(0xA4, 0x20AC), (0xA6, 0x160), (0xA8, 0x161), (0xB4, 0x17D), (0xB8, 0x17E), (0xBC, 0x152), (0xBD, 0x153), (0xBE, 0x178)];

/// A charset name with its `//` suffixes: (charset, translit, ignore).
fn lookup(name: &str) -> Option<(Charset, bool, bool)> {
    let upper = name.to_ascii_uppercase();
    let mut parts = upper.split("//");
    let base = parts.next().unwrap_or("");
    let (mut translit, mut ignore) = (false, false);
    for p in parts {
        for flag in p.split(',') {
            match flag {
                "TRANSLIT" => translit = true,
                "IGNORE" => ignore = true,
                _ => {}
            }
        }
    }
    let base = if base.is_empty() { "UTF-8" } else { base };
    NAMES.iter().find(|(n, _)| *n == base).map(|(_, c)| (*c, translit, ignore))
}

enum Decoded {
    Char(u32, usize),
    Invalid,
    Incomplete,
}

fn unit16(b: &[u8], big: bool) -> u32 {
    if big {
        u16::from_be_bytes([b[0], b[1]]) as u32
    } else {
        u16::from_le_bytes([b[0], b[1]]) as u32
    }
}

fn decode(cs: Charset, b: &[u8]) -> Decoded {
    let c = b[0];
    match cs {
        Charset::Utf8 => {
            let (len, min) = match c {
                0x00..=0x7F => return Decoded::Char(c as u32, 1),
                0xC2..=0xDF => (2, 0x80),
                0xE0..=0xEF => (3, 0x800),
                0xF0..=0xF4 => (4, 0x10000),
                _ => return Decoded::Invalid,
            };
            let mut cp = (c as u32) & (0x7F >> len);
            for i in 1..len {
                match b.get(i) {
                    None => return Decoded::Incomplete,
                    Some(&x) if x & 0xC0 == 0x80 => cp = (cp << 6) | (x as u32 & 0x3F),
                    Some(_) => return Decoded::Invalid,
                }
            }
            if cp < min || cp > 0x10FFFF || (0xD800..=0xDFFF).contains(&cp) {
                return Decoded::Invalid;
            }
            Decoded::Char(cp, len)
        }
        Charset::Latin1 => Decoded::Char(c as u32, 1),
        Charset::Latin9 => Decoded::Char(LATIN9_DIFF.iter().find(|(b, _)| *b == c).map_or(c as u32, |(_, u)| *u), 1),
        Charset::Cp1252 => match c {
            0x80..=0x9F => match CP1252_HIGH[(c - 0x80) as usize] {
                0 => Decoded::Invalid,
                u => Decoded::Char(u as u32, 1),
            },
            _ => Decoded::Char(c as u32, 1),
        },
        Charset::Ascii if c < 0x80 => Decoded::Char(c as u32, 1),
        Charset::Ascii => Decoded::Invalid,
        Charset::Ucs2 { big } => {
            if b.len() < 2 {
                return Decoded::Incomplete;
            }
            let u = unit16(b, big);
            if (0xD800..=0xDFFF).contains(&u) {
                return Decoded::Invalid;
            }
            Decoded::Char(u, 2)
        }
        Charset::Utf16 { big, .. } => {
            if b.len() < 2 {
                return Decoded::Incomplete;
            }
            let big = big.unwrap_or(false);
            let u = unit16(b, big);
            match u {
                0xD800..=0xDBFF => {
                    if b.len() < 4 {
                        return Decoded::Incomplete;
                    }
                    let low = unit16(&b[2..], big);
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return Decoded::Invalid;
                    }
                    Decoded::Char(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00), 4)
                }
                0xDC00..=0xDFFF => Decoded::Invalid,
                _ => Decoded::Char(u, 2),
            }
        }
        Charset::Utf32 { big, .. } => {
            if b.len() < 4 {
                return Decoded::Incomplete;
            }
            let bytes = [b[0], b[1], b[2], b[3]];
            let u = if big.unwrap_or(false) { u32::from_be_bytes(bytes) } else { u32::from_le_bytes(bytes) };
            if u > 0x10FFFF || (0xD800..=0xDFFF).contains(&u) {
                return Decoded::Invalid;
            }
            Decoded::Char(u, 4)
        }
    }
}

/// Appends `cp` in `cs`; false when the charset cannot represent it.
fn encode(cs: Charset, cp: u32, out: &mut Vec<u8>) -> bool {
    match cs {
        Charset::Utf8 => match char::from_u32(cp) {
            Some(ch) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            None => return false,
        },
        Charset::Latin1 if cp < 0x100 => out.push(cp as u8),
        Charset::Ascii if cp < 0x80 => out.push(cp as u8),
        Charset::Latin9 => {
            if let Some((b, _)) = LATIN9_DIFF.iter().find(|(_, u)| *u == cp) {
                out.push(*b);
            } else if cp < 0x100 && !LATIN9_DIFF.iter().any(|(b, _)| *b as u32 == cp) {
                out.push(cp as u8);
            } else {
                return false;
            }
        }
        Charset::Cp1252 => {
            if let Some(i) = CP1252_HIGH.iter().position(|u| *u != 0 && *u as u32 == cp) {
                out.push(0x80 + i as u8);
            } else if cp < 0x100 && !(0x80..0xA0).contains(&cp) {
                out.push(cp as u8);
            } else {
                return false;
            }
        }
        Charset::Ucs2 { big } => {
            if cp > 0xFFFF || (0xD800..=0xDFFF).contains(&cp) {
                return false;
            }
            push16(out, cp as u16, big);
        }
        Charset::Utf16 { big, .. } => {
            let big = big.unwrap_or(false);
            if cp >= 0x10000 {
                let v = cp - 0x10000;
                push16(out, 0xD800 + (v >> 10) as u16, big);
                push16(out, 0xDC00 + (v & 0x3FF) as u16, big);
            } else {
                push16(out, cp as u16, big);
            }
        }
        Charset::Utf32 { big, .. } => {
            if big.unwrap_or(false) {
                out.extend_from_slice(&cp.to_be_bytes());
            } else {
                out.extend_from_slice(&cp.to_le_bytes());
            }
        }
        _ => return false,
    }
    true
}

fn push16(out: &mut Vec<u8>, u: u16, big: bool) {
    out.extend_from_slice(&if big { u.to_be_bytes() } else { u.to_le_bytes() });
}

struct Converter {
    from: Charset,
    to: Charset,
    translit: bool,
    /// Skip what cannot be converted (-c or //IGNORE).
    skip: bool,
    /// Something was skipped because of //IGNORE (glibc then exits 1).
    ignored: bool,
    bom_written: bool,
}

enum Failure {
    Illegal(u64),
    Incomplete,
    Io(std::io::Error),
}

impl Converter {
    /// Converts one input stream to `out`.
    fn stream(&mut self, input: &mut dyn Read, out: &mut dyn Write, ignore_flag: bool) -> Result<(), Failure> {
        let mut pending: Vec<u8> = Vec::new();
        let mut position: u64 = 0;
        let mut start = true;
        let mut eof = false;
        let mut chunk = vec![0u8; common::io::BUFFER_SIZE];
        let mut encoded = Vec::new();
        while !eof {
            let n = input.read(&mut chunk).map_err(Failure::Io)?;
            eof = n == 0;
            pending.extend_from_slice(&chunk[..n]);
            let mut i = 0;
            if start && (pending.len() >= 4 || eof) {
                start = false;
                i = self.read_bom(&pending);
            } else if start {
                continue;
            }
            while i < pending.len() {
                match decode(self.from, &pending[i..]) {
                    Decoded::Char(cp, len) => {
                        if !self.put(cp, &mut encoded) {
                            if !self.skip {
                                out.write_all(&encoded).map_err(Failure::Io)?;
                                return Err(Failure::Illegal(position + i as u64));
                            }
                            self.ignored |= ignore_flag;
                        }
                        i += len;
                    }
                    Decoded::Incomplete if !eof => break,
                    Decoded::Incomplete => {
                        out.write_all(&encoded).map_err(Failure::Io)?;
                        return Err(Failure::Incomplete);
                    }
                    Decoded::Invalid => {
                        if !self.skip {
                            out.write_all(&encoded).map_err(Failure::Io)?;
                            return Err(Failure::Illegal(position + i as u64));
                        }
                        self.ignored |= ignore_flag;
                        i += 1;
                    }
                }
            }
            position += i as u64;
            pending.drain(..i);
            out.write_all(&encoded).map_err(Failure::Io)?;
            encoded.clear();
        }
        Ok(())
    }

    /// Skips a byte order mark and fixes the input's byte order; returns its length.
    fn read_bom(&mut self, b: &[u8]) -> usize {
        match self.from {
            Charset::Utf16 { big: None, .. } if b.len() >= 2 => match (b[0], b[1]) {
                (0xFF, 0xFE) => 2,
                (0xFE, 0xFF) => {
                    self.from = Charset::Utf16 { big: Some(true), bom: true };
                    2
                }
                _ => 0,
            },
            Charset::Utf32 { big: None, .. } if b.len() >= 4 => match (b[0], b[1], b[2], b[3]) {
                (0xFF, 0xFE, 0, 0) => 4,
                (0, 0, 0xFE, 0xFF) => {
                    self.from = Charset::Utf32 { big: Some(true), bom: true };
                    4
                }
                _ => 0,
            },
            _ => 0,
        }
    }

    fn put(&mut self, cp: u32, out: &mut Vec<u8>) -> bool {
        if !self.bom_written {
            self.bom_written = true;
            match self.to {
                Charset::Utf16 { bom: true, .. } => out.extend_from_slice(&[0xFF, 0xFE]),
                Charset::Utf32 { bom: true, .. } => out.extend_from_slice(&[0xFF, 0xFE, 0, 0]),
                _ => {}
            }
        }
        if encode(self.to, cp, out) {
            return true;
        }
        if self.translit {
            let text = translit::TABLE.iter().find(|(c, _)| *c == cp).map_or("?", |(_, t)| *t);
            return text.chars().all(|c| encode(self.to, c as u32, out));
        }
        false
    }
}

const HELP: &str = "Usage: {name} [OPTION...] [FILE...]\nConvert encoding of given files from one encoding to another.\n\n Input/Output format specification:\n  -f, --from-code=NAME       encoding of original text\n  -t, --to-code=NAME         encoding for output\n\n Information:\n  -l, --list                 list all known coded character sets\n\n Output control:\n  -c                         omit invalid characters from output\n  -o, --output=FILE          output file\n  -s, --silent               suppress warnings\n      --verbose              print progress information\n\n  -?, --help                 Give this help list\n  -V, --version              Print program version\n";

const ICONV: Command = Command::compact("iconv", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut from, mut to) = (String::new(), String::new());
    let mut skip = false;
    let mut output: Option<OsString> = None;
    let mut files = Vec::new();
    ICONV.options(&args, io, &mut |io, item| {
        match item {
            Parsed::Opt { id: "list", .. } => {
                let mut text = String::new();
                for (name, _) in NAMES {
                    text.push_str(name);
                    text.push_str("//\n");
                }
                let _ = io.out(text.as_bytes());
                return Err(UError::exit(0));
            }
            Parsed::Opt { id: "from", value } => from = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default(),
            Parsed::Opt { id: "to", value } => to = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default(),
            Parsed::Opt { id: "skip", .. } => skip = true,
            Parsed::Opt { id: "output", value } => output = value,
            Parsed::Opt { .. } => {}
            Parsed::Operand(f) => files.push(f),
        }
        Ok(())
    })?;
    let (from_cs, to_cs) = match (lookup(&from), lookup(&to)) {
        (Some(f), Some(t)) => (f, t),
        (f, t) => {
            let message = match (f.is_none(), t.is_none()) {
                (true, true) => format!("conversions from `{}' and to `{}' are not supported", from, to),
                (true, false) => format!("conversion from `{}' is not supported", from),
                _ => format!("conversion to `{}' is not supported", to),
            };
            return Err(UError::new(1, message));
        }
    };
    let mut conv = Converter { from: from_cs.0, to: to_cs.0, translit: to_cs.1, skip: skip || to_cs.2, ignored: false, bom_written: false };
    let mut file_out;
    let out: &mut dyn Write = match &output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => {
                file_out = std::io::BufWriter::new(f);
                &mut file_out
            }
            Err(e) => {
                return Err(UError::new(1, format!("cannot open output file: {}", common::strerror(&e))));
            }
        },
        None => &mut *io.stdout,
    };
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let mut status = 0;
    let mut messages = Vec::new();
    for file in &files {
        let result = if os_bytes(file) == b"-" {
            conv.stream(&mut io.stdin, out, to_cs.2)
        } else {
            match std::fs::File::open(file) {
                Ok(mut f) => conv.stream(&mut f, out, to_cs.2),
                Err(e) => {
                    messages.push(format!("cannot open input file `{}': {}", file.to_string_lossy(), common::strerror(&e)));
                    status = 1;
                    continue;
                }
            }
        };
        match result {
            Ok(()) => {}
            Err(Failure::Illegal(at)) => {
                messages.push(format!("illegal input sequence at position {}", at));
                status = 1;
                break;
            }
            Err(Failure::Incomplete) => {
                messages.push("incomplete character or shift sequence at end of buffer".to_string());
                status = 1;
                break;
            }
            Err(Failure::Io(e)) if common::error::is_broken_pipe(&e) => return Ok(status),
            Err(Failure::Io(e)) => {
                messages.push(common::strerror(&e));
                status = 1;
                break;
            }
        }
    }
    let _ = out.flush();
    for m in messages {
        io.error(m);
    }
    if conv.ignored {
        status = 1;
    }
    Ok(status)
}
