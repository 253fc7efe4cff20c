//! `echo`: GNU coreutils' echo (the program, not bash's builtin): leading words made only of
//! `n`, `e`, `E` are options; `-e` interprets backslash escapes (`\c` ends all output);
//! `--help`/`--version` only as the sole argument; POSIXLY_CORRECT allows options only when
//! the first word is `-n` and always interprets escapes.

use std::ffi::OsString;

use common::args::{os_bytes, Command};
use common::{Io, UError};

const ECHO: Command = Command::compact("echo", "", "Usage: {name} [SHORT-OPTION]... [STRING]...\n  or:  {name} LONG-OPTION\nEcho the STRING(s) to standard output.\n\n  -n             do not output the trailing newline\n  -e             enable interpretation of backslash escapes\n  -E             disable interpretation of backslash escapes (default)\n      --help     display this help and exit\n      --version  output version information and exit\n");

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let words: Vec<&[u8]> = args.iter().skip(1).map(|a| os_bytes(a)).collect();
    let allow_options = !posixly_correct || words.first().map_or(false, |w| *w == b"-n");
    if allow_options && ECHO.sole(&args, io) {
        return Ok(0);
    }
    let mut newline = true;
    let mut escapes = false;
    let mut first = 0;
    if allow_options {
        while first < words.len() {
            let word = words[first];
            if word.len() < 2 || word[0] != b'-' || !word[1..].iter().all(|c| matches!(c, b'n' | b'e' | b'E')) {
                break;
            }
            for c in &word[1..] {
                match c {
                    b'n' => newline = false,
                    b'e' => escapes = true,
                    _ => escapes = false,
                }
            }
            first += 1;
        }
    }
    let mut out = Vec::new();
    for (i, word) in words[first..].iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        if escapes || posixly_correct {
            if !unescape(word, &mut out) {
                let _ = io.out(&out);
                return Ok(0);
            }
        } else {
            out.extend_from_slice(word);
        }
    }
    if newline {
        out.push(b'\n');
    }
    let _ = io.out(&out);
    Ok(0)
}

/// Appends `word` with echo's escapes decoded; false when `\c` ended the output.
fn unescape(word: &[u8], out: &mut Vec<u8>) -> bool {
    let mut i = 0;
    while i < word.len() {
        let c = word[i];
        i += 1;
        if c != b'\\' || i >= word.len() {
            out.push(c);
            continue;
        }
        let e = word[i];
        i += 1;
        let decoded = match e {
            b'a' => 7,
            b'b' => 8,
            b'c' => return false,
            b'e' => 0x1b,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'\\' => b'\\',
            b'x' if i < word.len() && word[i].is_ascii_hexdigit() => {
                let mut value = 0u32;
                let mut n = 0;
                while n < 2 && i < word.len() && word[i].is_ascii_hexdigit() {
                    value = value * 16 + (word[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                value as u8
            }
            b'0'..=b'7' => {
                // `\0NNN` takes up to three digits after the 0; `\1`..`\7` start the number.
                let mut value = if e == b'0' { 0 } else { (e - b'0') as u32 };
                let limit = if e == b'0' { 3 } else { 2 };
                let mut n = 0;
                while n < limit && i < word.len() && (b'0'..=b'7').contains(&word[i]) {
                    value = value * 8 + (word[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                value as u8
            }
            _ => {
                out.push(b'\\');
                e
            }
        };
        out.push(decoded);
    }
    true
}
