//! The regex-based string functions: split(), patsplit(), sub(), gsub(), gensub() and
//! match(), with gawk's rules for empty matches and replacement escapes.

use super::array::{classify, Key};
use super::ast::*;
use super::fields::{split_all, FieldMode};
use super::format::count_chars;
use super::interp::{fatal, Cell, Interp, R};
use super::lexer::char_at;
use super::value::Value;
use super::vars;

/// The matches sub(), gsub() and gensub() replace, found as gawk finds them: after an
/// empty match the search moves on one character, and an empty match right after a match
/// is not a match.
struct Matches<'t> {
    text: &'t [u8],
    pos: usize,
    last_end: Option<usize>,
}

impl Matches<'_> {
    /// The next match (start, end), `find(pos)` being the first match at or after `pos`.
    fn next(&mut self, mut find: impl FnMut(usize) -> Option<(usize, usize)>) -> Option<(usize, usize)> {
        while self.pos <= self.text.len() {
            let (s, e) = find(self.pos)?;
            let after = s + char_at(self.text, s).1.max(1);
            if s == e && self.last_end == Some(s) {
                self.pos = after;
                continue;
            }
            self.last_end = Some(e);
            self.pos = if s == e { after } else { e };
            return Some((s, e));
        }
        None
    }

    /// Where copying the text resumes after the replaced match s..e: an empty match copies
    /// the character it stands before.
    fn resume(&self, s: usize, e: usize, out: &mut Vec<u8>) -> usize {
        if s != e {
            return e;
        }
        let next = self.pos.min(self.text.len());
        out.extend_from_slice(&self.text[s..next]);
        next
    }
}

impl<'a, 'io> Interp<'a, 'io> {
    pub fn split(&mut self, pattern: bool, args: &[Arg]) -> R<usize> {
        let text = self.arg_str(args, 0)?;
        let mode = match args.get(2) {
            Some(Arg::Regex(RegexArg::Static(id))) => {
                let re = self.regexes.literal(*id, self.icase).or_else(fatal)?;
                if pattern {
                    FieldMode::Pattern(re)
                } else {
                    FieldMode::Regex(re)
                }
            }
            Some(Arg::Regex(RegexArg::Dynamic(e))) => {
                let mut fs = Vec::new();
                self.eval_str_into(e, &mut fs)?;
                if pattern {
                    FieldMode::Pattern(self.regexes.dynamic(&fs, self.icase).or_else(fatal)?)
                } else {
                    self.fs_mode(&fs, false)?
                }
            }
            _ => {
                if pattern {
                    match &self.fmode {
                        FieldMode::Pattern(re) => FieldMode::Pattern(re.clone()),
                        _ => {
                            let fpat = match &self.globals[vars::FPAT as usize] {
                                Cell::Val(v) => v.to_str(&self.convfmt).to_vec(),
                                Cell::Arr(_) => Vec::new(),
                            };
                            FieldMode::Pattern(self.regexes.dynamic(&fpat, self.icase).or_else(fatal)?)
                        }
                    }
                } else {
                    let fs = match &self.globals[vars::FS as usize] {
                        Cell::Val(v) => v.to_str(&self.convfmt).to_vec(),
                        Cell::Arr(_) => b" ".to_vec(),
                    };
                    let paragraph = matches!(self.rs, super::input::RsMode::Paragraph);
                    self.fs_mode(&fs, paragraph)?
                }
            }
        };
        let target = self.arg_array(args, 1)?;
        let seps_array = match args.get(3) {
            Some(Arg::Array(_)) => Some(self.arg_array(args, 3)?),
            _ => None,
        };
        let (fields, seps) = split_all(&mode, &text);
        let array = &mut self.arrays[target];
        array.clear();
        for (i, (s, e)) in fields.iter().enumerate() {
            array.set(Key::Int(i as i32 + 1), Value::strnum(&text[*s..*e]));
        }
        if let Some(sid) = seps_array {
            let array = &mut self.arrays[sid];
            array.clear();
            let n = fields.len();
            for (i, (s, e)) in seps.iter().enumerate() {
                let keep = match mode {
                    FieldMode::Default | FieldMode::Pattern(_) => (i > 0 && i < n) || e > s,
                    _ => i > 0 && i < n,
                };
                if keep && (n > 0 || e > s) {
                    array.set(Key::Int(i as i32), Value::Str(text[*s..*e].into()));
                }
            }
        }
        Ok(fields.len())
    }

    /// sub() and gsub(): returns the number of replacements.
    pub fn substitute(&mut self, global: bool, args: &[Arg]) -> R<usize> {
        let re = match args.get(0) {
            Some(Arg::Regex(r)) => self.regex(r)?,
            _ => return Ok(0),
        };
        let repl = self.arg_str(args, 1)?;
        let target: Option<&LValue> = match args.get(2) {
            Some(Arg::LValue(lv)) => Some(lv),
            _ => None,
        };
        let text = match (target, args.get(2)) {
            (Some(lv), _) => {
                let place = self.place(lv)?;
                let v = self.place_get(&place)?;
                let mut t = Vec::new();
                v.append_str(&mut t, &self.convfmt);
                t
            }
            (None, Some(Arg::Expr(e))) => {
                let mut t = Vec::new();
                self.eval_str_into(e, &mut t)?;
                t
            }
            _ => self.rec.text().to_vec(),
        };
        let mut out = Vec::with_capacity(text.len() + 16);
        let mut count = 0;
        let mut copied = 0;
        let mut walk = Matches { text: &text, pos: 0, last_end: None };
        while let Some((s, e)) = walk.next(|pos| re.find_at(&text, pos)) {
            out.extend_from_slice(&text[copied..s]);
            push_replacement(&mut out, &repl, &text[s..e]);
            count += 1;
            copied = walk.resume(s, e, &mut out);
            if !global {
                break;
            }
        }
        if count == 0 {
            return Ok(0);
        }
        out.extend_from_slice(&text[copied.min(text.len())..]);
        match target {
            Some(lv) => self.assign_lvalue(lv, Value::Str(out.into()))?,
            None => {
                if args.len() < 3 {
                    self.rec.set(&out);
                }
            }
        }
        Ok(count)
    }

    pub fn gensub(&mut self, args: &[Arg]) -> R<Value> {
        let re = match args.get(0) {
            Some(Arg::Regex(r)) => self.regex(r)?,
            _ => return Ok(Value::Uninit),
        };
        let repl = self.arg_str(args, 1)?;
        let how = match self.arg_expr(args, 2) {
            Some(e) => self.eval(e)?,
            None => Value::Uninit,
        };
        let how_text = how.to_str(&self.convfmt);
        let which: usize = if how_text.first().map_or(false, |c| *c == b'g' || *c == b'G') {
            0
        } else {
            let n = how.to_num();
            if n < 1.0 {
                let _ = writeln!(self.io.stderr, "{}: cmd. line:{}: warning: gensub: third argument `{}' treated as 1", self.io.name, self.line, String::from_utf8_lossy(&how_text));
                1
            } else {
                n as usize
            }
        };
        let text = if args.len() > 3 { self.arg_str(args, 3)? } else { self.rec.text().to_vec() };
        let mut caps = re.new_captures();
        let mut out = Vec::with_capacity(text.len() + 16);
        let mut copied = 0;
        let mut n = 0;
        let mut walk = Matches { text: &text, pos: 0, last_end: None };
        while let Some((s, e)) = walk.next(|pos| if re.captures_at(&text, pos, &mut caps) { caps.get(0) } else { None }) {
            n += 1;
            if which == 0 || n == which {
                out.extend_from_slice(&text[copied..s]);
                push_gensub_replacement(&mut out, &repl, &text, &caps);
                copied = walk.resume(s, e, &mut out);
            }
            if which != 0 && n >= which {
                break;
            }
        }
        out.extend_from_slice(&text[copied.min(text.len())..]);
        Ok(Value::Str(out.into()))
    }

    pub fn match_fn(&mut self, args: &[Arg]) -> R<Value> {
        let text = self.arg_str(args, 0)?;
        let re = match args.get(1) {
            Some(Arg::Regex(r)) => self.regex(r)?,
            _ => return Ok(Value::Num(0.0)),
        };
        let array = match args.get(2) {
            Some(Arg::Array(_)) => Some(self.arg_array(args, 2)?),
            _ => None,
        };
        let mut caps = re.new_captures();
        let found = re.captures_at(&text, 0, &mut caps);
        let (rstart, rlength) = match (found, caps.get(0)) {
            (true, Some((s, e))) => ((count_chars(&text[..s]) + 1) as f64, count_chars(&text[s..e]) as f64),
            _ => (0.0, -1.0),
        };
        self.globals[vars::RSTART as usize] = Cell::Val(Value::Num(rstart));
        self.globals[vars::RLENGTH as usize] = Cell::Val(Value::Num(rlength));
        if let Some(id) = array {
            self.arrays[id].clear();
            if found {
                let subsep = self.subsep.clone();
                for g in 0..caps.len() {
                    if let Some((s, e)) = caps.get(g) {
                        let array = &mut self.arrays[id];
                        array.set(Key::Int(g as i32), Value::strnum(&text[s..e]));
                        let mut key = g.to_string().into_bytes();
                        key.extend_from_slice(&subsep);
                        let base = key.len();
                        key.extend_from_slice(b"start");
                        array.set(classify(&key), Value::Num((count_chars(&text[..s]) + 1) as f64));
                        key.truncate(base);
                        key.extend_from_slice(b"length");
                        array.set(classify(&key), Value::Num(count_chars(&text[s..e]) as f64));
                    }
                }
            }
        }
        Ok(Value::Num(rstart))
    }
}

/// sub/gsub replacement text, gawk's rules: `&` is the match, `\&` a literal `&`,
/// `\\&` a backslash then the match, `\\\&` a literal `\&`, `\\\\` two backslashes;
/// any other backslash is kept.
fn push_replacement(out: &mut Vec<u8>, repl: &[u8], matched: &[u8]) {
    let mut i = 0;
    while i < repl.len() {
        let rest = &repl[i..];
        if rest[0] == b'&' {
            out.extend_from_slice(matched);
            i += 1;
        } else if rest[0] != b'\\' {
            out.push(rest[0]);
            i += 1;
        } else if rest.starts_with(b"\\\\\\&") {
            out.extend_from_slice(b"\\&");
            i += 4;
        } else if rest.starts_with(b"\\\\\\\\") {
            out.extend_from_slice(b"\\\\");
            i += 4;
        } else if rest.starts_with(b"\\\\&") {
            out.push(b'\\');
            out.extend_from_slice(matched);
            i += 3;
        } else if rest.get(1) == Some(&b'&') {
            out.push(b'&');
            i += 2;
        } else {
            out.push(b'\\');
            i += 1;
        }
    }
}

/// gensub replacement: also `\0`–`\9` for groups.
fn push_gensub_replacement(out: &mut Vec<u8>, repl: &[u8], text: &[u8], caps: &common::regex::Captures) {
    let group = |out: &mut Vec<u8>, g: usize| {
        if let Some((s, e)) = caps.get(g) {
            out.extend_from_slice(&text[s..e]);
        }
    };
    let mut i = 0;
    while i < repl.len() {
        match repl[i] {
            b'\\' if i + 1 < repl.len() => {
                let c = repl[i + 1];
                match c {
                    b'0'..=b'9' => group(out, (c - b'0') as usize),
                    _ => out.push(c),
                }
                i += 2;
            }
            b'&' => {
                group(out, 0);
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}
