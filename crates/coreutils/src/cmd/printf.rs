//! `printf FORMAT [ARGUMENT]...`: GNU coreutils' printf. The format is reused while
//! arguments remain; missing arguments read as empty / 0. Conversions `diouxX feEgGaA
//! cs b q` with flags, widths and precisions (also from `*`); backslash escapes in the
//! format and in `%b` arguments (`\c` ends all output); numbers as C reads them (`0x`,
//! octal, `'c` for a character's code) with GNU's warnings and status 1 for bad ones.

use std::ffi::OsString;

use common::args::{bytes_os, os_bytes};
use common::cformat::{self, Amount, Spec};
use common::cnum;
use common::io::quote;
use common::{Command, Io, UError};

const HELP: &str = "Usage: {name} FORMAT [ARGUMENT]...\n  or:  {name} OPTION\nPrint ARGUMENT(s) according to FORMAT, or execute according to OPTION:\n\n{standard}";

const PRINTF: Command = Command::compact("printf", "", HELP).operands_between(1, usize::MAX);

/// Why output stopped early.
enum Stop {
    /// `\c`: end all output, status so far.
    Cut,
    /// A fatal error: message, exit 1.
    Fatal(String),
}

struct Printer<'a, 'io> {
    io: &'a mut Io<'io>,
    out: Vec<u8>,
    args: &'a [Vec<u8>],
    next: usize,
    status: i32,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let words: Vec<Vec<u8>> = PRINTF.words(&args, io)?.iter().map(|a| os_bytes(a).to_vec()).collect();
    let format = words[0].clone();
    let mut printer = Printer { io, out: Vec::new(), args: &words[1..], next: 0, status: 0 };
    let result = loop {
        let before = printer.next;
        if let Err(stop) = printer.format(&format) {
            break Err(stop);
        }
        if printer.next == before || printer.next >= printer.args.len() {
            break Ok(());
        }
    };
    match result {
        Ok(()) => {
            if printer.next == 0 && !printer.args.is_empty() {
                let first = quote(&bytes_os(&printer.args[0]));
                printer.warn(format!("warning: ignoring excess arguments, starting with {}", first));
            }
            printer.flush();
            Ok(printer.status)
        }
        Err(Stop::Cut) => {
            printer.flush();
            Ok(printer.status)
        }
        Err(Stop::Fatal(message)) => {
            printer.warn(message);
            Ok(1)
        }
    }
}

impl<'a, 'io> Printer<'a, 'io> {
    fn flush(&mut self) {
        let _ = self.io.out(&self.out);
        self.out.clear();
    }

    /// Like gnulib's error(): standard output is flushed before the message.
    fn warn(&mut self, message: String) {
        self.flush();
        let _ = self.io.stdout.flush();
        self.io.error(message);
    }

    fn next_arg(&mut self) -> Option<&'a [u8]> {
        let arg = self.args.get(self.next).map(|a| a.as_slice());
        if arg.is_some() {
            self.next += 1;
        }
        arg
    }

    /// One pass over the format.
    fn format(&mut self, format: &[u8]) -> Result<(), Stop> {
        let mut i = 0;
        while i < format.len() {
            let c = format[i];
            if c == b'\\' {
                i += 1 + escape(&format[i..], false, &mut self.out)?;
                continue;
            }
            if c != b'%' {
                self.out.push(c);
                i += 1;
                continue;
            }
            if format.get(i + 1) == Some(&b'%') {
                self.out.push(b'%');
                i += 2;
                continue;
            }
            // `%b` and `%q` take no flags, width or precision in GNU printf.
            if let Some(&letter) = format.get(i + 1).filter(|c| **c == b'b' || **c == b'q') {
                i += 2;
                self.convert(&Spec { conversion: letter, ..Spec::default() })?;
                continue;
            }
            let directive = match cformat::parse_directive(&format[i + 1..], b"diouxXfFeEgGaAcs") {
                Some(d) => d,
                None => return Err(Stop::Fatal(format!("{}: invalid conversion specification", String::from_utf8_lossy(invalid_spec(&format[i..]))))),
            };
            i += 1 + directive.length;
            let mut spec = directive.spec;
            if directive.width == Amount::Star {
                let width = self.star("field width")?;
                if width < 0 {
                    spec.minus = true;
                }
                spec.width = Some(width.unsigned_abs() as usize);
            }
            if directive.precision == Amount::Star {
                let precision = self.star("precision")?;
                spec.precision = if precision < 0 { None } else { Some(precision as usize) };
            }
            self.convert(&spec)?;
        }
        Ok(())
    }

    /// A width or precision given as `*`.
    fn star(&mut self, what: &str) -> Result<i64, Stop> {
        let arg = self.next_arg().unwrap_or(b"");
        let value = self.integer(arg);
        if value.unsigned_abs() > i32::MAX as u64 {
            return Err(Stop::Fatal(format!("invalid {}: {}", what, quote(&bytes_os(arg)))));
        }
        Ok(value)
    }

    fn convert(&mut self, spec: &Spec) -> Result<(), Stop> {
        let arg = self.next_arg();
        let text = arg.unwrap_or(b"");
        match spec.conversion {
            b'd' | b'i' => {
                let v = self.integer(text);
                self.out.extend_from_slice(&cformat::format_signed(spec, v));
            }
            b'o' | b'u' | b'x' | b'X' => {
                let v = self.unsigned(text);
                self.out.extend_from_slice(&cformat::format_unsigned(spec, v));
            }
            b'c' | b's' => self.out.extend_from_slice(&cformat::format_bytes(spec, text)),
            b'b' => {
                let mut decoded = Vec::new();
                let mut j = 0;
                let mut cut = false;
                while j < text.len() {
                    if text[j] == b'\\' {
                        match escape(&text[j..], true, &mut decoded) {
                            Ok(n) => j += 1 + n,
                            Err(Stop::Cut) => {
                                cut = true;
                                break;
                            }
                            Err(e) => return Err(e),
                        }
                    } else {
                        decoded.push(text[j]);
                        j += 1;
                    }
                }
                let plain = Spec { conversion: b's', ..*spec };
                self.out.extend_from_slice(&cformat::format_bytes(&plain, &decoded));
                if cut {
                    return Err(Stop::Cut);
                }
            }
            b'q' => {
                let plain = Spec { conversion: b's', precision: None, ..*spec };
                self.out.extend_from_slice(&cformat::format_bytes(&plain, &shell_escape(text)));
            }
            _ => {
                let v = self.float(text);
                self.out.extend_from_slice(&cformat::format_float(spec, v));
            }
        }
        Ok(())
    }

    /// GNU's check after strto*: a message and status 1 for what was not a number.
    fn verify(&mut self, text: &[u8], used: usize, overflow: bool) {
        if overflow {
            self.warn(format!("{}: Numerical result out of range", quote(&bytes_os(text))));
            self.status = 1;
        } else if used < text.len() {
            let what = if used == 0 { "expected a numeric value" } else { "value not completely converted" };
            self.warn(format!("{}: {}", quote(&bytes_os(text)), what));
            self.status = 1;
        }
    }

    /// `'c` / `"c`: the code of the character after the quote.
    fn char_constant(&mut self, text: &[u8]) -> Option<u32> {
        if text.len() < 2 || (text[0] != b'\'' && text[0] != b'"') {
            return None;
        }
        let rest = &text[1..];
        let (value, len) = match first_char_str(rest).and_then(|s| s.chars().next()) {
            Some(ch) => (ch as u32, ch.len_utf8()),
            None => (rest[0] as u32, 1),
        };
        if len < rest.len() && std::env::var_os("POSIXLY_CORRECT").is_none() {
            self.warn(format!("warning: {}: character(s) following character constant have been ignored", String::from_utf8_lossy(&rest[len..])));
        }
        Some(value)
    }

    fn integer(&mut self, text: &[u8]) -> i64 {
        if let Some(v) = self.char_constant(text) {
            return v as i64;
        }
        let scanned = cnum::strtoimax(text);
        self.verify(text, scanned.used, scanned.overflow);
        scanned.value
    }

    fn unsigned(&mut self, text: &[u8]) -> u64 {
        if let Some(v) = self.char_constant(text) {
            return v as u64;
        }
        let scanned = cnum::strtoumax(text);
        self.verify(text, scanned.used, scanned.overflow);
        scanned.value
    }

    fn float(&mut self, text: &[u8]) -> f64 {
        if let Some(v) = self.char_constant(text) {
            return v as f64;
        }
        let scanned = cnum::strtod(text);
        self.verify(text, scanned.used, scanned.overflow);
        scanned.value
    }
}

/// The first UTF-8 character of `bytes` as a str, if it starts with a valid one.
fn first_char_str(bytes: &[u8]) -> Option<&str> {
    (1..=bytes.len().min(4)).rev().find_map(|n| std::str::from_utf8(&bytes[..n]).ok())
}

/// The invalid directive as GNU shows it: `%` up to and including the offending byte.
fn invalid_spec(text: &[u8]) -> &[u8] {
    let mut i = 1;
    while i < text.len() && (b"-+ #0'".contains(&text[i])) {
        i += 1;
    }
    let digits_or_star = |i: &mut usize| {
        if text.get(*i) == Some(&b'*') {
            *i += 1;
        } else {
            while *i < text.len() && text[*i].is_ascii_digit() {
                *i += 1;
            }
        }
    };
    digits_or_star(&mut i);
    if text.get(i) == Some(&b'.') {
        i += 1;
        digits_or_star(&mut i);
    }
    while i < text.len() && b"hlLjzt".contains(&text[i]) {
        i += 1;
    }
    &text[..(i + 1).min(text.len())]
}

/// Decodes the escape at `text[0] == '\\'` into `out`; returns the bytes used after the
/// backslash. `octal_0`: `%b`'s form, where `\0` may be followed by three octal digits.
fn escape(text: &[u8], octal_0: bool, out: &mut Vec<u8>) -> Result<usize, Stop> {
    let c = match text.get(1) {
        Some(c) => *c,
        None => {
            out.push(b'\\');
            return Ok(0);
        }
    };
    let simple = match c {
        b'a' => Some(7),
        b'b' => Some(8),
        b'e' => Some(0x1b),
        b'f' => Some(12),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(11),
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return Ok(1);
    }
    match c {
        b'c' => Err(Stop::Cut),
        b'x' => {
            let digits: Vec<u8> = text[2..].iter().take(2).take_while(|d| d.is_ascii_hexdigit()).copied().collect();
            if digits.is_empty() {
                return Err(Stop::Fatal("missing hexadecimal number in escape".to_string()));
            }
            out.push(u8::from_str_radix(std::str::from_utf8(&digits).unwrap_or("0"), 16).unwrap_or(0));
            Ok(1 + digits.len())
        }
        b'0'..=b'7' => {
            let start = if octal_0 && c == b'0' { 2 } else { 1 };
            let digits: Vec<u8> = text[start..].iter().take(3).take_while(|d| (b'0'..=b'7').contains(*d)).copied().collect();
            let value = digits.iter().fold(0u32, |v, d| v * 8 + (d - b'0') as u32);
            out.push(value as u8);
            Ok(start - 1 + digits.len())
        }
        b'u' | b'U' => {
            let count = if c == b'u' { 4 } else { 8 };
            let digits = &text[2..text.len().min(2 + count)];
            if digits.len() < count || !digits.iter().all(|d| d.is_ascii_hexdigit()) {
                return Err(Stop::Fatal("missing hexadecimal number in escape".to_string()));
            }
            let value = u32::from_str_radix(std::str::from_utf8(digits).unwrap_or("0"), 16).unwrap_or(0);
            if (value <= 0x9f && value != 0x24 && value != 0x40 && value != 0x60) || (0xd800..=0xdfff).contains(&value) {
                return Err(Stop::Fatal(format!("invalid universal character name \\{}{:0width$X}", c as char, value, width = count)));
            }
            match char::from_u32(value) {
                Some(ch) => out.extend_from_slice(ch.to_string().as_bytes()),
                None => return Err(Stop::Fatal(format!("invalid universal character name \\{}{:0width$X}", c as char, value, width = count))),
            }
            Ok(1 + count)
        }
        _ => {
            out.push(b'\\');
            out.push(c);
            Ok(1)
        }
    }
}

/// `%q`: gnulib's shell-escape quoting, as GNU printf uses it. Bare when the shell would
/// read the word back unchanged; "…" when its only problem is a single quote; else '…'
/// with `'\''` for quotes and `$'\n'` sections for unprintable bytes.
fn shell_escape(word: &[u8]) -> Vec<u8> {
    let chars = split_chars(word);
    let single = word.len() == 1;
    let bare = !word.is_empty()
        && chars.iter().enumerate().all(|(i, ch)| match ch {
            Piece::Byte(c) => bare_safe(*c, i == 0, single),
            Piece::Char(_) => true,
            Piece::Invalid(_) => false,
        });
    if bare {
        return word.to_vec();
    }
    let (out, quote_seen, compatible, pending) = quote_pass(&chars, single, false);
    if !quote_seen {
        return out;
    }
    if compatible {
        let mut out = vec![b'"'];
        out.extend_from_slice(word);
        out.push(b'"');
        return out;
    }
    // gnulib re-runs the pass; the escape state left by the first run carries over.
    quote_pass(&chars, single, pending).0
}

/// A piece of the word: an ASCII byte, a printable multibyte character, or an
/// unprintable / invalid byte sequence.
enum Piece {
    Byte(u8),
    Char(Vec<u8>),
    Invalid(Vec<u8>),
}

fn split_chars(word: &[u8]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < word.len() {
        let c = word[i];
        if c < 0x80 {
            if c < 0x20 || c == 0x7f {
                out.push(Piece::Invalid(vec![c]));
            } else {
                out.push(Piece::Byte(c));
            }
            i += 1;
            continue;
        }
        match first_char_str(&word[i..]).and_then(|s| s.chars().next()) {
            Some(ch) if !ch.is_control() => {
                out.push(Piece::Char(word[i..i + ch.len_utf8()].to_vec()));
                i += ch.len_utf8();
            }
            Some(ch) => {
                out.push(Piece::Invalid(word[i..i + ch.len_utf8()].to_vec()));
                i += ch.len_utf8();
            }
            None => {
                out.push(Piece::Invalid(vec![c]));
                i += 1;
            }
        }
    }
    out
}

/// Whether an ASCII byte may stay unquoted.
fn bare_safe(c: u8, first: bool, single: bool) -> bool {
    match c {
        b'#' | b'~' => !first,
        b'{' | b'}' => !single,
        b'!' | b'"' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'?' | b'[' | b'\\' | b'^' | b'`' | b'|' | b' ' => false,
        _ => true,
    }
}

/// One quoting pass: (output, saw a quote, every piece fine inside "…", in a $'…' section at the end).
fn quote_pass(chars: &[Piece], single: bool, mut pending: bool) -> (Vec<u8>, bool, bool, bool) {
    let mut out = vec![b'\''];
    let mut quote_seen = false;
    let mut compatible = true;
    for (i, piece) in chars.iter().enumerate() {
        match piece {
            Piece::Invalid(bytes) => {
                compatible = false;
                for &b in bytes {
                    if !pending {
                        out.extend_from_slice(b"'$'");
                        pending = true;
                    }
                    out.push(b'\\');
                    match b {
                        7 => out.push(b'a'),
                        8 => out.push(b'b'),
                        12 => out.push(b'f'),
                        b'\n' => out.push(b'n'),
                        b'\r' => out.push(b'r'),
                        b'\t' => out.push(b't'),
                        11 => out.push(b'v'),
                        0 => out.push(b'0'),
                        _ => out.extend_from_slice(format!("{:03o}", b).as_bytes()),
                    }
                }
            }
            Piece::Byte(b'\'') => {
                quote_seen = true;
                out.extend_from_slice(b"'\\''");
                pending = false;
            }
            Piece::Byte(c) => {
                let ok_in_double = match c {
                    b' ' => true,
                    b'#' | b'~' => i == 0,
                    b'{' | b'}' => single,
                    b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'?' | b'[' | b'\\' | b'^' | b'`' | b'|' => false,
                    _ => true,
                };
                if !ok_in_double {
                    compatible = false;
                }
                if pending {
                    out.extend_from_slice(b"''");
                    pending = false;
                }
                out.push(*c);
            }
            Piece::Char(bytes) => {
                if pending {
                    out.extend_from_slice(b"''");
                    pending = false;
                }
                out.extend_from_slice(bytes);
            }
        }
    }
    out.push(b'\'');
    (out, quote_seen, compatible, pending)
}
