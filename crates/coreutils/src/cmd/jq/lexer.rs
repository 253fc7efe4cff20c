//! Tokens of the jq language. String literals come out already split into literal parts
//! and interpolations (`"a\(.x)b"`), each interpolation as its own token list, so the
//! parser handles nesting by recursion.

use std::rc::Rc;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(Rc<str>),
    /// `.name`
    Field(Rc<str>),
    /// `$name`
    Var(Rc<str>),
    /// `@name`
    Format(Rc<str>),
    Number(f64),
    Str(Vec<StrPart>),
    Keyword(&'static str),
    /// Punctuation and operators, e.g. "|", "//=", "..".
    Op(&'static str),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StrPart {
    Lit(String),
    Interp(Vec<(Tok, usize)>),
}

const KEYWORDS: &[&str] = &["def", "if", "then", "elif", "else", "end", "as", "reduce", "foreach", "try", "catch", "label", "import", "include", "and", "or", "__loc__"];

/// Longest first, so that `//=` wins over `//` and `/`.
const OPS: &[&str] = &["?//", "//=", "|=", "+=", "-=", "*=", "/=", "%=", "==", "!=", "<=", ">=", "//", "..", "|", ",", "+", "-", "*", "/", "%", "=", "<", ">", ".", "[", "]", "{", "}", "(", ")", ":", ";", "?"];

pub struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
}

/// A lexing error with the byte offset where it happened.
#[derive(Debug)]
pub struct LexError {
    pub message: String,
    pub offset: usize,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s [u8]) -> Lexer<'s> {
        Lexer { src, pos: 0 }
    }

    /// Every token with its byte offset (for `$__loc__` line numbers and messages).
    pub fn tokens(src: &'s [u8]) -> Result<Vec<(Tok, usize)>, LexError> {
        let mut lexer = Lexer::new(src);
        let tokens = lexer.until_close(false)?;
        Ok(tokens)
    }

    fn err<T>(&self, message: &str) -> Result<T, LexError> {
        Err(LexError { message: message.to_string(), offset: self.pos })
    }

    /// Lexes until the end, or (inside an interpolation) until the `)` that closes it.
    fn until_close(&mut self, interpolation: bool) -> Result<Vec<(Tok, usize)>, LexError> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        loop {
            self.skip_space();
            if self.pos >= self.src.len() {
                if interpolation {
                    return self.err("unterminated string interpolation");
                }
                return Ok(out);
            }
            let start = self.pos;
            let tok = self.token()?;
            if interpolation {
                if tok == Tok::Op("(") {
                    depth += 1;
                } else if tok == Tok::Op(")") {
                    if depth == 0 {
                        return Ok(out);
                    }
                    depth -= 1;
                }
            }
            out.push((tok, start));
        }
    }

    fn skip_space(&mut self) {
        while self.pos < self.src.len() {
            let c = self.src[self.pos];
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if c == b'#' {
                while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn ident_end(&self, mut i: usize) -> usize {
        while i < self.src.len() {
            let c = self.src[i];
            if c.is_ascii_alphanumeric() || c == b'_' {
                i += 1;
            } else if c == b':' && self.src.get(i + 1) == Some(&b':') && self.src.get(i + 2).map_or(false, |d| d.is_ascii_alphabetic() || *d == b'_') {
                i += 2;
            } else {
                break;
            }
        }
        i
    }

    fn token(&mut self) -> Result<Tok, LexError> {
        let c = self.src[self.pos];
        if c.is_ascii_alphabetic() || c == b'_' {
            let end = self.ident_end(self.pos);
            let word = String::from_utf8_lossy(&self.src[self.pos..end]).into_owned();
            self.pos = end;
            if let Some(k) = KEYWORDS.iter().find(|k| **k == word) {
                return Ok(Tok::Keyword(k));
            }
            return Ok(Tok::Ident(Rc::from(word)));
        }
        if c == b'$' || c == b'@' {
            let end = self.ident_end(self.pos + 1);
            if end == self.pos + 1 {
                return self.err(if c == b'$' { "syntax error, unexpected '$'" } else { "syntax error, unexpected '@'" });
            }
            let word: Rc<str> = Rc::from(String::from_utf8_lossy(&self.src[self.pos + 1..end]).into_owned());
            self.pos = end;
            return Ok(if c == b'$' { Tok::Var(word) } else { Tok::Format(word) });
        }
        if c == b'.' && self.src.get(self.pos + 1).map_or(false, |d| d.is_ascii_alphabetic() || *d == b'_') {
            let end = self.ident_end(self.pos + 1);
            let word: Rc<str> = Rc::from(String::from_utf8_lossy(&self.src[self.pos + 1..end]).into_owned());
            self.pos = end;
            return Ok(Tok::Field(word));
        }
        if c.is_ascii_digit() || (c == b'.' && self.src.get(self.pos + 1).map_or(false, |d| d.is_ascii_digit())) {
            return self.number();
        }
        if c == b'"' {
            self.pos += 1;
            return self.string();
        }
        for op in OPS {
            if self.src[self.pos..].starts_with(op.as_bytes()) {
                self.pos += op.len();
                return Ok(Tok::Op(op));
            }
        }
        self.err(&format!("syntax error, unexpected INVALID_CHARACTER (Unix shell quoting issues?)"))
    }

    fn number(&mut self) -> Result<Tok, LexError> {
        let start = self.pos;
        while self.pos < self.src.len() && (self.src[self.pos].is_ascii_digit() || self.src[self.pos] == b'.') {
            self.pos += 1;
        }
        if self.pos < self.src.len() && (self.src[self.pos] == b'e' || self.src[self.pos] == b'E') {
            let mut j = self.pos + 1;
            if j < self.src.len() && (self.src[j] == b'+' || self.src[j] == b'-') {
                j += 1;
            }
            if j < self.src.len() && self.src[j].is_ascii_digit() {
                while j < self.src.len() && self.src[j].is_ascii_digit() {
                    j += 1;
                }
                self.pos = j;
            }
        }
        let text = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
        match text.parse::<f64>() {
            Ok(n) => Ok(Tok::Number(n)),
            Err(_) => self.err("syntax error, invalid numeric literal"),
        }
    }

    fn string(&mut self) -> Result<Tok, LexError> {
        let mut parts = Vec::new();
        let mut lit: Vec<u8> = Vec::new();
        loop {
            if self.pos >= self.src.len() {
                return self.err("unterminated string literal");
            }
            let c = self.src[self.pos];
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = match self.src.get(self.pos) {
                        Some(e) => *e,
                        None => return self.err("unterminated string literal"),
                    };
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' => lit.push(e),
                        b'b' => lit.push(8),
                        b'f' => lit.push(12),
                        b'n' => lit.push(b'\n'),
                        b'r' => lit.push(b'\r'),
                        b't' => lit.push(b'\t'),
                        b'u' => {
                            let code = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&code) && self.src[self.pos..].starts_with(b"\\u") {
                                self.pos += 2;
                                let low = self.hex4()?;
                                0x10000 + ((code - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3ff)
                            } else {
                                code
                            };
                            let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
                            let mut tmp = [0u8; 4];
                            lit.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                        }
                        b'(' => {
                            if !lit.is_empty() {
                                parts.push(StrPart::Lit(String::from_utf8_lossy(&lit).into_owned()));
                                lit.clear();
                            }
                            let inner = self.until_close(true)?;
                            parts.push(StrPart::Interp(inner));
                        }
                        _ => return self.err("invalid escape"),
                    }
                }
                _ => lit.push(c),
            }
        }
        if !lit.is_empty() || parts.is_empty() {
            parts.push(StrPart::Lit(String::from_utf8_lossy(&lit).into_owned()));
        }
        Ok(Tok::Str(parts))
    }

    fn hex4(&mut self) -> Result<u32, LexError> {
        let digits = self.src.get(self.pos..self.pos + 4).and_then(|d| std::str::from_utf8(d).ok()).and_then(|d| u32::from_str_radix(d, 16).ok());
        match digits {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => self.err("invalid \\u escape"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        Lexer::tokens(s.as_bytes()).unwrap().into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn basic_tokens() {
        assert_eq!(toks(".a.b | .[0]"), vec![Tok::Field("a".into()), Tok::Field("b".into()), Tok::Op("|"), Tok::Op("."), Tok::Op("["), Tok::Number(0.0), Tok::Op("]")]);
        assert_eq!(toks("$x //= 1e3 # c"), vec![Tok::Var("x".into()), Tok::Op("//="), Tok::Number(1000.0)]);
        assert_eq!(toks("if . then 1 end"), vec![Tok::Keyword("if"), Tok::Op("."), Tok::Keyword("then"), Tok::Number(1.0), Tok::Keyword("end")]);
    }

    #[test]
    fn interpolation() {
        let t = toks("\"a\\(.x + (1))b\"");
        match &t[0] {
            Tok::Str(parts) => {
                assert_eq!(parts.len(), 3);
                assert_eq!(parts[0], StrPart::Lit("a".into()));
                match &parts[1] {
                    StrPart::Interp(inner) => assert_eq!(inner.len(), 5),
                    _ => panic!("expected interpolation"),
                }
            }
            _ => panic!("expected string"),
        }
    }
}
