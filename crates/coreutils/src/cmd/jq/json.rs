//! Reading JSON texts one after another from a byte stream, as jq 1.6 does: whitespace or
//! nothing between values, `nan` and strtod-style numbers accepted, invalid UTF-8 replaced
//! by U+FFFD, nesting limited to 256, and jq's parse error messages with line and column.
//! It never recurses, and it asks its source for more bytes only when it needs them, so
//! values are handed out as soon as they are complete.

use std::collections::HashMap;
use std::rc::Rc;

use super::value::{Map, Value};

/// Object keys repeat across the objects of an array: share one allocation per key.
const KEY_CACHE_LIMIT: usize = 4096;

const MAX_DEPTH: usize = 256;

/// Where bytes come from: appends what it has to `buf`; Ok(0) at the end.
pub trait Source {
    fn fill(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize>;
}

/// A source that is already all in memory.
pub struct SliceSource<'s>(pub Option<&'s [u8]>);

impl<'s> Source for SliceSource<'s> {
    fn fill(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        match self.0.take() {
            Some(s) => {
                buf.extend_from_slice(s);
                Ok(s.len())
            }
            None => Ok(0),
        }
    }
}

#[derive(Debug)]
pub enum ParseError {
    Syntax(String),
    Io(std::io::Error),
}

enum Frame {
    Array(Vec<Value>),
    Object(Map, Option<Rc<str>>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value (or, right after an opening bracket, the closing one).
    Value,
    /// `,` or the closing bracket.
    Separator,
    /// `:` after an object key.
    Colon,
}

pub struct Parser<S: Source> {
    source: S,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    /// Newlines consumed so far, and bytes since the last one.
    pub line: usize,
    column: usize,
    stack: Vec<Frame>,
    expect: Expect,
    /// Just after `[`/`{` or after `,` (for jq's messages).
    after_open: bool,
    after_comma: bool,
    bom_checked: bool,
    /// Reused for every string's bytes.
    scratch: Vec<u8>,
    keys: HashMap<Box<[u8]>, Rc<str>>,
}

impl<S: Source> Parser<S> {
    pub fn new(source: S) -> Parser<S> {
        Parser { source, buf: Vec::new(), pos: 0, eof: false, line: 0, column: 0, stack: Vec::new(), expect: Expect::Value, after_open: false, after_comma: false, bom_checked: false, scratch: Vec::new(), keys: HashMap::new() }
    }

    pub fn source(&self) -> &S {
        &self.source
    }

    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// Makes at least one unread byte available; false at the end of input.
    fn more(&mut self) -> Result<bool, ParseError> {
        if self.pos < self.buf.len() {
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        self.buf.clear();
        self.pos = 0;
        loop {
            match self.source.fill(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(_) => return Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ParseError::Io(e)),
            }
        }
    }

    fn error<T>(&self, message: &str) -> Result<T, ParseError> {
        Err(ParseError::Syntax(format!("{} at line {}, column {}", message, self.line + 1, self.column)))
    }

    fn eof_error<T>(&self, message: &str) -> Result<T, ParseError> {
        Err(ParseError::Syntax(format!("{} at EOF at line {}, column {}", message, self.line + 1, self.column)))
    }

    fn advance(&mut self, b: u8) {
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.column = 0;
        } else {
            self.column += 1;
        }
    }

    /// Whether the rest of the current line is already buffered with its newline (jq reads
    /// line by line, so its error locations count the line a value ended on).
    pub fn line_for_messages(&self) -> usize {
        let rest = &self.buf[self.pos.min(self.buf.len())..];
        self.line + usize::from(rest.contains(&b'\n'))
    }

    /// The next complete value; None at the end of input.
    pub fn next_value(&mut self) -> Option<Result<Value, ParseError>> {
        match self.parse() {
            Ok(Some(v)) => Some(Ok(v)),
            Ok(None) => None,
            Err(e) => {
                // After an error the stream cannot be trusted: stop.
                self.eof = true;
                self.pos = self.buf.len();
                self.stack.clear();
                Some(Err(e))
            }
        }
    }

    fn parse(&mut self) -> Result<Option<Value>, ParseError> {
        if !self.bom_checked {
            self.bom_checked = true;
            if self.more()? && self.buf[self.pos..].starts_with(b"\xef\xbb\xbf") {
                self.pos += 3;
            }
        }
        loop {
            // Skip whitespace.
            let c = loop {
                if !self.more()? {
                    if self.stack.is_empty() {
                        return Ok(None);
                    }
                    return self.eof_error("Unfinished JSON term");
                }
                let c = self.buf[self.pos];
                if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                    self.advance(c);
                } else {
                    break c;
                }
            };
            let value = match c {
                b'[' | b'{' => {
                    self.advance(c);
                    if self.expect != Expect::Value || self.is_key_position() {
                        return self.structure_error(c);
                    }
                    if self.stack.len() >= MAX_DEPTH {
                        return self.error("Exceeds depth limit for parsing");
                    }
                    self.stack.push(if c == b'[' { Frame::Array(Vec::new()) } else { Frame::Object(Map::new(), None) });
                    self.after_open = true;
                    self.after_comma = false;
                    continue;
                }
                b']' | b'}' => {
                    self.advance(c);
                    let ok = match (self.stack.last(), c) {
                        (Some(Frame::Array(_)), b']') => self.expect == Expect::Separator || (self.after_open && self.expect == Expect::Value),
                        (Some(Frame::Object(_, None)), b'}') => self.expect == Expect::Separator || self.after_open,
                        _ => false,
                    };
                    if !ok {
                        return self.close_error(c);
                    }
                    self.expect = Expect::Value;
                    match self.stack.pop() {
                        Some(Frame::Array(items)) => Value::array(items),
                        Some(Frame::Object(map, _)) => Value::object(map),
                        None => return self.close_error(c),
                    }
                }
                b',' => {
                    self.advance(c);
                    if self.stack.is_empty() || self.expect != Expect::Separator {
                        if self.after_comma || self.after_open {
                            return self.comma_error();
                        }
                        return self.error("Expected value before ','");
                    }
                    self.expect = Expect::Value;
                    self.after_comma = true;
                    self.after_open = false;
                    continue;
                }
                b':' => {
                    self.advance(c);
                    match self.stack.last() {
                        Some(Frame::Object(_, Some(_))) if self.expect == Expect::Colon => {
                            self.expect = Expect::Value;
                            continue;
                        }
                        Some(Frame::Object(..)) if self.expect == Expect::Separator => return self.error("Object keys must be strings"),
                        _ => return self.error("Expected string key before ':'"),
                    }
                }
                b'"' => {
                    self.advance(c);
                    let key = self.expect == Expect::Value && self.is_key_position();
                    Value::String(self.string(key)?)
                }
                _ => self.literal()?,
            };
            if let Some(v) = self.deliver(value)? {
                return Ok(Some(v));
            }
        }
    }

    fn is_key_position(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Object(_, None)))
    }

    fn structure_error<T>(&self, _c: u8) -> Result<T, ParseError> {
        match self.stack.last() {
            Some(Frame::Object(_, None)) if self.expect == Expect::Value => self.error("Object keys must be strings"),
            Some(Frame::Object(_, Some(_))) if self.expect == Expect::Colon => self.error("Objects must consist of key:value pairs"),
            _ => self.error("Expected separator between values"),
        }
    }

    fn close_error<T>(&self, c: u8) -> Result<T, ParseError> {
        match self.stack.last() {
            None => self.error(if c == b']' { "Unmatched ']'" } else { "Unmatched '}'" }),
            Some(Frame::Array(_)) if c == b'}' => self.error("Unmatched '}'"),
            Some(Frame::Object(..)) if c == b']' => self.error("Unmatched ']'"),
            Some(Frame::Array(_)) => self.error("Expected another array element"),
            Some(Frame::Object(_, Some(_))) => self.error("Objects must consist of key:value pairs"),
            Some(Frame::Object(_, None)) => self.error("Expected another key-value pair"),
        }
    }

    fn comma_error<T>(&self) -> Result<T, ParseError> {
        match self.stack.last() {
            Some(Frame::Object(_, Some(_))) => self.error("Objects must consist of key:value pairs"),
            _ => self.error("Expected value before ','"),
        }
    }

    /// Places a finished value; returns it when it completes a top-level text.
    fn deliver(&mut self, value: Value) -> Result<Option<Value>, ParseError> {
        self.after_open = false;
        self.after_comma = false;
        let expect = self.expect;
        match self.stack.last_mut() {
            None => {
                if expect != Expect::Value {
                    return self.error("Expected separator between values");
                }
                Ok(Some(value))
            }
            Some(Frame::Array(items)) => {
                if expect != Expect::Value {
                    return self.error("Expected separator between values");
                }
                items.push(value);
                self.expect = Expect::Separator;
                Ok(None)
            }
            Some(Frame::Object(map, key)) => match (key.take(), expect) {
                (None, Expect::Value) => match value {
                    Value::String(s) => {
                        *key = Some(s);
                        self.expect = Expect::Colon;
                        Ok(None)
                    }
                    _ => self.error("Object keys must be strings"),
                },
                (Some(k), Expect::Value) => {
                    map.insert(k, value);
                    self.expect = Expect::Separator;
                    Ok(None)
                }
                (Some(k), _) => {
                    *key = Some(k);
                    self.error("Objects must consist of key:value pairs")
                }
                (None, _) => self.error("Expected separator between values"),
            },
        }
    }

    /// A string body after its opening quote (`key`: an object key, worth sharing).
    fn string(&mut self, key: bool) -> Result<Rc<str>, ParseError> {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let result = self.string_into(&mut out);
        let value = result.map(|()| {
            if key {
                if let Some(k) = self.keys.get(&out[..]) {
                    return k.clone();
                }
            }
            let text: Rc<str> = match std::str::from_utf8(&out) {
                Ok(s) => Rc::from(s),
                Err(_) => Rc::from(String::from_utf8_lossy(&out).into_owned()),
            };
            if key {
                if self.keys.len() >= KEY_CACHE_LIMIT {
                    self.keys.clear();
                }
                self.keys.insert(out.clone().into_boxed_slice(), text.clone());
            }
            text
        });
        self.scratch = out;
        value
    }

    fn string_into(&mut self, out: &mut Vec<u8>) -> Result<(), ParseError> {
        loop {
            if !self.more()? {
                return self.eof_error("Unfinished string");
            }
            // Copy a run of plain bytes at once.
            let start = self.pos;
            let chunk = &self.buf[start..];
            let run = chunk.iter().position(|b| *b == b'"' || *b == b'\\' || *b < 0x20).unwrap_or(chunk.len());
            out.extend_from_slice(&chunk[..run]);
            self.pos += run;
            self.column += run;
            if self.pos >= self.buf.len() {
                continue;
            }
            let c = self.buf[self.pos];
            self.advance(c);
            match c {
                b'"' => return Ok(()),
                b'\\' => self.escape(out)?,
                _ => return self.error("Invalid string: control characters from U+0000 through U+001F must be escaped"),
            }
        }
    }

    fn next_byte(&mut self) -> Result<Option<u8>, ParseError> {
        if !self.more()? {
            return Ok(None);
        }
        let c = self.buf[self.pos];
        self.advance(c);
        Ok(Some(c))
    }

    fn hex4(&mut self) -> Result<Option<u32>, ParseError> {
        let mut v = 0u32;
        for _ in 0..4 {
            match self.next_byte()? {
                Some(c) => match (c as char).to_digit(16) {
                    Some(d) => v = v * 16 + d,
                    None => return Ok(None),
                },
                None => return self.eof_error("Unfinished string"),
            }
        }
        Ok(Some(v))
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), ParseError> {
        let c = match self.next_byte()? {
            Some(c) => c,
            None => return self.eof_error("Unfinished string"),
        };
        let simple = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let high = match self.hex4()? {
                    Some(v) => v,
                    None => return self.error("Invalid escape"),
                };
                let code = if (0xD800..0xDC00).contains(&high) {
                    if self.next_byte()? != Some(b'\\') || self.next_byte()? != Some(b'u') {
                        return self.error("Invalid \\uXXXX\\uXXXX surrogate pair escape");
                    }
                    match self.hex4()? {
                        Some(low) if (0xDC00..0xE000).contains(&low) => 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00),
                        _ => return self.error("Invalid \\uXXXX\\uXXXX surrogate pair escape"),
                    }
                } else if (0xDC00..0xE000).contains(&high) {
                    0xFFFD
                } else {
                    high
                };
                let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
                let mut tmp = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                return Ok(());
            }
            _ => return self.error("Invalid escape"),
        };
        out.push(simple);
        Ok(())
    }

    /// true/false/null/nan or a number (strtod syntax).
    fn literal(&mut self) -> Result<Value, ParseError> {
        let mut token = Vec::new();
        loop {
            if !self.more()? {
                break;
            }
            let c = self.buf[self.pos];
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'[' | b']' | b'{' | b'}' | b',' | b':' | b'"') {
                break;
            }
            self.advance(c);
            token.push(c);
        }
        let at_eof = self.pos >= self.buf.len() && self.eof;
        let fail = |p: &Self, m: &str| if at_eof { p.eof_error(m) } else { p.error(m) };
        match token.first() {
            Some(b't') | Some(b'f') | Some(b'n') => match &token[..] {
                b"true" => Ok(Value::Bool(true)),
                b"false" => Ok(Value::Bool(false)),
                b"null" => Ok(Value::Null),
                b"nan" => Ok(Value::Number(f64::NAN)),
                _ => fail(self, "Invalid literal"),
            },
            _ => match std::str::from_utf8(&token).ok().and_then(parse_number) {
                Some(n) => Ok(Value::Number(n)),
                None => fail(self, "Invalid numeric literal"),
            },
        }
    }
}

/// strtod's syntax: optional sign, digits with optional point and exponent, or inf/nan.
pub fn parse_number(text: &str) -> Option<f64> {
    let body = text.strip_prefix(|c| c == '+' || c == '-').unwrap_or(text);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" || lower == "nan" {
        return text.parse::<f64>().ok();
    }
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')) {
        return None;
    }
    text.parse::<f64>().ok()
}

/// Parses exactly one JSON text from `text` (fromjson, tonumber, --argjson): jq's
/// messages for nothing or more than one value.
pub fn parse_one(text: &[u8]) -> Result<Value, String> {
    let mut parser = Parser::new(SliceSource(Some(text)));
    let first = match parser.next_value() {
        None => return Err("Expected JSON value".to_string()),
        Some(Err(ParseError::Syntax(m))) => return Err(m),
        Some(Err(ParseError::Io(e))) => return Err(e.to_string()),
        Some(Ok(v)) => v,
    };
    match parser.next_value() {
        None => Ok(first),
        Some(Err(ParseError::Syntax(m))) => Err(m),
        Some(Err(ParseError::Io(e))) => Err(e.to_string()),
        Some(Ok(_)) => Err("Unexpected extra JSON values".to_string()),
    }
}

/// Every value in `text` (--slurpfile).
pub fn parse_all(text: &[u8]) -> Result<Vec<Value>, String> {
    let mut parser = Parser::new(SliceSource(Some(text)));
    let mut out = Vec::new();
    while let Some(v) = parser.next_value() {
        match v {
            Ok(v) => out.push(v),
            Err(ParseError::Syntax(m)) => return Err(m),
            Err(ParseError::Io(e)) => return Err(e.to_string()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Result<Vec<String>, String> {
        parse_all(text.as_bytes()).map(|v| v.iter().map(|x| x.to_json()).collect())
    }

    #[test]
    fn values_in_a_row() {
        assert_eq!(all("1 2 [3,{\"a\":[]}]{\"b\":null}\"x\"").unwrap(), vec!["1", "2", "[3,{\"a\":[]}]", "{\"b\":null}", "\"x\""]);
        assert_eq!(all("\"\\u00e9\\ud83d\\ude00\\n\"").unwrap(), vec!["\"é😀\\n\""]);
        assert_eq!(all("01 .5 1. -0 1e2").unwrap(), vec!["1", "0.5", "1", "-0", "100"]);
    }

    #[test]
    fn errors() {
        assert!(all("[1 2]").unwrap_err().starts_with("Expected separator between values"));
        assert!(all("{\"a\":1,}").unwrap_err().starts_with("Expected another key-value pair"));
        assert!(all("[1,]").unwrap_err().starts_with("Expected another array element"));
        assert!(all("{").unwrap_err().starts_with("Unfinished JSON term at EOF"));
        assert!(all("]").unwrap_err().starts_with("Unmatched ']'"));
        assert!(all("tru").unwrap_err().starts_with("Invalid literal at EOF"));
        assert!(all("{1:2}").unwrap_err().starts_with("Object keys must be strings"));
        assert!(all("{\"a\"}").unwrap_err().starts_with("Objects must consist of key:value pairs"));
    }
}
