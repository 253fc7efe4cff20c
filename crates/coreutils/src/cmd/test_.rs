//! command: test [
//! `test` and `[`: evaluate a conditional expression (status 0 true, 1 false, 2 error).
//! Follows GNU test.c: POSIX's rules by argument count for up to four arguments, then a
//! recursive descent over `!`, `( )`, `-a`, `-o`, unary file/string tests and binary
//! string/integer/file comparisons. `[` requires a final `]`.

use std::ffi::OsString;
use std::path::Path;

use common::args::{bytes_os, os_bytes};
use common::fsext::{self, Meta};
use common::identity::{self, EXECUTE, READ, WRITE};
use common::io::quote;
use common::{Command, Io, UError};

/// A syntax error: its message (status 2).
struct SyntaxError(String);

impl From<SyntaxError> for UError {
    fn from(error: SyntaxError) -> UError {
        UError::new(2, error.0)
    }
}

type Outcome = Result<bool, SyntaxError>;

const HELP: &str = "Usage: test EXPRESSION\n  or:  test\n  or:  [ EXPRESSION ]\n  or:  [ ]\n  or:  [ OPTION\nExit with the status determined by EXPRESSION.\n";

/// Only `[` has options, and only as its sole argument (GNU: `test --help` is an expression,
/// a non-empty string, so true); it has no others, so every other word is the expression's.
const BRACKET: Command = Command::compact("[", "", HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let bracket = io.name == "[" || args.first().map_or(false, |a| os_bytes(a).ends_with(b"["));
    if bracket && BRACKET.sole(&args, io) {
        return Ok(0);
    }
    let mut words: Vec<Vec<u8>> = args.iter().skip(1).map(|a| os_bytes(a).to_vec()).collect();
    if bracket {
        if words.last().map(|w| w.as_slice()) != Some(b"]") {
            return Err(UError::new(2, format!("missing {}", quote(&bytes_os(b"]")))));
        }
        words.pop();
    }
    let mut test = Test { args: words, pos: 0 };
    let n = test.args.len();
    // No expression at all is false, not an error.
    let value = n > 0 && test.posix(n)?;
    if test.pos != test.args.len() {
        return Err(test.error(format!("extra argument {}", quote(&bytes_os(&test.args[test.pos])))).into());
    }
    Ok(if value { 0 } else { 1 })
}

struct Test {
    args: Vec<Vec<u8>>,
    pos: usize,
}

fn is_binary_op(word: &[u8]) -> bool {
    matches!(word, b"=" | b"==" | b"!=" | b"-nt" | b"-ot" | b"-ef" | b"-eq" | b"-ne" | b"-lt" | b"-le" | b"-gt" | b"-ge")
}

fn is_unary_op(word: &[u8]) -> bool {
    word.len() == 2 && word[0] == b'-' && b"bcdefgGhLknOprsStuwxzN".contains(&word[1])
}

impl Test {
    fn error(&self, message: String) -> SyntaxError {
        SyntaxError(message)
    }

    fn arg(&self, i: usize) -> &[u8] {
        self.args.get(i).map(|a| a.as_slice()).unwrap_or(b"")
    }

    /// GNU's `beyond`: an operator without its operand.
    fn beyond(&self) -> SyntaxError {
        let last = self.args.last().cloned().unwrap_or_default();
        self.error(format!("missing argument after {}", quote(&bytes_os(&last))))
    }

    fn advance(&mut self, need_more: bool) -> Result<(), SyntaxError> {
        self.pos += 1;
        if need_more && self.pos >= self.args.len() {
            return Err(self.beyond());
        }
        Ok(())
    }

    fn posix(&mut self, n: usize) -> Outcome {
        match n {
            1 => self.one(),
            2 => self.two(),
            3 => self.three(),
            4 if self.arg(self.pos) == b"!" => {
                self.advance(true)?;
                Ok(!self.three()?)
            }
            4 if self.arg(self.pos) == b"(" && self.arg(self.pos + 3) == b")" => {
                self.advance(false)?;
                let value = self.two()?;
                self.advance(false)?;
                Ok(value)
            }
            _ => self.expr(),
        }
    }

    fn one(&mut self) -> Outcome {
        let value = !self.arg(self.pos).is_empty();
        self.advance(false)?;
        Ok(value)
    }

    fn two(&mut self) -> Outcome {
        let first = self.arg(self.pos).to_vec();
        if first == b"!" {
            self.advance(false)?;
            return Ok(!self.one()?);
        }
        if first.len() == 2 && first[0] == b'-' {
            if is_unary_op(&first) {
                return self.unary();
            }
            return Err(self.error(format!("{}: unary operator expected", quote(&bytes_os(&first)))));
        }
        Err(self.beyond())
    }

    fn three(&mut self) -> Outcome {
        let middle = self.arg(self.pos + 1).to_vec();
        if is_binary_op(&middle) {
            return self.binary(false);
        }
        if self.arg(self.pos) == b"!" {
            self.advance(true)?;
            return Ok(!self.two()?);
        }
        if self.arg(self.pos) == b"(" && self.arg(self.pos + 2) == b")" {
            self.advance(false)?;
            let value = self.one()?;
            self.advance(false)?;
            return Ok(value);
        }
        if middle == b"-a" || middle == b"-o" {
            return self.expr();
        }
        Err(self.error(format!("{}: binary operator expected", quote(&bytes_os(&middle)))))
    }

    fn expr(&mut self) -> Outcome {
        if self.pos >= self.args.len() {
            return Err(self.beyond());
        }
        let mut value = self.and()?;
        while self.pos < self.args.len() && self.arg(self.pos) == b"-o" {
            self.advance(false)?;
            let right = self.and()?;
            value = value || right;
        }
        Ok(value)
    }

    fn and(&mut self) -> Outcome {
        let mut value = self.term()?;
        while self.pos < self.args.len() && self.arg(self.pos) == b"-a" {
            self.advance(false)?;
            let right = self.term()?;
            value = value && right;
        }
        Ok(value)
    }

    fn term(&mut self) -> Outcome {
        if self.pos >= self.args.len() {
            return Err(self.beyond());
        }
        let mut invert = false;
        while self.pos < self.args.len() && self.arg(self.pos) == b"!" {
            self.advance(true)?;
            invert = !invert;
        }
        let remaining = self.args.len() - self.pos;
        let word = self.arg(self.pos).to_vec();
        let value = if word == b"(" {
            self.advance(true)?;
            let mut n = 1;
            while self.pos + n < self.args.len() && self.arg(self.pos + n) != b")" {
                if n == 4 {
                    n = self.args.len() - self.pos;
                    break;
                }
                n += 1;
            }
            let value = self.posix(n)?;
            if self.pos >= self.args.len() {
                return Err(self.error(format!("{} expected", quote(&bytes_os(b")")))));
            }
            if self.arg(self.pos) != b")" {
                return Err(self.error(format!("{} expected, found {}", quote(&bytes_os(b")")), quote(&bytes_os(self.arg(self.pos))))));
            }
            self.advance(false)?;
            value
        } else if remaining >= 4 && word == b"-l" && is_binary_op(self.arg(self.pos + 2)) {
            self.binary(true)?
        } else if remaining >= 3 && is_binary_op(self.arg(self.pos + 1)) {
            self.binary(false)?
        } else if word.len() == 2 && word[0] == b'-' {
            if !is_unary_op(&word) {
                return Err(self.error(format!("{}: unary operator expected", quote(&bytes_os(&word)))));
            }
            self.unary()?
        } else {
            self.advance(false)?;
            !word.is_empty()
        };
        Ok(invert ^ value)
    }

    /// `A OP B` at pos; with `length_left`, A is `-l STRING` (its length).
    fn binary(&mut self, length_left: bool) -> Outcome {
        if length_left {
            self.advance(false)?;
        }
        let left = self.arg(self.pos).to_vec();
        let op = self.arg(self.pos + 1).to_vec();
        let right = self.arg(self.pos + 2).to_vec();
        self.pos += 3;
        let left_number = if length_left { Some(left.len().to_string().into_bytes()) } else { None };
        match op.as_slice() {
            b"=" | b"==" => Ok(left == right),
            b"!=" => Ok(left != right),
            b"-nt" | b"-ot" => {
                let (a, b) = (mtime(&left), mtime(&right));
                Ok(match (a, b, op.as_slice()) {
                    (Some(a), Some(b), b"-nt") => a > b,
                    (Some(a), Some(b), _) => a < b,
                    (Some(_), None, b"-nt") => true,
                    (None, Some(_), b"-ot") => true,
                    _ => false,
                })
            }
            b"-ef" => {
                let a = stat(&left, true);
                let b = stat(&right, true);
                Ok(match (a, b) {
                    (Some(a), Some(b)) => a.dev == b.dev && a.ino == b.ino,
                    _ => false,
                })
            }
            _ => {
                let l = match &left_number {
                    Some(n) => integer(n).ok_or_else(|| self.invalid_integer(n))?,
                    None => integer(&left).ok_or_else(|| self.invalid_integer(&left))?,
                };
                // `X -eq -l STRING` compares with the string's length.
                let r = if right == b"-l" && self.pos < self.args.len() {
                    let length = self.arg(self.pos).len().to_string().into_bytes();
                    self.pos += 1;
                    integer(&length).ok_or_else(|| self.invalid_integer(&length))?
                } else {
                    integer(&right).ok_or_else(|| self.invalid_integer(&right))?
                };
                let ordering = compare_integers(&l, &r);
                use std::cmp::Ordering::*;
                Ok(match op.as_slice() {
                    b"-eq" => ordering == Equal,
                    b"-ne" => ordering != Equal,
                    b"-lt" => ordering == Less,
                    b"-le" => ordering != Greater,
                    b"-gt" => ordering == Greater,
                    _ => ordering != Less,
                })
            }
        }
    }

    fn invalid_integer(&self, text: &[u8]) -> SyntaxError {
        self.error(format!("invalid integer {}", quote(&bytes_os(text))))
    }

    fn unary(&mut self) -> Outcome {
        let op = self.arg(self.pos)[1];
        self.advance(true)?;
        let operand = self.arg(self.pos).to_vec();
        self.advance(false)?;
        Ok(match op {
            b'z' => operand.is_empty(),
            b'n' => !operand.is_empty(),
            b't' => integer(&operand).map_or(false, |n| is_tty(&n)),
            b'h' | b'L' => stat(&operand, false).map_or(false, |m| m.is_symlink()),
            _ => {
                let meta = match stat(&operand, true) {
                    Some(m) => m,
                    None => return Ok(false),
                };
                let kind = meta.file_type();
                match op {
                    b'e' => true,
                    b'f' => kind == fsext::S_IFREG,
                    b'd' => kind == fsext::S_IFDIR,
                    b'b' => kind == fsext::S_IFBLK,
                    b'c' => kind == fsext::S_IFCHR,
                    b'p' => kind == fsext::S_IFIFO,
                    b'S' => kind == fsext::S_IFSOCK,
                    b's' => meta.size > 0,
                    b'g' => meta.mode & 0o2000 != 0,
                    b'u' => meta.mode & 0o4000 != 0,
                    b'k' => meta.mode & 0o1000 != 0,
                    b'O' => meta.uid == identity::current().euid,
                    b'G' => meta.gid == identity::current().egid,
                    b'N' => meta.mtime_ns > meta.atime_ns,
                    b'r' => identity::can_access(&meta, &identity::current(), READ),
                    b'w' => identity::can_access(&meta, &identity::current(), WRITE),
                    _ => identity::can_access(&meta, &identity::current(), EXECUTE),
                }
            }
        })
    }
}

fn stat(path: &[u8], follow: bool) -> Option<Meta> {
    if path.is_empty() {
        return None;
    }
    fsext::metadata(Path::new(&bytes_os(path)), follow).ok()
}

fn mtime(path: &[u8]) -> Option<i128> {
    stat(path, true).map(|m| m.mtime_ns)
}

/// GNU's integer syntax: blanks, an optional sign, digits, blanks. The value is kept as
/// (negative, digits without leading zeros) so any length compares exactly.
fn integer(text: &[u8]) -> Option<(bool, Vec<u8>)> {
    let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let start = text.iter().position(|c| !is_space(c))?;
    let end = text.iter().rposition(|c| !is_space(c)).map_or(0, |e| e + 1);
    let mut body = &text[start..end];
    let mut negative = false;
    if let Some((&sign, rest)) = body.split_first() {
        if sign == b'-' || sign == b'+' {
            negative = sign == b'-';
            body = rest;
        }
    }
    if body.is_empty() || !body.iter().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let first_nonzero = body.iter().position(|c| *c != b'0').unwrap_or(body.len());
    let digits = body[first_nonzero..].to_vec();
    Some((negative && !digits.is_empty(), digits))
}

fn compare_integers(a: &(bool, Vec<u8>), b: &(bool, Vec<u8>)) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let magnitude = a.1.len().cmp(&b.1.len()).then_with(|| a.1.cmp(&b.1));
    match (a.0, b.0) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    }
}

/// Whether descriptor `n` is a terminal (its /proc/self/fd link names a tty device).
fn is_tty(n: &(bool, Vec<u8>)) -> bool {
    if n.0 || n.1.len() > 4 {
        return false;
    }
    let fd = String::from_utf8_lossy(&n.1).into_owned();
    let fd = if fd.is_empty() { "0".to_string() } else { fd };
    match std::fs::read_link(format!("/proc/self/fd/{}", fd)) {
        Ok(target) => {
            let t = target.to_string_lossy();
            t.starts_with("/dev/pts/") || t.starts_with("/dev/tty") || t == "/dev/console"
        }
        Err(_) => false,
    }
}
