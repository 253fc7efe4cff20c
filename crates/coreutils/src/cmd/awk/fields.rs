//! The current record and its fields. Fields are split lazily and only as far as needed
//! (`$1` on a long line scans one field); until a field is assigned they are byte ranges
//! of `$0`, so reading fields allocates nothing. Assigning a field (or NF) turns the
//! fields into values and rebuilds `$0` with OFS.

use std::rc::Rc;

use common::regex::Regex;

use super::lexer::char_at;
use super::value::Value;

/// How FS (or FIELDWIDTHS/FPAT) splits a record.
#[derive(Clone)]
pub enum FieldMode {
    /// FS = " ": runs of blanks and newlines separate; leading/trailing ones are ignored.
    Default,
    /// A single character other than space: separates literally.
    Byte(u8),
    /// Paragraph mode (RS = "") with a one-character FS: it or a newline separates.
    ByteOrNewline(u8),
    /// Any longer FS: a regular expression.
    Regex(Rc<Regex>),
    /// FS = "": every character is a field.
    Chars,
    /// FIELDWIDTHS: (characters to skip, width; None = the rest of the record).
    Widths(Vec<(usize, Option<usize>)>),
    /// FPAT: each match of the pattern is a field.
    Pattern(Rc<Regex>),
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\n'
}

/// The next field of `text` at or after `pos`: (start, end, where to continue), or None
/// when there are no more fields. `first`: no field has been found yet.
pub fn next_field(mode: &FieldMode, text: &[u8], pos: usize, first: bool) -> Option<(usize, usize, usize)> {
    match mode {
        FieldMode::Default => {
            let mut i = pos;
            while i < text.len() && is_blank(text[i]) {
                i += 1;
            }
            if i >= text.len() {
                return None;
            }
            let start = i;
            while i < text.len() && !is_blank(text[i]) {
                i += 1;
            }
            Some((start, i, i))
        }
        FieldMode::Byte(c) => separated(text, pos, first, |rest| memchr::memchr(*c, rest).map(|i| (i, i + 1))),
        FieldMode::ByteOrNewline(c) => separated(text, pos, first, |rest| memchr::memchr2(*c, b'\n', rest).map(|i| (i, i + 1))),
        FieldMode::Regex(re) => {
            // After the last field the position is past the end; at the end exactly, a
            // separator just matched there and an empty last field follows.
            if pos > text.len() || (first && text.is_empty()) {
                return None;
            }
            let mut search = pos;
            loop {
                match re.find_at(text, search) {
                    Some((s, e)) if e > s => return Some((pos, s, e)),
                    // An empty match separates nothing: look further.
                    Some((s, _)) if s < text.len() => search = s + char_at(text, s).1.max(1),
                    _ => return Some((pos, text.len(), text.len() + 1)),
                }
            }
        }
        FieldMode::Chars => {
            if pos >= text.len() {
                return None;
            }
            let len = char_at(text, pos).1.max(1);
            Some((pos, pos + len, pos + len))
        }
        FieldMode::Widths(_) => None,
        FieldMode::Pattern(re) => {
            if pos > text.len() {
                return None;
            }
            match re.find_at(text, pos) {
                Some((s, e)) if e > s => Some((s, e, e)),
                Some((s, _)) if s < text.len() => {
                    // An empty match is an empty field; continue after one character.
                    Some((s, s, s + char_at(text, s).1.max(1)))
                }
                Some((s, _)) if s == text.len() && !first && pos < text.len() => Some((s, s, s + 1)),
                _ => None,
            }
        }
    }
}

/// Splitting on a separator found by `find` (returns the separator's (start, end) in the
/// slice it is given). An empty record has no fields; otherwise the text after the last
/// separator is the last field, even if empty.
fn separated(text: &[u8], pos: usize, first: bool, find: impl Fn(&[u8]) -> Option<(usize, usize)>) -> Option<(usize, usize, usize)> {
    if pos > text.len() || (first && text.is_empty()) {
        return None;
    }
    match find(&text[pos..]) {
        Some((s, e)) => Some((pos, pos + s, pos + e)),
        None => Some((pos, text.len(), text.len() + 1)),
    }
}

/// Splits by FIELDWIDTHS (widths count characters).
fn split_widths(widths: &[(usize, Option<usize>)], text: &[u8], out: &mut Vec<(usize, usize)>) {
    let mut pos = 0;
    let advance = |mut pos: usize, n: usize| {
        let mut k = 0;
        while k < n && pos < text.len() {
            pos += char_at(text, pos).1.max(1);
            k += 1;
        }
        pos
    };
    for (skip, width) in widths {
        pos = advance(pos, *skip);
        if pos >= text.len() {
            break;
        }
        let end = match width {
            Some(w) => advance(pos, *w),
            None => text.len(),
        };
        out.push((pos, end));
        pos = end;
    }
}

pub struct Record {
    text: Vec<u8>,
    /// False after a field or NF was assigned: `$0` must be rebuilt from `owned`.
    text_valid: bool,
    ranges: Vec<(usize, usize)>,
    split_pos: usize,
    split_done: bool,
    /// The fields as values, once any was assigned.
    owned: Option<Vec<Value>>,
}

/// A field as read: a slice of `$0`, an assigned value, or past NF.
pub enum FieldRef<'a> {
    Bytes(&'a [u8]),
    Value(&'a Value),
    Missing,
}

impl Default for Record {
    fn default() -> Self {
        Record { text: Vec::new(), text_valid: true, ranges: Vec::new(), split_pos: 0, split_done: false, owned: None }
    }
}

impl Record {
    /// Starts a new record with `bytes` as `$0`.
    pub fn set(&mut self, bytes: &[u8]) {
        self.text.clear();
        self.text.extend_from_slice(bytes);
        self.reset();
    }

    /// Makes `text` the new record (swapping buffers, so the old one can be reused).
    pub fn swap_in(&mut self, text: &mut Vec<u8>) {
        std::mem::swap(&mut self.text, text);
        self.reset();
    }

    pub fn reset(&mut self) {
        self.text_valid = true;
        self.ranges.clear();
        self.split_pos = 0;
        self.split_done = false;
        self.owned = None;
    }

    /// `$0`. Call `rebuild` first if fields were assigned.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// Splits until `n` fields are known (or all of them).
    pub fn ensure(&mut self, n: usize, mode: &FieldMode) {
        if self.split_done || self.owned.is_some() || self.ranges.len() >= n {
            return;
        }
        if let FieldMode::Widths(widths) = mode {
            split_widths(widths, &self.text, &mut self.ranges);
            self.split_done = true;
            return;
        }
        while self.ranges.len() < n {
            let first = self.ranges.is_empty();
            match next_field(mode, &self.text, self.split_pos, first) {
                Some((s, e, next)) => {
                    self.ranges.push((s, e));
                    self.split_pos = next;
                }
                None => {
                    self.split_done = true;
                    return;
                }
            }
        }
    }

    pub fn nf(&mut self, mode: &FieldMode) -> usize {
        if let Some(owned) = &self.owned {
            return owned.len();
        }
        self.ensure(usize::MAX, mode);
        self.ranges.len()
    }

    /// Field `n` (1-based).
    pub fn field(&mut self, n: usize, mode: &FieldMode) -> FieldRef<'_> {
        if self.owned.is_some() {
            return match self.owned.as_ref().and_then(|owned| owned.get(n - 1)) {
                Some(v) => FieldRef::Value(v),
                None => FieldRef::Missing,
            };
        }
        self.ensure(n, mode);
        match self.ranges.get(n - 1) {
            Some(&(s, e)) => FieldRef::Bytes(&self.text[s..e]),
            None => FieldRef::Missing,
        }
    }

    /// Turns the fields into values (before one is assigned).
    fn materialize(&mut self, mode: &FieldMode) -> &mut Vec<Value> {
        if self.owned.is_none() {
            self.ensure(usize::MAX, mode);
            let text = &self.text;
            let values = self.ranges.iter().map(|&(s, e)| Value::strnum(&text[s..e])).collect();
            self.owned = Some(values);
        }
        self.owned.get_or_insert_with(Vec::new)
    }

    /// `$n = value` for n >= 1; `$0` is rebuilt with `ofs` (numbers through `convfmt`).
    pub fn set_field(&mut self, n: usize, value: Value, mode: &FieldMode, ofs: &[u8], convfmt: &[u8]) {
        let fields = self.materialize(mode);
        if fields.len() < n {
            fields.resize(n, Value::Uninit);
        }
        fields[n - 1] = value;
        self.rebuild(ofs, convfmt);
    }

    /// `NF = n`: drops or adds (empty) fields and rebuilds `$0`.
    pub fn set_nf(&mut self, n: usize, mode: &FieldMode, ofs: &[u8], convfmt: &[u8]) {
        let fields = self.materialize(mode);
        fields.resize(n, Value::Uninit);
        self.rebuild(ofs, convfmt);
    }

    fn rebuild(&mut self, ofs: &[u8], convfmt: &[u8]) {
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        if let Some(fields) = &self.owned {
            for (i, v) in fields.iter().enumerate() {
                if i > 0 {
                    text.extend_from_slice(ofs);
                }
                v.append_str(&mut text, convfmt);
            }
        }
        self.text = text;
        self.text_valid = true;
    }
}

/// Splits `text` for split() and patsplit(): the fields, and the separators between them
/// (for split's fourth argument; with the default mode, the leading and trailing blanks
/// are separators 0 and n).
pub fn split_all(mode: &FieldMode, text: &[u8]) -> (Vec<(usize, usize)>, Vec<(usize, usize)>) {
    let mut fields = Vec::new();
    let mut seps = Vec::new();
    if let FieldMode::Widths(widths) = mode {
        split_widths(widths, text, &mut fields);
        return (fields, seps);
    }
    let mut pos = 0;
    let mut prev_end = 0;
    loop {
        let first = fields.is_empty();
        match next_field(mode, text, pos, first) {
            Some((s, e, next)) => {
                seps.push((prev_end.min(s), s));
                fields.push((s, e));
                prev_end = e.min(text.len());
                pos = next;
            }
            None => break,
        }
    }
    seps.push((prev_end, text.len()));
    (fields, seps)
}
