//! bc's tokens: numbers (digits and capital letters, one point, backslash-newline inside),
//! lowercase names, strings, operators and newlines; `#` and `/* */` comments and
//! backslash-newline continuations are skipped.

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Num(Vec<u8>),
    Str(Vec<u8>),
    Name(String),
    Op(&'static str),
    Newline,
    Eof,
}

const OPS: &[&str] = &["++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "&&", "||", "+", "-", "*", "/", "%", "^", "=", "<", ">", "!", "(", ")", "[", "]", "{", "}", ",", ";", "."];

#[derive(Clone)]
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    pub line: usize,
    /// The last token read was a newline (error recovery then skips nothing more).
    after_newline: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer { src, pos: 0, line: 1, after_newline: false }
    }

    /// After a syntax error: drop the rest of the line (unless the error was at its end).
    pub fn skip_line(&mut self) {
        if self.after_newline {
            self.after_newline = false;
            return;
        }
        while self.pos < self.src.len() {
            self.pos += 1;
            if self.src[self.pos - 1] == b'\n' {
                self.line += 1;
                break;
            }
        }
    }

    /// The next token; None for a character bc does not know or an unterminated string.
    pub fn token(&mut self) -> Option<Tok> {
        loop {
            let c = match self.src.get(self.pos) {
                None => return Some(Tok::Eof),
                Some(c) => *c,
            };
            if c == b'\\' && self.src.get(self.pos + 1) == Some(&b'\n') {
                self.pos += 2;
                self.line += 1;
            } else if c == b' ' || c == b'\t' || c == b'\r' {
                self.pos += 1;
            } else if c == b'#' {
                while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if c == b'/' && self.src.get(self.pos + 1) == Some(&b'*') {
                self.pos += 2;
                while self.pos < self.src.len() && !(self.src[self.pos] == b'*' && self.src.get(self.pos + 1) == Some(&b'/')) {
                    if self.src[self.pos] == b'\n' {
                        self.line += 1;
                    }
                    self.pos += 1;
                }
                self.pos = (self.pos + 2).min(self.src.len());
            } else {
                break;
            }
        }
        let start = self.pos;
        let c = self.src[start];
        if c == b'\n' {
            self.pos += 1;
            self.line += 1;
            self.after_newline = true;
            return Some(Tok::Newline);
        }
        self.after_newline = false;
        let is_digit = |c: u8| c.is_ascii_digit() || c.is_ascii_uppercase();
        if is_digit(c) || (c == b'.' && self.src.get(start + 1).map_or(false, |d| is_digit(*d))) {
            let mut text = Vec::new();
            let mut seen_point = false;
            while let Some(&d) = self.src.get(self.pos) {
                if is_digit(d) || (d == b'.' && !seen_point) {
                    seen_point |= d == b'.';
                    text.push(d);
                    self.pos += 1;
                } else if d == b'\\' && self.src.get(self.pos + 1) == Some(&b'\n') {
                    self.pos += 2;
                    self.line += 1;
                } else {
                    break;
                }
            }
            return Some(Tok::Num(text));
        }
        if c.is_ascii_lowercase() {
            while self.src.get(self.pos).map_or(false, |d| d.is_ascii_lowercase() || d.is_ascii_digit() || *d == b'_') {
                self.pos += 1;
            }
            return Some(Tok::Name(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned()));
        }
        if c == b'"' {
            self.pos += 1;
            let begin = self.pos;
            while self.pos < self.src.len() && self.src[self.pos] != b'"' {
                if self.src[self.pos] == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            }
            if self.pos >= self.src.len() {
                return None;
            }
            let s = self.src[begin..self.pos].to_vec();
            self.pos += 1;
            return Some(Tok::Str(s));
        }
        for op in OPS {
            if self.src[start..].starts_with(op.as_bytes()) {
                self.pos += op.len();
                return Some(Tok::Op(op));
            }
        }
        self.pos += 1;
        None
    }
}
