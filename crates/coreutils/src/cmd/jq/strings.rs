//! String builtins: splitting, joining, trimming, case, codepoints, `@format`s, and the
//! regex family (test, match, capture, scan, split/2, sub, gsub) on the regex crate with
//! jq 1.6's match objects (offsets and lengths in codepoints).

use std::rc::Rc;

use regex::Regex;

use super::ast::Ast;
use super::builtins::Native;
use super::interp::{err, Env, Flow, Interp, Res};
use super::ops;
use super::value::{Map, Value};

fn need_str<'a>(v: &'a Value, what: &str) -> Result<&'a Rc<str>, Flow> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(err(format!("{} ({}) {}", v.kind(), v.dump_trunc(), what))),
    }
}

pub fn call<'p>(ip: &Interp<'p, '_>, native: Native, args: &'p [Ast], env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let arg = |i: usize, f: &mut dyn FnMut(Value) -> Res| ip.eval(&args[i], env, input.clone(), f);
    match native {
        Native::Join => arg(0, &mut |sep| {
            let items: Vec<Value> = match &input {
                Value::Array(a) => a.to_vec(),
                Value::Object(o) => o.values().cloned().collect(),
                _ => return Err(err(format!("Cannot iterate over {} ({})", input.kind(), input.dump_trunc()))),
            };
            let mut acc: Option<Value> = None;
            for x in items {
                let prefix = match acc.take() {
                    None => Value::from_str(""),
                    Some(a) => ops::add(&a, &sep)?,
                };
                let piece = match &x {
                    Value::Null => Value::from_str(""),
                    Value::Bool(_) | Value::Number(_) => Value::string(x.to_json()),
                    _ => x.clone(),
                };
                acc = Some(ops::add(&prefix, &piece)?);
            }
            cb(acc.unwrap_or_else(|| Value::from_str("")))
        }),
        Native::Split1 => arg(0, &mut |sep| match (&input, &sep) {
            (Value::String(s), Value::String(p)) => cb(ops::split_string(s, p)),
            _ => Err(err("split input and separator must be strings")),
        }),
        Native::Split2 | Native::Splits2 => arg(1, &mut |flags| {
            arg(0, &mut |re| {
                let parts = split_regex(&input, &re, &flags)?;
                if native == Native::Split2 {
                    cb(Value::array(parts))
                } else {
                    parts.into_iter().try_for_each(|p| cb(p))
                }
            })
        }),
        Native::AsciiDowncase | Native::AsciiUpcase => {
            let s = need_str(&input, "").map_err(|_| err("explode input must be a string"))?;
            cb(Value::string(if native == Native::AsciiDowncase { s.to_ascii_lowercase() } else { s.to_ascii_uppercase() }))
        }
        Native::Explode => {
            let s = need_str(&input, "").map_err(|_| err("explode input must be a string"))?;
            cb(Value::array(s.chars().map(|c| Value::Number(c as u32 as f64)).collect()))
        }
        Native::Implode => {
            let items = match &input {
                Value::Array(a) => a,
                _ => return Err(err("implode input must be an array")),
            };
            let mut s = String::new();
            for x in items.iter() {
                match x {
                    Value::Number(n) => s.push(char::from_u32(*n as u32).unwrap_or('\u{FFFD}')),
                    _ => return Err(err(format!("{} ({}) can't be imploded, unicode codepoint needs to be numeric", x.kind(), x.dump_trunc()))),
                }
            }
            cb(Value::string(s))
        }
        Native::Ltrimstr | Native::Rtrimstr => arg(0, &mut |p| match (&input, &p) {
            (Value::String(s), Value::String(p)) => {
                let trimmed = if native == Native::Ltrimstr { s.strip_prefix(&**p) } else { s.strip_suffix(&**p) };
                cb(trimmed.map_or_else(|| input.clone(), Value::from_str))
            }
            _ => cb(input.clone()),
        }),
        Native::Startswith | Native::Endswith => arg(0, &mut |p| match (&input, &p) {
            (Value::String(s), Value::String(p)) => cb(Value::Bool(if native == Native::Startswith { s.starts_with(&**p) } else { s.ends_with(&**p) })),
            _ => Err(err(if native == Native::Startswith { "startswith() requires string inputs" } else { "endswith() requires string inputs" })),
        }),
        Native::Indices | Native::Index | Native::Rindex => arg(0, &mut |needle| indices(native, &input, &needle, cb)),
        Native::Test1 | Native::Match1 | Native::Capture1 => arg(0, &mut |spec| {
            let (re, flags) = match &spec {
                Value::String(_) => (spec.clone(), Value::Null),
                Value::Array(a) if !a.is_empty() => (a[0].clone(), a.get(1).cloned().unwrap_or(Value::Null)),
                _ => return Err(err(format!("{} not a string or array", spec.kind()))),
            };
            regex_results(native, &input, &re, &flags, cb)
        }),
        Native::Test2 | Native::Match2 | Native::Capture2 => arg(1, &mut |flags| arg(0, &mut |re| regex_results(native, &input, &re, &flags, cb))),
        Native::Scan => arg(0, &mut |re| {
            for m in matches(&input, &re, &Value::from_str("g"))? {
                let captures = match &m {
                    Value::Object(o) => o.get("captures").cloned().unwrap_or(Value::Null),
                    _ => Value::Null,
                };
                match &captures {
                    Value::Array(c) if !c.is_empty() => cb(Value::array(c.iter().map(|x| ops::index(x, &Value::from_str("string")).unwrap_or(Value::Null)).collect()))?,
                    _ => cb(ops::index(&m, &Value::from_str("string"))?)?,
                }
            }
            Ok(())
        }),
        Native::Sub2 | Native::Sub3 | Native::Gsub2 | Native::Gsub3 => {
            let global = matches!(native, Native::Gsub2 | Native::Gsub3);
            let mut with_flags = |flags: Value| -> Res {
                arg(0, &mut |re| {
                    let mut flag_text = match &flags {
                        Value::String(f) => f.to_string(),
                        Value::Null => String::new(),
                        other => return Err(err(format!("{} ({}) is not a string", other.kind(), other.dump_trunc()))),
                    };
                    if global {
                        flag_text.push('g');
                    }
                    substitute(ip, &args[1], env, &input, &re, &flag_text, cb)
                })
            };
            if args.len() == 3 {
                arg(2, &mut with_flags)
            } else {
                with_flags(Value::Null)
            }
        }
        _ => Err(err("unknown builtin")),
    }
}

/// `indices(x)`, `index(x)`, `rindex(x)`: byte offsets of a substring, or positions of a
/// sub-array.
fn indices(native: Native, input: &Value, needle: &Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let found = match (input, needle) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::String(s), Value::String(n)) => {
            if n.is_empty() {
                return Err(err("Cannot search for an empty string"));
            }
            let mut out = Vec::new();
            let mut from = 0;
            while let Some(i) = s[from..].find(&**n) {
                out.push(Value::Number((from + i) as f64));
                from += i + 1;
                while from < s.len() && !s.is_char_boundary(from) {
                    from += 1;
                }
            }
            Value::array(out)
        }
        (Value::Array(a), Value::Array(b)) => Value::array(ops::array_indices(a, b)),
        (Value::Array(a), x) => Value::array(ops::array_indices(a, std::slice::from_ref(x))),
        _ => ops::index(input, needle)?,
    };
    match native {
        Native::Indices => cb(found),
        Native::Index => cb(match &found {
            Value::Array(a) => a.first().cloned().unwrap_or(Value::Null),
            _ => Value::Null,
        }),
        _ => cb(match &found {
            Value::Array(a) => a.last().cloned().unwrap_or(Value::Null),
            _ => Value::Null,
        }),
    }
}

/// Compiles a jq regex with its flags; returns the regex and whether it is global and
/// skips empty matches.
fn compile(re: &Value, flags: &Value) -> Result<(Regex, bool, bool), Flow> {
    let pattern = need_str(re, "cannot be matched, as it is not a string")?;
    let flag_text: String = match flags {
        Value::Null => String::new(),
        Value::String(f) => f.to_string(),
        other => return Err(err(format!("{} ({}) is not a string", other.kind(), other.dump_trunc()))),
    };
    let mut prefix = String::new();
    let (mut global, mut nonempty) = (false, false);
    for c in flag_text.chars() {
        match c {
            'g' => global = true,
            'i' => prefix.push_str("(?i)"),
            'x' => prefix.push_str("(?x)"),
            'n' => nonempty = true,
            'p' => prefix.push_str("(?s)"),
            's' | 'l' => {}
            _ => return Err(err(format!("{} is not a valid modifier string", flag_text))),
        }
    }
    let translated = named_groups(pattern);
    let regex = Regex::new(&format!("{}{}", prefix, translated)).map_err(|e| err(format!("{} (at offset 0) is not a valid regex: {}", pattern, e)))?;
    Ok((regex, global, nonempty))
}

/// Oniguruma's named groups `(?<name>…)` in the regex crate's spelling `(?P<name>…)`
/// (look-behind `(?<=`/`(?<!` is left alone: the regex crate refuses it, as it refuses
/// look-ahead and back-references, which jq regexes rarely use).
fn named_groups(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut rest = pattern;
    while let Some(i) = rest.find("(?<") {
        let escaped = rest[..i].chars().rev().take_while(|&c| c == '\\').count() % 2 == 1;
        let after = rest[i + 3..].chars().next();
        out.push_str(&rest[..i]);
        out.push_str(if !escaped && after != Some('=') && after != Some('!') { "(?P<" } else { "(?<" });
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    out
}

/// Codepoint offset of a byte offset, counting from a known earlier position.
struct CharCounter<'s> {
    text: &'s str,
    byte: usize,
    chars: usize,
}

impl<'s> CharCounter<'s> {
    fn at(&mut self, byte: usize) -> usize {
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        self.chars += self.text[self.byte..byte].chars().count();
        self.byte = byte;
        self.chars
    }
}

/// jq's match objects for every match (only the first unless global).
fn matches(input: &Value, re: &Value, flags: &Value) -> Result<Vec<Value>, Flow> {
    let text = need_str(input, "cannot be matched, as it is not a string")?;
    let (regex, global, nonempty) = compile(re, flags)?;
    let names: Vec<Option<String>> = regex.capture_names().map(|n| n.map(String::from)).collect();
    let mut counter = CharCounter { text, byte: 0, chars: 0 };
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut caps = regex.capture_locations();
    loop {
        let (b, e) = match regex.captures_read_at(&mut caps, text, start) {
            Some(m) => (m.start(), m.end()),
            None => break,
        };
        if b == e {
            if !nonempty {
                let mut m = Map::new();
                m.insert(Rc::from("offset"), Value::Number(counter.at(b) as f64));
                m.insert(Rc::from("length"), Value::Number(0.0));
                m.insert(Rc::from("string"), Value::from_str(""));
                m.insert(Rc::from("captures"), Value::array(Vec::new()));
                out.push(Value::object(m));
            }
            start = e + text[e..].chars().next().map_or(1, |c| c.len_utf8());
        } else {
            let mut m = Map::new();
            let offset = counter.at(b);
            let length = text[b..e].chars().count();
            m.insert(Rc::from("offset"), Value::Number(offset as f64));
            m.insert(Rc::from("length"), Value::Number(length as f64));
            m.insert(Rc::from("string"), Value::from_str(&text[b..e]));
            let mut captures = Vec::new();
            for i in 1..caps.len() {
                let name = names.get(i).cloned().flatten().map_or(Value::Null, Value::string);
                let mut c = Map::new();
                match caps.get(i) {
                    Some((gs, ge)) => {
                        let mut local = CharCounter { text, byte: b, chars: offset };
                        c.insert(Rc::from("offset"), Value::Number(local.at(gs) as f64));
                        c.insert(Rc::from("length"), Value::Number(text[gs..ge].chars().count() as f64));
                        c.insert(Rc::from("string"), Value::from_str(&text[gs..ge]));
                    }
                    None => {
                        c.insert(Rc::from("offset"), Value::Number(-1.0));
                        c.insert(Rc::from("string"), Value::Null);
                        c.insert(Rc::from("length"), Value::Number(0.0));
                    }
                }
                c.insert(Rc::from("name"), name);
                captures.push(Value::object(c));
            }
            m.insert(Rc::from("captures"), Value::array(captures));
            out.push(Value::object(m));
            start = e;
        }
        if !global || start >= text.len() {
            break;
        }
    }
    Ok(out)
}

fn capture_object(m: &Value) -> Value {
    let mut out = Map::new();
    if let Value::Object(o) = m {
        if let Some(Value::Array(caps)) = o.get("captures") {
            for c in caps.iter() {
                if let Value::Object(c) = c {
                    if let Some(Value::String(name)) = c.get("name") {
                        out.insert(name.clone(), c.get("string").cloned().unwrap_or(Value::Null));
                    }
                }
            }
        }
    }
    Value::object(out)
}

fn regex_results(native: Native, input: &Value, re: &Value, flags: &Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    match native {
        Native::Test1 | Native::Test2 => {
            let text = need_str(input, "cannot be matched, as it is not a string")?;
            let (regex, _, _) = compile(re, flags)?;
            cb(Value::Bool(regex.is_match(text)))
        }
        Native::Match1 | Native::Match2 => matches(input, re, flags)?.into_iter().try_for_each(|m| cb(m)),
        _ => matches(input, re, flags)?.into_iter().try_for_each(|m| cb(capture_object(&m))),
    }
}

/// `split($re; flags)`: the text between global matches.
fn split_regex(input: &Value, re: &Value, flags: &Value) -> Result<Vec<Value>, Flow> {
    let text = need_str(input, "cannot be matched, as it is not a string")?;
    let mut flag_text = match flags {
        Value::String(f) => f.to_string(),
        _ => String::new(),
    };
    flag_text.push('g');
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut prev = 0usize;
    for m in matches(input, re, &Value::string(flag_text))? {
        let (offset, length) = span(&m)?;
        out.push(Value::string(chars[prev.min(offset)..offset].iter().collect()));
        prev = offset + length;
    }
    out.push(Value::string(chars[prev.min(chars.len())..].iter().collect()));
    Ok(out)
}

/// A match object's offset and length (in characters).
fn span(m: &Value) -> Result<(usize, usize), Flow> {
    let field = |name: &str| -> Result<usize, Flow> {
        Ok(match ops::index(m, &Value::from_str(name))? {
            Value::Number(n) => n as usize,
            _ => 0,
        })
    };
    Ok((field("offset")?, field("length")?))
}

/// sub/gsub as jq 1.6 defines them: each global step matches again on the rest of the
/// string (so `^` can match again), and several outputs of the replacement multiply.
fn substitute<'p>(ip: &Interp<'p, '_>, replacement: &'p Ast, env: &Env<'p>, input: &Value, re: &Value, flags: &str, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let text = need_str(input, "cannot be matched, as it is not a string")?.clone();
    let global = flags.contains('g');
    let flags_value = Value::string(flags.replace('g', ""));
    // Segments of untouched text and, between them, the replacement choices.
    let mut segments: Vec<String> = Vec::new();
    let mut choices: Vec<Vec<String>> = Vec::new();
    let mut rest: String = text.to_string();
    loop {
        let found = matches(&Value::string(rest.clone()), re, &flags_value)?;
        let m = match found.into_iter().next() {
            Some(m) => m,
            None => break,
        };
        let chars: Vec<char> = rest.chars().collect();
        let (offset, length) = span(&m)?;
        segments.push(chars[..offset].iter().collect());
        let mut options = Vec::new();
        ip.eval(replacement, env, capture_object(&m), &mut |v| match v {
            Value::String(s) => {
                options.push(s.to_string());
                Ok(())
            }
            other => Err(err(format!("{} ({}) cannot be added to a string", other.kind(), other.dump_trunc()))),
        })?;
        choices.push(options);
        // jq 1.6 loops forever on empty matches; step past one character instead.
        let skip = if length == 0 { 1 } else { 0 };
        let consumed = (offset + length + skip).min(chars.len());
        if skip == 1 && offset < chars.len() {
            if let Some(last) = segments.last_mut() {
                let _ = last;
            }
            choices.last_mut().map(|c| c.iter_mut().for_each(|s| s.push(chars[offset])));
        }
        rest = chars[consumed..].iter().collect();
        if !global || rest.is_empty() {
            break;
        }
    }
    segments.push(rest);
    if choices.is_empty() {
        return cb(Value::String(text));
    }
    // The first match's choices vary fastest, as in jq's recursive definition.
    let mut picks = vec![0usize; choices.len()];
    loop {
        if choices.iter().any(|c| c.is_empty()) {
            return Ok(());
        }
        let mut out = String::new();
        for (i, seg) in segments.iter().enumerate() {
            out.push_str(seg);
            if i < choices.len() {
                out.push_str(&choices[i][picks[i]]);
            }
        }
        cb(Value::string(out))?;
        let mut i = 0;
        loop {
            if i == picks.len() {
                return Ok(());
            }
            picks[i] += 1;
            if picks[i] < choices[i].len() {
                break;
            }
            picks[i] = 0;
            i += 1;
        }
    }
}

fn shell_quote(v: &Value) -> Result<String, Flow> {
    match v {
        Value::String(s) => Ok(format!("'{}'", s.replace('\'', "'\\''"))),
        Value::Array(_) | Value::Object(_) => Err(err(format!("{} ({}) can not be escaped for shell", v.kind(), v.dump_trunc()))),
        _ => Ok(v.to_json()),
    }
}

/// `@text`, `@json`, `@html`, `@uri`, `@csv`, `@tsv`, `@sh`, `@base64`, `@base64d`.
pub fn format(name: &str, v: &Value) -> Result<String, Flow> {
    match name {
        "text" => Ok(v.to_text().to_string()),
        "json" => Ok(v.to_json()),
        "html" => Ok(v.to_text().chars().fold(String::new(), |mut s, c| {
            match c {
                '<' => s.push_str("&lt;"),
                '>' => s.push_str("&gt;"),
                '&' => s.push_str("&amp;"),
                '\'' => s.push_str("&apos;"),
                '"' => s.push_str("&quot;"),
                _ => s.push(c),
            }
            s
        })),
        "uri" => Ok(v.to_text().bytes().fold(String::new(), |mut s, b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                s.push(b as char);
            } else {
                s.push_str(&format!("%{:02X}", b));
            }
            s
        })),
        "csv" | "tsv" => {
            let items = match v {
                Value::Array(a) => a,
                _ => return Err(err(format!("{} ({}) cannot be {}-formatted, only an array can be", v.kind(), v.dump_trunc(), name))),
            };
            let mut fields = Vec::with_capacity(items.len());
            for x in items.iter() {
                fields.push(match x {
                    Value::Null => String::new(),
                    Value::Bool(_) | Value::Number(_) => x.to_json(),
                    Value::String(s) if name == "csv" => format!("\"{}\"", s.replace('"', "\"\"")),
                    Value::String(s) => s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r"),
                    _ => return Err(err(format!("{} ({}) is not valid in a csv row", x.kind(), x.dump_trunc()))),
                });
            }
            Ok(fields.join(if name == "csv" { "," } else { "\t" }))
        }
        "sh" => match v {
            Value::Array(a) => Ok(a.iter().map(shell_quote).collect::<Result<Vec<_>, _>>()?.join(" ")),
            _ => shell_quote(v),
        },
        "base64" => {
            let text = v.to_text();
            let mut out = Vec::new();
            base64_encode(text.as_bytes(), &mut out);
            Ok(String::from_utf8_lossy(&out).into_owned())
        }
        "base64d" => {
            let text = v.to_text();
            match base64_decode(text.as_bytes()) {
                Some(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
                None => Err(err(format!("{} ({}) is not valid base64 data", v.kind(), v.dump_trunc()))),
            }
        }
        _ => Err(err(format!("{} is not a valid format", name))),
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(data: &[u8], out: &mut Vec<u8>) {
    for chunk in data.chunks(3) {
        let n = (chunk[0] as u32) << 16 | (*chunk.get(1).unwrap_or(&0) as u32) << 8 | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            out.push(if i <= chunk.len() { B64[(n >> (18 - 6 * i) & 63) as usize] } else { b'=' });
        }
    }
}

/// Decodes until the first `=` or the end; None when nothing valid comes first.
fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    let mut seen = 0;
    for &c in text {
        if c == b'=' {
            break;
        }
        let v = B64.iter().position(|x| *x == c)? as u32;
        seen += 1;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if seen == 0 && !text.is_empty() {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::named_groups;

    #[test]
    fn oniguruma_named_groups_become_regex_crate_groups() {
        for (input, want) in [
            ("(?<k>\\w+)=(?<v>.*)", "(?P<k>\\w+)=(?P<v>.*)"),
            ("(?<=a)b(?<!c)", "(?<=a)b(?<!c)"),
            ("\\(?<x>", "\\(?<x>"),
            ("\\\\(?<x>y)", "\\\\(?P<x>y)"),
        ] {
            assert_eq!(named_groups(input), want, "{}", input);
        }
    }
}
