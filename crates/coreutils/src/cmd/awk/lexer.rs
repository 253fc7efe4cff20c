//! The awk tokenizer. It works on bytes (program text need not be UTF-8) and is driven by
//! the parser: a `/` is lexed as the division operator, and the parser asks for a regex
//! literal (`regex_at`) when it finds one where an operand must start — that is how awk's
//! regex-versus-division ambiguity is resolved. Newlines are tokens (they end statements);
//! comments and backslash-newline continuations are skipped here.

use super::ast::Builtin;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Newline,
    Eof,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Semicolon,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Not,
    Gt,
    Lt,
    Pipe,
    PipeAmp,
    Question,
    Colon,
    Tilde,
    NoMatch,
    Dollar,
    Assign,
    AddAssign,
    SubAssign,
    MulAssign,
    DivAssign,
    ModAssign,
    PowAssign,
    Eq,
    Le,
    Ge,
    Ne,
    Incr,
    Decr,
    And,
    Or,
    Append,
    Number(f64),
    Str(Vec<u8>),
    Name(String),
    /// A name immediately followed by `(`: a user function call.
    FuncName(String),
    Builtin(Builtin),
    Begin,
    End,
    BeginFile,
    EndFile,
    Function,
    If,
    Else,
    While,
    For,
    Do,
    Break,
    Continue,
    Next,
    NextFile,
    Exit,
    Return,
    Delete,
    In,
    Getline,
    Print,
    Printf,
    Switch,
    Case,
    Default,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    /// Byte offset of the token's first character.
    pub start: usize,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

#[derive(Clone)]
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    /// Warnings about odd escapes (`\q`), reported once parsing is done.
    pub warnings: Vec<(usize, String)>,
}

/// Operators of two characters (tried first) and of one.
const TWO_CHAR: &[(&[u8; 2], Tok)] = &[
    (b"++", Tok::Incr),
    (b"+=", Tok::AddAssign),
    (b"--", Tok::Decr),
    (b"-=", Tok::SubAssign),
    (b"*=", Tok::MulAssign),
    (b"/=", Tok::DivAssign),
    (b"%=", Tok::ModAssign),
    (b"^=", Tok::PowAssign),
    (b"!=", Tok::Ne),
    (b"!~", Tok::NoMatch),
    (b">=", Tok::Ge),
    (b">>", Tok::Append),
    (b"<=", Tok::Le),
    (b"==", Tok::Eq),
    (b"||", Tok::Or),
    (b"|&", Tok::PipeAmp),
    (b"&&", Tok::And),
];

const ONE_CHAR: &[(u8, Tok)] = &[
    (b'{', Tok::LBrace),
    (b'}', Tok::RBrace),
    (b'(', Tok::LParen),
    (b')', Tok::RParen),
    (b'[', Tok::LBracket),
    (b']', Tok::RBracket),
    (b';', Tok::Semicolon),
    (b',', Tok::Comma),
    (b'?', Tok::Question),
    (b':', Tok::Colon),
    (b'~', Tok::Tilde),
    (b'$', Tok::Dollar),
    (b'+', Tok::Plus),
    (b'-', Tok::Minus),
    (b'*', Tok::Star),
    (b'/', Tok::Slash),
    (b'%', Tok::Percent),
    (b'^', Tok::Caret),
    (b'!', Tok::Not),
    (b'>', Tok::Gt),
    (b'<', Tok::Lt),
    (b'=', Tok::Assign),
    (b'|', Tok::Pipe),
];

fn keyword(word: &str) -> Option<Tok> {
    Some(match word {
        "BEGIN" => Tok::Begin,
        "END" => Tok::End,
        "BEGINFILE" => Tok::BeginFile,
        "ENDFILE" => Tok::EndFile,
        "function" | "func" => Tok::Function,
        "if" => Tok::If,
        "else" => Tok::Else,
        "while" => Tok::While,
        "for" => Tok::For,
        "do" => Tok::Do,
        "break" => Tok::Break,
        "continue" => Tok::Continue,
        "next" => Tok::Next,
        "nextfile" => Tok::NextFile,
        "exit" => Tok::Exit,
        "return" => Tok::Return,
        "delete" => Tok::Delete,
        "in" => Tok::In,
        "getline" => Tok::Getline,
        "print" => Tok::Print,
        "printf" => Tok::Printf,
        "switch" => Tok::Switch,
        "case" => Tok::Case,
        "default" => Tok::Default,
        _ => return Builtin::from_name(word).map(Tok::Builtin),
    })
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer { src, pos: 0, line: 1, warnings: Vec::new() }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.src.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn error(&self, offset: usize, message: &str) -> SyntaxError {
        SyntaxError { offset, message: message.to_string() }
    }

    /// Skips blanks, comments and backslash-newline continuations (not newlines).
    fn skip_space(&mut self) {
        loop {
            match self.peek(0) {
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'\\' if self.peek(1) == b'\n' => {
                    self.pos += 2;
                    self.line += 1;
                }
                b'\\' if self.peek(1) == b'\r' && self.peek(2) == b'\n' => {
                    self.pos += 3;
                    self.line += 1;
                }
                b'#' => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    pub fn next_token(&mut self) -> Result<Token, SyntaxError> {
        self.skip_space();
        let start = self.pos;
        let line = self.line;
        let tok = self.scan(start)?;
        Ok(Token { tok, start, line })
    }

    fn scan(&mut self, start: usize) -> Result<Tok, SyntaxError> {
        if self.pos >= self.src.len() {
            return Ok(Tok::Eof);
        }
        let c = self.src[self.pos];
        self.pos += 1;
        let next = self.peek(0);
        match c {
            b'\n' => {
                self.line += 1;
                Ok(Tok::Newline)
            }
            // `**` and `**=` are gawk's spellings of `^` and `^=`.
            b'*' if next == b'*' => {
                self.pos += 1;
                if self.peek(0) == b'=' {
                    self.pos += 1;
                    Ok(Tok::PowAssign)
                } else {
                    Ok(Tok::Caret)
                }
            }
            b'"' => self.string(start),
            b'0'..=b'9' | b'.' => {
                if c == b'.' && !next.is_ascii_digit() {
                    return Err(self.error(start, "syntax error"));
                }
                self.pos -= 1;
                Ok(Tok::Number(self.number()))
            }
            c if c == b'_' || c.is_ascii_alphabetic() => {
                while self.peek(0) == b'_' || self.peek(0).is_ascii_alphanumeric() {
                    self.pos += 1;
                }
                let word = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
                if let Some(tok) = keyword(&word) {
                    return Ok(tok);
                }
                if self.peek(0) == b'(' {
                    return Ok(Tok::FuncName(word));
                }
                Ok(Tok::Name(word))
            }
            _ => {
                if let Some((_, tok)) = TWO_CHAR.iter().find(|(op, _)| op[0] == c && op[1] == next) {
                    self.pos += 1;
                    return Ok(tok.clone());
                }
                match ONE_CHAR.iter().find(|(op, _)| *op == c) {
                    Some((_, tok)) => Ok(tok.clone()),
                    None => Err(self.error(start, "syntax error")),
                }
            }
        }
    }

    /// A numeric constant: decimal, or (as gawk allows in program text) hex `0x1F` and
    /// octal `017`.
    fn number(&mut self) -> f64 {
        let start = self.pos;
        let rest = &self.src[start..];
        if rest.len() > 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' && rest[2].is_ascii_hexdigit() {
            let mut value = 0f64;
            self.pos += 2;
            while self.peek(0).is_ascii_hexdigit() {
                value = value * 16.0 + (self.peek(0) as char).to_digit(16).unwrap_or(0) as f64;
                self.pos += 1;
            }
            return value;
        }
        while self.peek(0).is_ascii_digit() {
            self.pos += 1;
        }
        let int_end = self.pos;
        if self.peek(0) == b'.' {
            self.pos += 1;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        if (self.peek(0) | 0x20) == b'e' {
            let sign = if self.peek(1) == b'+' || self.peek(1) == b'-' { 1 } else { 0 };
            if self.peek(1 + sign).is_ascii_digit() {
                self.pos += 1 + sign;
                while self.peek(0).is_ascii_digit() {
                    self.pos += 1;
                }
            }
        }
        let text = &self.src[start..self.pos];
        let octal = int_end == self.pos && text.len() > 1 && text[0] == b'0' && text.iter().all(|d| (b'0'..=b'7').contains(d));
        if octal {
            return text.iter().fold(0f64, |acc, d| acc * 8.0 + (d - b'0') as f64);
        }
        std::str::from_utf8(text).ok().and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0)
    }

    fn string(&mut self, start: usize) -> Result<Tok, SyntaxError> {
        let mut out = Vec::new();
        loop {
            if self.pos >= self.src.len() {
                return Err(self.error(start, "unterminated string"));
            }
            let c = self.src[self.pos];
            self.pos += 1;
            match c {
                b'"' => return Ok(Tok::Str(out)),
                b'\n' => return Err(self.error(start, "unterminated string")),
                b'\\' => {
                    if self.peek(0) == b'\n' {
                        self.pos += 1;
                        self.line += 1;
                        continue;
                    }
                    let (consumed, warning) = unescape_one(&self.src[self.pos..], &mut out);
                    if let Some(w) = warning {
                        self.warnings.push((self.pos, w));
                    }
                    self.pos += consumed;
                }
                _ => out.push(c),
            }
        }
    }

    /// Reads a regex literal whose opening `/` is at `slash` (the parser saw a division
    /// token where an operand must start). Returns the regex source text and leaves the
    /// lexer after the closing `/`.
    pub fn regex_at(&mut self, slash: usize) -> Result<Vec<u8>, SyntaxError> {
        self.pos = slash + 1;
        let mut out = Vec::new();
        let mut in_bracket = false;
        loop {
            if self.pos >= self.src.len() || self.src[self.pos] == b'\n' {
                return Err(self.error(slash, "unterminated regexp"));
            }
            let c = self.src[self.pos];
            self.pos += 1;
            match c {
                b'\\' => {
                    if self.peek(0) == b'\n' {
                        self.pos += 1;
                        self.line += 1;
                        continue;
                    }
                    if self.pos < self.src.len() {
                        if self.src[self.pos] == b'/' && !in_bracket {
                            out.push(b'/');
                        } else {
                            out.push(b'\\');
                            out.push(self.src[self.pos]);
                        }
                        self.pos += 1;
                    } else {
                        out.push(b'\\');
                    }
                }
                b'[' if !in_bracket => {
                    in_bracket = true;
                    out.push(c);
                    if self.peek(0) == b'^' {
                        out.push(b'^');
                        self.pos += 1;
                    }
                    if self.peek(0) == b']' {
                        out.push(b']');
                        self.pos += 1;
                    }
                }
                b'[' if in_bracket && matches!(self.peek(0), b':' | b'.' | b'=') => {
                    // `[:class:]` inside a bracket expression: its `]` does not close it.
                    let kind = self.peek(0);
                    let body = self.pos + 1;
                    let close = self.src[body..].windows(2).position(|w| w == [kind, b']'] || w[0] == b'\n');
                    match close {
                        Some(n) if self.src[body + n] == kind => {
                            out.extend_from_slice(&self.src[self.pos - 1..body + n + 2]);
                            self.pos = body + n + 2;
                        }
                        _ => out.push(c),
                    }
                }
                b']' if in_bracket => {
                    in_bracket = false;
                    out.push(c);
                }
                b'/' if !in_bracket => return Ok(out),
                _ => out.push(c),
            }
        }
    }
}

/// The byte a C escape stands for (the text after the backslash: `\n`, `\"`, `\/`, up to
/// three octal digits, `\x` and up to two hex digits) and how many bytes it used; None for
/// any other character. Strings and regular expressions share it.
pub fn escape_byte(rest: &[u8]) -> Option<(u8, usize)> {
    Some(match *rest.first()? {
        b'n' => (b'\n', 1),
        b't' => (b'\t', 1),
        b'r' => (b'\r', 1),
        b'a' => (7, 1),
        b'b' => (8, 1),
        b'f' => (12, 1),
        b'v' => (11, 1),
        c @ (b'\\' | b'"' | b'/') => (c, 1),
        b'0'..=b'7' => {
            let mut value = 0u32;
            let mut n = 0;
            while n < 3 && n < rest.len() && (b'0'..=b'7').contains(&rest[n]) {
                value = value * 8 + (rest[n] - b'0') as u32;
                n += 1;
            }
            (value as u8, n)
        }
        b'x' if rest.len() > 1 && rest[1].is_ascii_hexdigit() => {
            let mut value = 0u32;
            let mut n = 1;
            while n < 3 && n < rest.len() && rest[n].is_ascii_hexdigit() {
                value = value * 16 + (rest[n] as char).to_digit(16).unwrap_or(0);
                n += 1;
            }
            (value as u8, n)
        }
        _ => return None,
    })
}

/// Decodes one escape sequence (the text after a backslash) as awk strings do, appending
/// the result to `out`. Returns how many bytes were consumed and a warning for sequences
/// gawk warns about (`\q` → `q`).
pub fn unescape_one(rest: &[u8], out: &mut Vec<u8>) -> (usize, Option<String>) {
    if rest.is_empty() {
        out.push(b'\\');
        return (0, None);
    }
    if let Some((byte, n)) = escape_byte(rest) {
        out.push(byte);
        return (n, None);
    }
    let (_, len) = char_at(rest, 0);
    out.extend_from_slice(&rest[..len]);
    let shown = String::from_utf8_lossy(&rest[..len]).into_owned();
    (len, Some(format!("escape sequence `\\{}' treated as plain `{}'", shown, shown)))
}

/// Processes escapes in a whole string (`-v var=value`, command-line assignments).
pub fn unescape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' {
            let (n, _) = unescape_one(&text[i + 1..], &mut out);
            i += 1 + n;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// The UTF-8 character at `i` (None for an invalid byte) and its length in bytes.
pub use common::regex::decode as char_at;

#[cfg(test)]
#[path = "lexer_tests.rs"]
mod tests;
