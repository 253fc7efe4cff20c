//! `wc`: newline, word, character, byte and maximum-line-width counts, with GNU's column
//! width rule (digits of the regular files' total size, at least 7 when an input is not a
//! regular file, 1 for a single count of a single file). Words and widths follow GNU 9.1 in
//! a UTF-8 locale: a word is a run of printable non-space characters, non-printable ones
//! neither start nor end a word, invalid bytes are skipped. `-l`/`-c` alone count with
//! memchr only.

use std::ffi::OsString;
use std::io::{self, BufRead};

use common::args::{os_bytes, Command};
use common::io::{for_each_block, open_input, quote};
use common::{fsext, strerror, Io, UError};
use unicode_width::UnicodeWidthChar;

const SPEC: &str = "c,bytes m,chars l,lines files0-from: L,max-line-length w,words";

const WC: Command = Command::compact("wc", SPEC, HELP);

const HELP: &str = "Usage: wc [OPTION]... [FILE]...
  or:  wc [OPTION]... --files0-from=F
Print newline, word, and byte counts for each FILE, and a total line if
more than one FILE is specified.  A word is a non-zero-length sequence of
printable characters delimited by white space.

With no FILE, or when FILE is -, read standard input.

The options below may be used to select which counts are printed, always in
the following order: newline, word, character, byte, maximum line length.
  -c, --bytes            print the byte counts
  -m, --chars            print the character counts
  -l, --lines            print the newline counts
      --files0-from=F    read input from the files specified by
                           NUL-terminated names in file F;
                           If F is - then read names from standard input
  -L, --max-line-length  print the maximum display width
  -w, --words            print the word counts
{standard}";

#[derive(Default, Clone, Copy)]
struct Counts {
    lines: u64,
    words: u64,
    chars: u64,
    bytes: u64,
    max_width: u64,
}

#[derive(Default, Clone, Copy)]
struct Want {
    lines: bool,
    words: bool,
    chars: bool,
    bytes: bool,
    max_width: bool,
}

impl Want {
    fn how_many(&self) -> usize {
        [self.lines, self.words, self.chars, self.bytes, self.max_width].iter().filter(|b| **b).count()
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = WC.seen(&args, io)?;
    let [bytes, chars, lines, words, max_width] = ["c", "m", "l", "w", "L"].map(|id| seen.flag(id));
    let mut want = Want { bytes, chars, lines, words, max_width };
    let files0 = seen.value("files0-from").cloned();
    let mut files = seen.operands;
    if want.how_many() == 0 {
        want = Want { lines: true, words: true, bytes: true, ..Want::default() };
    }
    let mut status = 0;
    let mut named = true;
    if let Some(list) = files0 {
        if let Some(extra) = files.first() {
            return Err(UError::usage(1, format!("extra operand {}\nfile operands cannot be combined with --files0-from", quote(extra))));
        }
        match common::io::read_names0(&list, &mut *io.stdin) {
            Ok(names) => files = names,
            Err(e) => {
                return Err(UError::new(1, format!("cannot open {} for reading: {}", quote(&list), strerror(&e))));
            }
        }
    } else if files.is_empty() {
        files.push(OsString::from("-"));
        named = false;
    }
    let width = column_width(&files, want);
    let mut total = Counts::default();
    for file in &files {
        let name = if named { Some(file.to_string_lossy().into_owned()) } else { None };
        if os_bytes(file).is_empty() {
            io.error("invalid zero-length file name");
            status = 1;
            continue;
        }
        let counts = match count_file(file, want, io) {
            Ok(c) => c,
            Err((partial, e)) => {
                io.error(format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                status = 1;
                match partial {
                    Some(c) => c,
                    None => continue,
                }
            }
        };
        total.lines += counts.lines;
        total.words += counts.words;
        total.chars += counts.chars;
        total.bytes += counts.bytes;
        total.max_width = total.max_width.max(counts.max_width);
        if let Err(e) = print(io, &counts, want, width, name.as_deref()) {
            return Err(UError::write(&e));
        }
    }
    if files.len() > 1 {
        if let Err(e) = print(io, &total, want, width, Some("total")) {
            return Err(UError::write(&e));
        }
    }
    Ok(status)
}

/// GNU's compute_number_width.
fn column_width(files: &[OsString], want: Want) -> usize {
    if files.len() == 1 && want.how_many() == 1 {
        return 1;
    }
    // (is a regular file, size) of an operand; `-` is whatever standard input is.
    let stat = |f: &OsString| -> Option<(bool, u64)> {
        if os_bytes(f) == b"-" {
            return stdin_stat();
        }
        fsext::metadata(f.as_ref(), true).ok().map(|m| (m.is_file(), m.size))
    };
    let mut minimum = 1;
    let mut regular_total: u64 = 0;
    for (i, f) in files.iter().enumerate() {
        match stat(f) {
            Some((true, size)) => regular_total += size,
            Some(_) => minimum = 7,
            None if i == 0 => return 1,
            None => {}
        }
    }
    let mut width = 1;
    while regular_total >= 10 {
        regular_total /= 10;
        width += 1;
    }
    width.max(minimum)
}

/// fstat of descriptor 0 (in the sandbox through the `airlock` import; natively through
/// /dev/stdin, which names it).
fn stdin_stat() -> Option<(bool, u64)> {
    #[cfg(target_os = "wasi")]
    {
        let s = airlock_sys::fs::fd_stat_ext(0).ok()?;
        Some((s.mode & fsext::S_IFMT == fsext::S_IFREG, s.size))
    }
    #[cfg(not(target_os = "wasi"))]
    {
        fsext::metadata("/dev/stdin".as_ref(), true).ok().map(|m| (m.is_file(), m.size))
    }
}

fn print(io: &mut Io, c: &Counts, want: Want, width: usize, name: Option<&str>) -> io::Result<()> {
    let mut line = String::new();
    let fields = [(want.lines, c.lines), (want.words, c.words), (want.chars, c.chars), (want.bytes, c.bytes), (want.max_width, c.max_width)];
    for (shown, value) in fields.iter() {
        if *shown {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&format!("{:>1$}", value, width));
        }
    }
    if let Some(n) = name {
        line.push(' ');
        line.push_str(n);
    }
    line.push('\n');
    io.stdout.write_all(line.as_bytes())
}

type CountError = (Option<Counts>, io::Error);

fn count_file(file: &OsString, want: Want, io: &mut Io) -> Result<Counts, CountError> {
    let mut input = match open_input(file, &mut *io.stdin) {
        Ok(i) => i,
        Err(e) => {
            // GNU opens directories fine and fails reading them, printing zero counts.
            let is_dir = std::fs::metadata(file).map(|m| m.is_dir()).unwrap_or(false);
            return Err((if is_dir { Some(Counts::default()) } else { None }, e));
        }
    };
    let reader = input.reader();
    let simple = !(want.words || want.chars || want.max_width);
    let mut counts = Counts::default();
    let result = if simple { count_simple(reader, want.lines, &mut counts) } else { Scanner::default().scan(reader, &mut counts) };
    match result {
        Ok(()) => Ok(counts),
        Err(e) => Err((Some(counts), e)),
    }
}

fn count_simple(reader: &mut dyn BufRead, lines: bool, counts: &mut Counts) -> io::Result<()> {
    for_each_block(reader, |buf| {
        if lines {
            counts.lines += memchr::memchr_iter(b'\n', buf).count() as u64;
        }
        counts.bytes += buf.len() as u64;
    })
}

/// The character-level counter; `carry` holds a UTF-8 sequence split across two reads.
#[derive(Default)]
struct Scanner {
    in_word: bool,
    line_width: u64,
    carry: Vec<u8>,
}

impl Scanner {
    fn scan(mut self, reader: &mut dyn BufRead, counts: &mut Counts) -> io::Result<()> {
        let mut joined = Vec::new();
        for_each_block(reader, |buf| {
            counts.bytes += buf.len() as u64;
            if self.carry.is_empty() {
                self.block(buf, false, counts);
            } else {
                joined.clear();
                joined.append(&mut self.carry);
                joined.extend_from_slice(buf);
                self.block(&joined, false, counts);
            }
        })?;
        let rest = std::mem::take(&mut self.carry);
        self.block(&rest, true, counts);
        counts.words += self.in_word as u64;
        counts.max_width = counts.max_width.max(self.line_width);
        Ok(())
    }

    fn block(&mut self, data: &[u8], at_end: bool, c: &mut Counts) {
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            if b < 0x80 {
                i += 1;
                c.chars += 1;
                match b {
                    b'\n' => {
                        c.lines += 1;
                        self.end_line(c);
                    }
                    b'\r' | 0x0c => self.end_line(c),
                    b'\t' => {
                        self.line_width += 8 - self.line_width % 8;
                        self.end_word(c);
                    }
                    b' ' => {
                        self.line_width += 1;
                        self.end_word(c);
                    }
                    0x0b => self.end_word(c),
                    0x21..=0x7e => {
                        self.line_width += 1;
                        self.in_word = true;
                    }
                    _ => {}
                }
                continue;
            }
            match decode(&data[i..]) {
                Decoded::Char(ch, len) => {
                    i += len;
                    c.chars += 1;
                    self.wide_char(ch, c);
                }
                Decoded::Invalid => i += 1,
                Decoded::Incomplete => {
                    if at_end {
                        i += 1;
                    } else {
                        self.carry.extend_from_slice(&data[i..]);
                        return;
                    }
                }
            }
        }
    }

    fn wide_char(&mut self, ch: char, c: &mut Counts) {
        let code = ch as u32;
        let space = matches!(code, 0x1680 | 0x2000..=0x2006 | 0x2008..=0x200a | 0x2028 | 0x2029 | 0x205f | 0x3000);
        let nbsp = matches!(code, 0xa0 | 0x2007 | 0x202f | 0x2060);
        if let Some(w) = UnicodeWidthChar::width(ch) {
            if (0x80..0xa0).contains(&code) {
                return;
            }
            self.line_width += w as u64;
            if space || nbsp {
                self.end_word(c);
            } else {
                self.in_word = true;
            }
        }
    }

    fn end_word(&mut self, c: &mut Counts) {
        c.words += self.in_word as u64;
        self.in_word = false;
    }

    fn end_line(&mut self, c: &mut Counts) {
        c.max_width = c.max_width.max(self.line_width);
        self.line_width = 0;
        self.end_word(c);
    }
}

enum Decoded {
    Char(char, usize),
    Invalid,
    /// A valid prefix cut off by the end of the buffer.
    Incomplete,
}

/// Decodes one UTF-8 sequence at the start of `s` (whose first byte is >= 0x80).
fn decode(s: &[u8]) -> Decoded {
    let len = match s[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Decoded::Invalid,
    };
    let avail = s.len().min(len);
    match std::str::from_utf8(&s[..avail]) {
        Ok(text) => match text.chars().next() {
            Some(ch) => Decoded::Char(ch, len),
            None => Decoded::Invalid,
        },
        Err(e) => {
            if e.error_len().is_none() && avail < len {
                Decoded::Incomplete
            } else {
                Decoded::Invalid
            }
        }
    }
}
