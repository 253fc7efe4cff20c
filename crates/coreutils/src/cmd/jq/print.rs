//! Writing values as JSON exactly like jq 1.6's `jv_dump_term`: indentation (spaces or
//! tab), `-S` sorted keys, `-a` ASCII escapes, and `-C` colours with jq's escape sequences.

use super::value::{format_number, Value};

#[derive(Clone, Debug)]
pub struct Style {
    /// Spaces per level; None: compact.
    pub indent: Option<usize>,
    pub tab: bool,
    pub sort_keys: bool,
    pub ascii: bool,
    pub color: Option<Colors>,
}

/// Escape sequences per kind (jq's defaults, or JQ_COLORS).
#[derive(Clone, Debug)]
pub struct Colors {
    pub null: String,
    pub false_: String,
    pub true_: String,
    pub number: String,
    pub string: String,
    pub array: String,
    pub object: String,
}

impl Colors {
    pub fn default_colors() -> Colors {
        Colors {
            null: "1;30".into(),
            false_: "0;39".into(),
            true_: "0;39".into(),
            number: "0;39".into(),
            string: "0;32".into(),
            array: "1;39".into(),
            object: "1;39".into(),
        }
    }

    /// Applies JQ_COLORS (colon-separated, in jq's kind order).
    pub fn from_env(spec: &str) -> Colors {
        let mut c = Colors::default_colors();
        let slots: [&mut String; 7] = [&mut c.null, &mut c.false_, &mut c.true_, &mut c.number, &mut c.string, &mut c.array, &mut c.object];
        for (slot, part) in slots.into_iter().zip(spec.split(':')) {
            if part.bytes().all(|b| b.is_ascii_digit() || b == b';') && part.len() <= 16 {
                *slot = part.to_string();
            }
        }
        c
    }
}

impl Style {
    pub fn compact() -> Style {
        Style { indent: None, tab: false, sort_keys: false, ascii: false, color: None }
    }
}

const COLRESET: &[u8] = b"\x1b[0m";
const FIELD_COLOR: &[u8] = b"\x1b[34;1m";

pub fn write_value(out: &mut Vec<u8>, v: &Value, style: &Style) {
    dump(out, v, style, 0);
}

fn indent(out: &mut Vec<u8>, style: &Style, level: usize) {
    if style.tab {
        out.extend(std::iter::repeat(b'\t').take(level));
    } else if let Some(n) = style.indent {
        out.extend(std::iter::repeat(b' ').take(level * n));
    }
}

fn color_of<'a>(v: &Value, colors: &'a Colors) -> &'a str {
    match v {
        Value::Null => &colors.null,
        Value::Bool(false) => &colors.false_,
        Value::Bool(true) => &colors.true_,
        Value::Number(_) => &colors.number,
        Value::String(_) => &colors.string,
        Value::Array(_) => &colors.array,
        Value::Object(_) => &colors.object,
    }
}

/// An array's or object's `count` items between `brackets`, each written by `item`: on
/// their own indented lines when pretty, the container's colour restored after each.
fn items(out: &mut Vec<u8>, style: &Style, level: usize, brackets: [u8; 2], count: usize, color: Option<&[u8]>, mut item: impl FnMut(&mut Vec<u8>, usize)) {
    if count == 0 {
        out.extend_from_slice(&brackets);
        return;
    }
    let pretty = style.indent.is_some() || style.tab;
    out.push(brackets[0]);
    for i in 0..count {
        if i > 0 {
            out.push(b',');
        }
        if pretty {
            out.push(b'\n');
            indent(out, style, level + 1);
        }
        item(out, i);
        if let Some(c) = color {
            out.extend_from_slice(c);
        }
    }
    if pretty {
        out.push(b'\n');
        indent(out, style, level);
    }
    if let Some(c) = color {
        out.extend_from_slice(c);
    }
    out.push(brackets[1]);
}

fn dump(out: &mut Vec<u8>, v: &Value, style: &Style, level: usize) {
    let pretty = style.indent.is_some() || style.tab;
    let color: Option<Vec<u8>> = style.color.as_ref().map(|c| format!("\x1b[{}m", color_of(v, c)).into_bytes());
    if let Some(c) = &color {
        out.extend_from_slice(c);
    }
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => format_number(*n, out),
        Value::String(s) => write_string(out, s, style.ascii),
        Value::Array(a) => items(out, style, level, *b"[]", a.len(), color.as_deref(), |out, i| dump(out, &a[i], style, level + 1)),
        Value::Object(o) => {
            let keys: Vec<&std::rc::Rc<str>> = if style.sort_keys {
                let mut k: Vec<&std::rc::Rc<str>> = o.keys().collect();
                k.sort();
                k
            } else {
                o.keys().collect()
            };
            items(out, style, level, *b"{}", keys.len(), color.as_deref(), |out, i| {
                if color.is_some() {
                    out.extend_from_slice(COLRESET);
                    out.extend_from_slice(FIELD_COLOR);
                }
                write_string(out, keys[i], style.ascii);
                if let Some(c) = &color {
                    out.extend_from_slice(COLRESET);
                    out.extend_from_slice(c);
                }
                out.push(b':');
                if pretty {
                    out.push(b' ');
                }
                if color.is_some() {
                    out.extend_from_slice(COLRESET);
                }
                dump(out, o.get(keys[i]).unwrap_or(&Value::Null), style, level + 1);
            })
        }
    }
    if color.is_some() {
        out.extend_from_slice(COLRESET);
    }
}

/// A JSON string literal with jq's escapes (`\u007f` too; with `ascii`, `\uXXXX` for
/// everything past `~`, as surrogate pairs beyond the BMP).
pub fn write_string(out: &mut Vec<u8>, s: &str, ascii: bool) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\t' => Some(b"\\t"),
            b'\r' => Some(b"\\r"),
            8 => Some(b"\\b"),
            12 => Some(b"\\f"),
            _ => None,
        };
        if let Some(e) = escape {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(e);
            start = i + 1;
        } else if b < 0x20 || b == 0x7f {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(format!("\\u{:04x}", b).as_bytes());
            start = i + 1;
        } else if ascii && b >= 0x80 {
            out.extend_from_slice(&bytes[start..i]);
            start = i + 1;
            // Only at the first byte of a character: escape the whole character.
            if b >= 0xc0 {
                let len = if b >= 0xf0 { 4 } else if b >= 0xe0 { 3 } else { 2 };
                let end = (i + len).min(bytes.len());
                if let Some(c) = std::str::from_utf8(&bytes[i..end]).ok().and_then(|t| t.chars().next()) {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        out.extend_from_slice(format!("\\u{:04x}", u).as_bytes());
                    }
                }
            }
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}
