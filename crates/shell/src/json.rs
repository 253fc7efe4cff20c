//! A minimal JSON reader for the session protocol's run requests
//! (`{"runId":N,"command":"…","cwd":"/…"|null,"env":{…}}`).

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

const MAX_DEPTH: u32 = 64;

pub fn parse(text: &str) -> Result<Json, String> {
    let mut parser = JsonParser { bytes: text.as_bytes(), pos: 0, depth: 0 };
    let value = parser.value()?;
    parser.space();
    if parser.pos != parser.bytes.len() {
        return Err("trailing characters after JSON value".to_string());
    }
    Ok(value)
}

impl Json {
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => map.get(key),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
}

struct JsonParser<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> JsonParser<'a> {
    fn space(&mut self) {
        while self.pos < self.bytes.len() && matches!(self.bytes[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn expect(&mut self, text: &str) -> Result<(), String> {
        if self.bytes[self.pos..].starts_with(text.as_bytes()) {
            self.pos += text.len();
            Ok(())
        } else {
            Err(format!("expected {} at byte {}", text, self.pos))
        }
    }

    /// The comma-separated members of an object or array, from its opening bracket to
    /// `close`: `item` reads each one.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> Result<(), String>) -> Result<(), String> {
        self.pos += 1;
        self.space();
        if self.bytes.get(self.pos) == Some(&close) {
            self.pos += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            self.space();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(c) if *c == close => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(format!("expected , or {} at byte {}", close as char, self.pos)),
            }
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.space();
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("JSON nested too deeply".to_string());
        }
        let value = match self.bytes.get(self.pos) {
            Some(b'{') => {
                let mut map = BTreeMap::new();
                self.items(b'}', |p| {
                    p.space();
                    let key = p.string()?;
                    p.space();
                    p.expect(":")?;
                    map.insert(key, p.value()?);
                    Ok(())
                })?;
                Json::Object(map)
            }
            Some(b'[') => {
                let mut items = Vec::new();
                self.items(b']', |p| {
                    items.push(p.value()?);
                    Ok(())
                })?;
                Json::Array(items)
            }
            Some(b'"') => Json::String(self.string()?),
            Some(b't') => {
                self.expect("true")?;
                Json::Bool(true)
            }
            Some(b'f') => {
                self.expect("false")?;
                Json::Bool(false)
            }
            Some(b'n') => {
                self.expect("null")?;
                Json::Null
            }
            Some(_) => {
                let start = self.pos;
                while self.pos < self.bytes.len() && matches!(self.bytes[self.pos], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.pos]).map_err(|_| "bad number".to_string())?;
                Json::Number(text.parse().map_err(|_| format!("bad number at byte {}", start))?)
            }
            None => return Err("unexpected end of JSON".to_string()),
        };
        self.depth -= 1;
        Ok(value)
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect("\"")?;
        let mut out = String::new();
        loop {
            let c = *self.bytes.get(self.pos).ok_or("unterminated JSON string")?;
            self.pos += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let e = *self.bytes.get(self.pos).ok_or("unterminated JSON string")?;
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\x08'),
                        b'f' => out.push('\x0c'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code) && self.bytes[self.pos..].starts_with(b"\\u") {
                                self.pos += 2;
                                let low = self.hex4()?;
                                code = 0x10000 + ((code - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3ff);
                            }
                            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(format!("bad escape at byte {}", self.pos)),
                    }
                }
                _ => {
                    let start = self.pos - 1;
                    let mut end = self.pos;
                    while end < self.bytes.len() && !matches!(self.bytes[end], b'"' | b'\\') {
                        end += 1;
                    }
                    out.push_str(&String::from_utf8_lossy(&self.bytes[start..end]));
                    self.pos = end;
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.bytes.get(self.pos..self.pos + 4).ok_or("short \\u escape")?;
        let text = std::str::from_utf8(digits).map_err(|_| "bad \\u escape".to_string())?;
        self.pos += 4;
        u32::from_str_radix(text, 16).map_err(|_| "bad \\u escape".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_and_unclosed_members() {
        assert!(matches!(parse(r#"[1, [], {}, ["a"]]"#), Ok(Json::Array(items)) if items.len() == 4));
        assert_eq!(parse("[1 2]").err().as_deref(), Some("expected , or ] at byte 3"));
        assert_eq!(parse(r#"{"a":1 "#).err().as_deref(), Some("expected , or } at byte 7"));
    }

    #[test]
    fn parses_a_run_request() {
        let json = parse(r#"{"runId":3,"command":"echo \"hi\"\n","cwd":null,"env":{"A":"1","B":"\u00e9"}}"#).unwrap();
        assert_eq!(json.get("command").and_then(Json::as_str), Some("echo \"hi\"\n"));
        assert_eq!(json.get("cwd"), Some(&Json::Null));
        assert_eq!(json.get("env").and_then(|e| e.get("B")).and_then(Json::as_str), Some("é"));
    }
}
