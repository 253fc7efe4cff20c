//! `expr EXPRESSION`: GNU expr. Operators by increasing precedence: `|`, `&`, comparisons
//! (`< <= = == != >= >`, numeric when both sides are integers), `+ -`, `* / %`, `:` (an
//! anchored BRE match: the \(group\) or the count of characters matched), then `match`,
//! `substr`, `index`, `length`, `+ TOKEN` and parentheses. Integers have arbitrary size.
//! Status: 0 when the result is neither empty nor 0, 1 when it is, 2 for errors.

use std::cmp::Ordering;
use std::ffi::OsString;

use num_bigint::BigInt;
use num_traits::{Signed, Zero};

use common::args::{bytes_os, os_bytes};
use common::io::quote;
use common::regex::{Flags, Flavor, Regex};
use common::{Command, Io, UError};

const INVALID: i32 = 2;

const EXPR: Command = Command { usage_status: INVALID, ..Command::compact("expr", "", HELP).operands_between(1, usize::MAX) };

#[derive(Clone, Debug)]
enum Value {
    Int(BigInt),
    Str(Vec<u8>),
}

impl Value {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Value::Int(n) => n.to_string().into_bytes(),
            Value::Str(s) => s.clone(),
        }
    }

    /// The integer this value is or spells, if any.
    fn integer(&self) -> Option<BigInt> {
        match self {
            Value::Int(n) => Some(n.clone()),
            Value::Str(s) if looks_like_integer(s) => std::str::from_utf8(s).ok()?.parse().ok(),
            Value::Str(_) => None,
        }
    }

    /// GNU's null(): empty, or an integer zero (also spelled `00` or `-0`).
    fn is_null(&self) -> bool {
        match self {
            Value::Int(n) => n.is_zero(),
            Value::Str(s) => {
                if s.is_empty() {
                    return true;
                }
                let digits = if s[0] == b'-' { &s[1..] } else { &s[..] };
                !digits.is_empty() && digits.iter().all(|c| *c == b'0')
            }
        }
    }
}

fn looks_like_integer(s: &[u8]) -> bool {
    let digits = if s.first() == Some(&b'-') { &s[1..] } else { s };
    !digits.is_empty() && digits.iter().all(|c| c.is_ascii_digit())
}

struct Parser {
    args: Vec<Vec<u8>>,
    pos: usize,
}

type Outcome = Result<Value, String>;

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let words: Vec<Vec<u8>> = EXPR.words(&args, io)?.iter().map(|a| os_bytes(a).to_vec()).collect();
    let mut parser = Parser { args: words, pos: 0 };
    let result = parser.or(true).and_then(|value| {
        if parser.pos < parser.args.len() {
            Err(format!("syntax error: unexpected argument {}", quote(&bytes_os(&parser.args[parser.pos]))))
        } else {
            Ok(value)
        }
    });
    match result {
        Ok(value) => {
            let mut line = value.bytes();
            line.push(b'\n');
            let _ = io.out(&line);
            Ok(if value.is_null() { 1 } else { 0 })
        }
        Err(message) => Err(UError::new(INVALID, message)),
    }
}

fn int(n: i64) -> Value {
    Value::Int(BigInt::from(n))
}

impl Parser {
    fn peek(&self) -> Option<&[u8]> {
        self.args.get(self.pos).map(|a| a.as_slice())
    }

    /// Consumes the next word if it is `word`.
    fn next_is(&mut self, word: &[u8]) -> bool {
        if self.peek() == Some(word) {
            self.pos += 1;
            return true;
        }
        false
    }

    fn missing_after(&self) -> String {
        let last = if self.pos > 0 { self.args[self.pos - 1].clone() } else { Vec::new() };
        format!("syntax error: missing argument after {}", quote(&bytes_os(&last)))
    }

    fn or(&mut self, evaluate: bool) -> Outcome {
        let mut left = self.and(evaluate)?;
        while self.next_is(b"|") {
            let right = self.and(evaluate && left.is_null())?;
            if left.is_null() {
                left = if right.is_null() { int(0) } else { right };
            }
        }
        Ok(left)
    }

    fn and(&mut self, evaluate: bool) -> Outcome {
        let mut left = self.comparison(evaluate)?;
        while self.next_is(b"&") {
            let right = self.comparison(evaluate && !left.is_null())?;
            if left.is_null() || right.is_null() {
                left = int(0);
            }
        }
        Ok(left)
    }

    fn comparison(&mut self, evaluate: bool) -> Outcome {
        let mut left = self.additive(evaluate)?;
        loop {
            let op = match self.peek() {
                Some(w) if matches!(w, b"<" | b"<=" | b"=" | b"==" | b"!=" | b">=" | b">") => w.to_vec(),
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.additive(evaluate)?;
            if !evaluate {
                continue;
            }
            let ordering = match (left.integer(), right.integer()) {
                (Some(a), Some(b)) if is_int_like(&left) && is_int_like(&right) => a.cmp(&b),
                _ => left.bytes().cmp(&right.bytes()),
            };
            let truth = match op.as_slice() {
                b"<" => ordering == Ordering::Less,
                b"<=" => ordering != Ordering::Greater,
                b"=" | b"==" => ordering == Ordering::Equal,
                b"!=" => ordering != Ordering::Equal,
                b">=" => ordering != Ordering::Less,
                _ => ordering == Ordering::Greater,
            };
            left = int(truth as i64);
        }
    }

    fn additive(&mut self, evaluate: bool) -> Outcome {
        let mut left = self.multiplicative(evaluate)?;
        loop {
            let op = match self.peek() {
                Some(b"+") => b'+',
                Some(b"-") => b'-',
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.multiplicative(evaluate)?;
            if evaluate {
                let (a, b) = integers(&left, &right)?;
                left = Value::Int(if op == b'+' { a + b } else { a - b });
            }
        }
    }

    fn multiplicative(&mut self, evaluate: bool) -> Outcome {
        let mut left = self.matching(evaluate)?;
        loop {
            let op = match self.peek() {
                Some(b"*") => b'*',
                Some(b"/") => b'/',
                Some(b"%") => b'%',
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.matching(evaluate)?;
            if evaluate {
                let (a, b) = integers(&left, &right)?;
                if op != b'*' && b.is_zero() {
                    return Err("division by zero".to_string());
                }
                // BigInt's / and % truncate toward zero, like mpz_tdiv_q/r.
                left = Value::Int(match op {
                    b'*' => a * b,
                    b'/' => a / b,
                    _ => a % b,
                });
            }
        }
    }

    fn matching(&mut self, evaluate: bool) -> Outcome {
        let mut left = self.unary(evaluate)?;
        while self.next_is(b":") {
            let right = self.unary(evaluate)?;
            if evaluate {
                left = regex_match(&left.bytes(), &right.bytes())?;
            }
        }
        Ok(left)
    }

    fn unary(&mut self, evaluate: bool) -> Outcome {
        if self.pos >= self.args.len() {
            return Err(self.missing_after());
        }
        if self.next_is(b"+") {
            return match self.args.get(self.pos) {
                Some(w) => {
                    self.pos += 1;
                    Ok(Value::Str(w.clone()))
                }
                None => Err(self.missing_after()),
            };
        }
        if self.next_is(b"length") {
            let s = self.unary(evaluate)?;
            return Ok(int(char_count(&s.bytes()) as i64));
        }
        if self.next_is(b"match") {
            let s = self.unary(evaluate)?;
            let re = self.unary(evaluate)?;
            return if evaluate { regex_match(&s.bytes(), &re.bytes()) } else { Ok(int(0)) };
        }
        if self.next_is(b"index") {
            let s = self.unary(evaluate)?.bytes();
            let chars = self.unary(evaluate)?.bytes();
            let wanted = split_chars(&chars);
            let position = split_chars(&s).iter().position(|c| wanted.contains(c)).map_or(0, |p| p + 1);
            return Ok(int(position as i64));
        }
        if self.next_is(b"substr") {
            let s = self.unary(evaluate)?.bytes();
            let pos = self.unary(evaluate)?;
            let len = self.unary(evaluate)?;
            let (pos, len) = match (pos.integer(), len.integer()) {
                (Some(p), Some(l)) => (size(&p), size(&l)),
                _ => return Ok(Value::Str(Vec::new())),
            };
            let chars = split_chars(&s);
            if pos == 0 || len == 0 || pos > chars.len() as u128 || len == u128::MAX {
                return Ok(Value::Str(Vec::new()));
            }
            let start = pos as usize - 1;
            let end = (start as u128 + len).min(chars.len() as u128) as usize;
            return Ok(Value::Str(chars[start..end].concat()));
        }
        self.primary(evaluate)
    }

    fn primary(&mut self, evaluate: bool) -> Outcome {
        if self.pos >= self.args.len() {
            return Err(self.missing_after());
        }
        if self.next_is(b"(") {
            if self.pos >= self.args.len() {
                return Err(self.missing_after());
            }
            let value = self.or(evaluate)?;
            if self.pos >= self.args.len() {
                return Err(format!("syntax error: expecting ')' after {}", quote(&bytes_os(&self.args[self.pos - 1]))));
            }
            if !self.next_is(b")") {
                return Err(format!("syntax error: expecting ')' instead of {}", quote(&bytes_os(&self.args[self.pos]))));
            }
            return Ok(value);
        }
        if self.peek() == Some(b")") {
            return Err("syntax error: unexpected ')'".to_string());
        }
        let word = self.args[self.pos].clone();
        self.pos += 1;
        Ok(Value::Str(word))
    }
}

/// Whether a value is an integer for comparisons (an Int, or a string spelling one).
fn is_int_like(v: &Value) -> bool {
    match v {
        Value::Int(_) => true,
        Value::Str(s) => looks_like_integer(s),
    }
}

fn integers(a: &Value, b: &Value) -> Result<(BigInt, BigInt), String> {
    match (a.integer(), b.integer()) {
        (Some(x), Some(y)) => Ok((x, y)),
        _ => Err("non-integer argument".to_string()),
    }
}

/// A position or length: negative is 0, huge is the maximum.
fn size(n: &BigInt) -> u128 {
    if n.is_negative() {
        return 0;
    }
    n.to_string().parse::<u128>().unwrap_or(u128::MAX)
}

/// The characters of `s` (UTF-8 sequences; invalid bytes one by one).
fn split_chars(s: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let len = utf8_len(&s[i..]);
        out.push(&s[i..i + len]);
        i += len;
    }
    out
}

fn utf8_len(s: &[u8]) -> usize {
    let want = match s[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 1,
    };
    if want > 1 && s.len() >= want && std::str::from_utf8(&s[..want]).is_ok() {
        want
    } else {
        1
    }
}

fn char_count(s: &[u8]) -> usize {
    split_chars(s).len()
}

/// `STRING : REGEX`: anchored at the start; the first group's text when the pattern has
/// groups, else the number of characters matched.
fn regex_match(text: &[u8], pattern: &[u8]) -> Outcome {
    let re = Regex::new(pattern, Flavor::Basic, Flags::default()).map_err(|e| e.to_string())?;
    let mut caps = re.new_captures();
    let matched = re.captures_at(text, 0, &mut caps) && caps.get(0).map_or(false, |(s, _)| s == 0);
    if re.groups() > 0 {
        let group = if matched { caps.get(1).map(|(s, e)| text[s..e].to_vec()).unwrap_or_default() } else { Vec::new() };
        return Ok(Value::Str(group));
    }
    let count = if matched { caps.get(0).map_or(0, |(s, e)| char_count(&text[s..e])) } else { 0 };
    Ok(int(count as i64))
}

const HELP: &str = "Usage: {name} EXPRESSION\n  or:  {name} OPTION\n\n{standard}\nPrint the value of EXPRESSION to standard output.  A blank line below\nseparates increasing precedence groups.  EXPRESSION may be:\n\n  ARG1 | ARG2       ARG1 if it is neither null nor 0, otherwise ARG2\n\n  ARG1 & ARG2       ARG1 if neither argument is null or 0, otherwise 0\n\n  ARG1 < ARG2       ARG1 is less than ARG2\n  ARG1 <= ARG2      ARG1 is less than or equal to ARG2\n  ARG1 = ARG2       ARG1 is equal to ARG2\n  ARG1 != ARG2      ARG1 is unequal to ARG2\n  ARG1 >= ARG2      ARG1 is greater than or equal to ARG2\n  ARG1 > ARG2       ARG1 is greater than ARG2\n\n  ARG1 + ARG2       arithmetic sum of ARG1 and ARG2\n  ARG1 - ARG2       arithmetic difference of ARG1 and ARG2\n\n  ARG1 * ARG2       arithmetic product of ARG1 and ARG2\n  ARG1 / ARG2       arithmetic quotient of ARG1 divided by ARG2\n  ARG1 % ARG2       arithmetic remainder of ARG1 divided by ARG2\n\n  STRING : REGEXP   anchored pattern match of REGEXP in STRING\n\n  match STRING REGEXP        same as STRING : REGEXP\n  substr STRING POS LENGTH   substring of STRING, POS counted from 1\n  index STRING CHARS         index in STRING of any CHARS, or 0\n  length STRING              length of STRING\n  + TOKEN                    interpret TOKEN as a string, even if it is a\n                               keyword like 'match' or an operator like '/'\n\n  ( EXPRESSION )             value of EXPRESSION\n\nExit status is 0 if EXPRESSION is neither null nor 0, 1 if EXPRESSION is null\nor 0, 2 if EXPRESSION is syntactically invalid, and 3 if an error occurred.\n";
