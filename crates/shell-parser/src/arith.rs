//! Arithmetic expressions (`$(( ))`, `(( ))`, `let`, subscripts): text to [`Arith`].
//!
//! Used at parse time for expressions without expansions, and at run time for text that
//! only exists then (variable values, which bash evaluates as expressions, and expressions
//! with `$` in them). Precedence and associativity follow bash's `expr.c`.

use crate::ast::{Arith, BinaryOp, UnaryOp};

/// A syntax error, with bash's wording and the text from where it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct ArithError {
    pub message: String,
    /// The rest of the expression from the offending token (bash's "error token").
    pub token: String,
}

const MAX_DEPTH: u32 = 200;

/// Parses a whole expression. Empty text is 0, as in bash.
pub fn parse_arith(text: &str) -> Result<Arith, ArithError> {
    let mut parser = ArithParser { src: text.as_bytes(), pos: 0, depth: 0, token_start: 0 };
    parser.skip_space();
    if parser.pos >= parser.src.len() {
        return Ok(Arith::Number(0));
    }
    let expr = parser.comma()?;
    parser.skip_space();
    if parser.pos < parser.src.len() {
        let message = if matches!(parser.peek(), Tok::End) { "syntax error: invalid arithmetic operator" } else { "syntax error in expression" };
        return Err(parser.error_here(message));
    }
    Ok(expr)
}

/// Parses an integer constant the way bash does: `0x1f`, `017`, `2#101`, `64#_@`.
pub fn parse_number(text: &str) -> Result<i64, ArithError> {
    let bad = |message: &str| ArithError { message: message.to_string(), token: text.to_string() };
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return Err(bad("syntax error: operand expected"));
    }
    let (base, digits) = if let Some(hash) = text.find('#') {
        let base: i64 = text[..hash].parse().map_err(|_| bad("invalid arithmetic base"))?;
        if !(2..=64).contains(&base) {
            return Err(bad("invalid arithmetic base"));
        }
        (base, &text[hash + 1..])
    } else if bytes.len() > 1 && bytes[0] == b'0' && (bytes[1] == b'x' || bytes[1] == b'X') {
        if bytes.len() == 2 {
            // Bash reads a bare `0x` as 0.
            return Ok(0);
        }
        (16, &text[2..])
    } else if bytes.len() > 1 && bytes[0] == b'0' {
        (8, &text[1..])
    } else {
        (10, text)
    };
    if digits.is_empty() {
        return Err(bad("invalid integer constant"));
    }
    let mut value: i64 = 0;
    for c in digits.bytes() {
        let digit = match c {
            b'0'..=b'9' => (c - b'0') as i64,
            b'a'..=b'z' => (c - b'a') as i64 + 10,
            b'A'..=b'Z' => (c - b'A') as i64 + if base <= 36 { 10 } else { 36 },
            b'@' => 62,
            b'_' => 63,
            _ => return Err(bad("invalid number")),
        };
        if digit >= base {
            return Err(bad("value too great for base"));
        }
        value = value.wrapping_mul(base).wrapping_add(digit);
    }
    Ok(value)
}

struct ArithParser<'a> {
    src: &'a [u8],
    pos: usize,
    depth: u32,
    token_start: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Tok {
    Op(&'static str),
    Number,
    Name,
    End,
}

const OPERATORS: &[&str] = &[
    "<<=", ">>=", "**", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=", "/=", "%=", "+=", "-=",
    "&=", "^=", "|=", "+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "^", "|", "?", ":", ",", "(", ")",
];

impl<'a> ArithParser<'a> {
    fn skip_space(&mut self) {
        while self.pos < self.src.len() && matches!(self.src[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn rest(&self, from: usize) -> String {
        String::from_utf8_lossy(&self.src[from.min(self.src.len())..]).into_owned()
    }

    fn error_here(&self, message: &str) -> ArithError {
        ArithError { message: message.to_string(), token: self.rest(self.pos) }
    }

    /// The next token without consuming it.
    fn peek(&mut self) -> Tok {
        self.skip_space();
        let rest = &self.src[self.pos..];
        match rest.first() {
            None => Tok::End,
            Some(c) if c.is_ascii_digit() => Tok::Number,
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => Tok::Name,
            Some(_) => {
                for op in OPERATORS {
                    if rest.starts_with(op.as_bytes()) {
                        return Tok::Op(op);
                    }
                }
                Tok::End
            }
        }
    }

    fn at_op(&mut self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(found) if found == op)
    }

    fn take_op(&mut self, op: &str) -> bool {
        if self.at_op(op) {
            self.token_start = self.pos;
            self.pos += op.len();
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), ArithError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here("expression recursion level exceeded"));
        }
        Ok(())
    }

    fn comma(&mut self) -> Result<Arith, ArithError> {
        let mut left = self.assign()?;
        while self.take_op(",") {
            let right = self.assign()?;
            left = Arith::Comma(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn assign(&mut self) -> Result<Arith, ArithError> {
        self.enter()?;
        let left = self.conditional()?;
        let op = match self.peek() {
            Tok::Op(op) => op,
            _ => {
                self.depth -= 1;
                return Ok(left);
            }
        };
        let compound = match op {
            "=" => None,
            "*=" => Some(BinaryOp::Mul),
            "/=" => Some(BinaryOp::Div),
            "%=" => Some(BinaryOp::Rem),
            "+=" => Some(BinaryOp::Add),
            "-=" => Some(BinaryOp::Sub),
            "<<=" => Some(BinaryOp::Shl),
            ">>=" => Some(BinaryOp::Shr),
            "&=" => Some(BinaryOp::BitAnd),
            "^=" => Some(BinaryOp::BitXor),
            "|=" => Some(BinaryOp::BitOr),
            _ => {
                self.depth -= 1;
                return Ok(left);
            }
        };
        if !matches!(left, Arith::Var(_) | Arith::Element(..)) {
            return Err(self.error_here("attempted assignment to non-variable"));
        }
        self.token_start = self.pos;
        self.pos += op.len();
        let right = self.assign()?;
        self.depth -= 1;
        Ok(Arith::Assign(compound, Box::new(left), Box::new(right)))
    }

    fn conditional(&mut self) -> Result<Arith, ArithError> {
        let cond = self.binary(0)?;
        if !self.take_op("?") {
            return Ok(cond);
        }
        let then = self.comma()?;
        if !self.take_op(":") {
            return Err(self.error_here("`:' expected for conditional expression"));
        }
        let otherwise = self.assign_or_conditional()?;
        Ok(Arith::Conditional(Box::new(cond), Box::new(then), Box::new(otherwise)))
    }

    fn assign_or_conditional(&mut self) -> Result<Arith, ArithError> {
        self.enter()?;
        let result = self.conditional();
        self.depth -= 1;
        result
    }

    /// Binary operators by precedence level, loosest first.
    fn binary(&mut self, level: usize) -> Result<Arith, ArithError> {
        const LEVELS: &[&[(&str, BinaryOp)]] = &[
            &[("||", BinaryOp::Or)],
            &[("&&", BinaryOp::And)],
            &[("|", BinaryOp::BitOr)],
            &[("^", BinaryOp::BitXor)],
            &[("&", BinaryOp::BitAnd)],
            &[("==", BinaryOp::Eq), ("!=", BinaryOp::Ne)],
            &[("<=", BinaryOp::Le), (">=", BinaryOp::Ge), ("<", BinaryOp::Lt), (">", BinaryOp::Gt)],
            &[("<<", BinaryOp::Shl), (">>", BinaryOp::Shr)],
            &[("+", BinaryOp::Add), ("-", BinaryOp::Sub)],
            &[("*", BinaryOp::Mul), ("/", BinaryOp::Div), ("%", BinaryOp::Rem)],
        ];
        if level == LEVELS.len() {
            return self.power();
        }
        let mut left = self.binary(level + 1)?;
        'outer: loop {
            let tok = self.peek();
            for (text, op) in LEVELS[level] {
                if tok == Tok::Op(*text) {
                    self.token_start = self.pos;
                    self.pos += text.len();
                    let right = self.binary(level + 1)?;
                    left = Arith::Binary(*op, Box::new(left), Box::new(right));
                    continue 'outer;
                }
            }
            return Ok(left);
        }
    }

    fn power(&mut self) -> Result<Arith, ArithError> {
        let base = self.unary()?;
        if self.take_op("**") {
            self.enter()?;
            let exponent = self.power()?;
            self.depth -= 1;
            return Ok(Arith::Binary(BinaryOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<Arith, ArithError> {
        self.enter()?;
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<Arith, ArithError> {
        for (text, op) in [("!", UnaryOp::Not), ("~", UnaryOp::BitNot)] {
            if self.take_op(text) {
                return Ok(Arith::Unary(op, Box::new(self.unary()?)));
            }
        }
        for (text, increment) in [("++", true), ("--", false)] {
            if self.at_op(text) {
                let save = self.pos;
                self.pos += 2;
                if matches!(self.peek(), Tok::Name) {
                    let target = self.primary()?;
                    return Ok(Arith::IncDec { target: Box::new(target), increment, prefix: true });
                }
                // `--5` and `++x` on a non-variable are two signs, as in bash.
                self.pos = save + 1;
                let op = if increment { UnaryOp::Plus } else { UnaryOp::Minus };
                return Ok(Arith::Unary(op, Box::new(self.unary()?)));
            }
        }
        for (text, op) in [("+", UnaryOp::Plus), ("-", UnaryOp::Minus)] {
            if self.take_op(text) {
                return Ok(Arith::Unary(op, Box::new(self.unary()?)));
            }
        }
        let operand = self.primary()?;
        if matches!(operand, Arith::Var(_) | Arith::Element(..)) {
            for (text, increment) in [("++", true), ("--", false)] {
                if self.take_op(text) {
                    return Ok(Arith::IncDec { target: Box::new(operand), increment, prefix: false });
                }
            }
        }
        Ok(operand)
    }

    fn primary(&mut self) -> Result<Arith, ArithError> {
        self.token_start = self.pos;
        match self.peek() {
            Tok::Number => {
                let start = self.pos;
                while self.pos < self.src.len() && is_number_char(self.src[self.pos]) {
                    self.pos += 1;
                }
                let text = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
                // Bash names just the number in this message.
                parse_number(&text).map(Arith::Number)
            }
            Tok::Name => {
                let start = self.pos;
                while self.pos < self.src.len() && (self.src[self.pos].is_ascii_alphanumeric() || self.src[self.pos] == b'_') {
                    self.pos += 1;
                }
                let name = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
                if self.pos < self.src.len() && self.src[self.pos] == b'[' {
                    let open = self.pos;
                    let close = match matching_bracket(self.src, open) {
                        Some(close) => close,
                        None => return Err(ArithError { message: "bad array subscript".into(), token: self.rest(open) }),
                    };
                    let inner = String::from_utf8_lossy(&self.src[open + 1..close]).into_owned();
                    self.pos = close + 1;
                    let index = parse_arith(&inner)?;
                    return Ok(Arith::Element(name, Box::new(index), inner));
                }
                Ok(Arith::Var(name))
            }
            Tok::Op("(") => {
                self.pos += 1;
                self.enter()?;
                let inner = self.comma()?;
                self.depth -= 1;
                if !self.take_op(")") {
                    return Err(self.error_here("missing `)'"));
                }
                Ok(inner)
            }
            Tok::End if self.pos >= self.src.len() => Err(ArithError { message: "syntax error: operand expected".into(), token: self.rest(self.token_start_for_eof()) }),
            _ => Err(self.error_here("syntax error: operand expected")),
        }
    }

    /// Bash reports a missing operand at the end with the last operator as the token.
    fn token_start_for_eof(&self) -> usize {
        let mut end = self.src.len();
        while end > 0 && matches!(self.src[end - 1], b' ' | b'\t' | b'\n') {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && !self.src[start - 1].is_ascii_alphanumeric() && !matches!(self.src[start - 1], b' ' | b'\t' | b'\n' | b'_') {
            start -= 1;
        }
        start
    }
}

fn is_number_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'#' || c == b'@' || c == b'_'
}

/// The index of the `]` closing the `[` at `open`, counting nested brackets.
pub(crate) fn matching_bracket(src: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < src.len() {
        match src[i] {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'\\' => i += 1,
            // A quoted `]` does not close (`a['x]']=1`).
            quote @ (b'\'' | b'"') => {
                i += 1;
                while i < src.len() && src[i] != quote {
                    if quote == b'"' && src[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(n: i64) -> Box<Arith> {
        Box::new(Arith::Number(n))
    }

    #[test]
    fn precedence() {
        assert_eq!(parse_arith("1 + 2 * 3").unwrap(), Arith::Binary(BinaryOp::Add, num(1), Box::new(Arith::Binary(BinaryOp::Mul, num(2), num(3)))));
        assert_eq!(parse_arith("-2**2").unwrap(), Arith::Binary(BinaryOp::Pow, Box::new(Arith::Unary(UnaryOp::Minus, num(2))), num(2)));
    }

    #[test]
    fn numbers_in_bases() {
        assert_eq!(parse_number("0x1f").unwrap(), 31);
        assert_eq!(parse_number("017").unwrap(), 15);
        assert_eq!(parse_number("2#101").unwrap(), 5);
        assert_eq!(parse_number("64#_").unwrap(), 63);
        assert!(parse_number("08").is_err());
    }

    #[test]
    fn assignments_and_increments() {
        assert!(matches!(parse_arith("x += 2").unwrap(), Arith::Assign(Some(BinaryOp::Add), _, _)));
        assert!(matches!(parse_arith("x++").unwrap(), Arith::IncDec { prefix: false, .. }));
        assert!(matches!(parse_arith("a[i+1] = 3").unwrap(), Arith::Assign(None, _, _)));
        assert!(parse_arith("1 = 2").is_err());
    }

    #[test]
    fn errors_name_the_token() {
        let error = parse_arith("1 +").unwrap_err();
        assert_eq!(error.message, "syntax error: operand expected");
        assert_eq!(error.token, "+");
    }

    #[test]
    fn empty_is_zero() {
        assert_eq!(parse_arith("  ").unwrap(), Arith::Number(0));
    }
}
