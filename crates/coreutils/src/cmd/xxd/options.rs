//! xxd's own option syntax: each word is an option recognised by its first two characters
//! (`-ps`, `-cols 8`, `-c8`), as vim's xxd reads them, and the usage text it prints.

use common::Io;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    Plain,
    Include,
    Bits,
    LittleEndian,
}

pub struct Options {
    pub mode: Mode,
    pub autoskip: bool,
    pub upper: bool,
    pub capitalize: bool,
    pub decimal: bool,
    pub revert: bool,
    pub cols: i64,
    pub group: i64,
    pub seek: i64,
    pub relative_seek: bool,
    pub negative_seek: bool,
    pub seek_given: bool,
    pub length: i64,
    pub display_offset: i64,
    pub name: Option<Vec<u8>>,
}

/// C's strtol with base 0 (decimal, 0x hex, 0 octal), ignoring trailing junk.
pub fn strtol(text: &[u8]) -> i64 {
    let s = String::from_utf8_lossy(text);
    let s = s.trim_start();
    let (negative, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (radix, digits) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, h)
    } else if s.starts_with('0') {
        (8, s)
    } else {
        (10, s)
    };
    let end = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
    let value = i64::from_str_radix(&digits[..end], radix).unwrap_or(0);
    if negative {
        -value
    } else {
        value
    }
}

pub const USAGE: &str = "Usage:
       xxd [options] [infile [outfile]]
    or
       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]
Options:
    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.
    -b          binary digit dump (incompatible with -ps,-i,-r). Default hex.
    -C          capitalize variable names in C include file style (-i).
    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).
    -E          show characters in EBCDIC. Default ASCII.
    -e          little-endian dump (incompatible with -ps,-i,-r).
    -g bytes    number of octets per group in normal output. Default 2 (-e: 4).
    -h          print this summary.
    -i          output in C include file style.
    -l len      stop after <len> octets.
    -n name     set the variable name used in C include output (-i).
    -o off      add <off> to the displayed file position.
    -ps         output in postscript plain hexdump style.
    -r          reverse operation: convert (or patch) hexdump into binary.
    -r -s off   revert with <off> added to file positions found in hexdump.
    -d          show offset in decimal instead of hex.
    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile offset.
    -u          use upper case hex letters.
    -v          show version: \"xxd 2022-01-14 by Juergen Weigert et al.\".
";

/// xxd's own option syntax (`-c8`, `-cols 8`, `--cols`): the options, where the file operands
/// start, and whether -c was given. Err is the status to exit with (usage or version shown).
pub fn options(words: &[&[u8]], io: &mut Io) -> Result<(Options, usize, bool), i32> {
    let mut o = Options { mode: Mode::Normal, autoskip: false, upper: false, capitalize: false, decimal: false, revert: false, cols: 0, group: -1, seek: 0, relative_seek: false, negative_seek: false, seek_given: false, length: -1, display_offset: 0, name: None };
    let mut i = 0;
    let mut cols_given = false;
    let usage = |io: &mut Io| {
        let _ = io.stderr.write_all(USAGE.as_bytes());
        1
    };
    while i < words.len() {
        let word = words[i];
        // `--foo` means `-foo`.
        let w: &[u8] = if word.starts_with(b"--") && word.len() > 2 { &word[1..] } else { word };
        if w == b"--" {
            i += 1;
            break;
        }
        if w.len() < 2 || w[0] != b'-' {
            break;
        }
        // The value of an option taking one: attached (unless the rest spells the long name) or the next word.
        let value = |long_rest: &[u8], i: &mut usize| -> Option<Vec<u8>> {
            if w.len() > 2 && !long_rest.starts_with(&w[2..]) {
                Some(w[2..].to_vec())
            } else if *i + 1 < words.len() {
                *i += 1;
                Some(words[*i].to_vec())
            } else {
                None
            }
        };
        match w[1] {
            b'a' => o.autoskip = !o.autoskip,
            b'b' => o.mode = Mode::Bits,
            b'e' => o.mode = Mode::LittleEndian,
            b'u' => o.upper = true,
            b'p' => o.mode = Mode::Plain,
            b'i' => o.mode = Mode::Include,
            b'C' => o.capitalize = true,
            b'd' => o.decimal = true,
            b'r' => o.revert = true,
            b'E' => {
                io.error("option not supported in the sandbox: -E");
                return Err(1);
            }
            b'v' => {
                let _ = io.stderr.write_all(b"xxd 2022-01-14 by Juergen Weigert et al.\n");
                return Err(0);
            }
            b'h' => return Err(usage(io)),
            b'c' => match value(b"ols", &mut i) {
                Some(v) => {
                    o.cols = strtol(&v);
                    cols_given = true;
                }
                None => return Err(usage(io)),
            },
            b'g' => match value(b"roupsize", &mut i) {
                Some(v) => o.group = strtol(&v),
                None => return Err(usage(io)),
            },
            b'o' => match value(b"ffset", &mut i) {
                Some(v) => o.display_offset = strtol(&v),
                None => return Err(usage(io)),
            },
            b'l' => match value(b"en", &mut i) {
                Some(v) => o.length = strtol(&v),
                None => return Err(usage(io)),
            },
            b'n' => match value(b"ame", &mut i) {
                Some(v) => o.name = Some(v),
                None => return Err(usage(io)),
            },
            b's' => match value(b"eek", &mut i) {
                Some(v) => {
                    let mut rest: &[u8] = &v;
                    o.relative_seek = rest.first() == Some(&b'+');
                    if o.relative_seek {
                        rest = &rest[1..];
                    }
                    o.negative_seek = rest.first() == Some(&b'-');
                    if o.negative_seek {
                        rest = &rest[1..];
                    }
                    o.seek = strtol(rest);
                    o.seek_given = true;
                }
                None => return Err(usage(io)),
            },
            _ => return Err(usage(io)),
        }
        i += 1;
    }
    Ok((o, i, cols_given))
}
