//! The pattern-space edits of `s`, `y` and `l`: substitution with GNU's empty-match rule
//! and case conversion, character translation, and the unambiguous listing.

use common::regex::Captures;

use super::super::script::{CaseOp, Piece, Subst};
use super::{Exec, Failure};

impl<'s> Exec<'s> {
    /// `s`: returns whether a replacement was made.
    pub(super) fn substitute(&mut self, subst: &Subst) -> Result<bool, Failure> {
        let re = self.regex_for(&subst.regex)?;
        let ps = &self.ps;
        let first = match re.find_at(ps, 0) {
            Some(m) => m,
            None => return Ok(false),
        };
        let mut caps = if subst.needs_groups { Some(re.new_captures()) } else { None };
        let mut result = Vec::with_capacity(ps.len() + 16);
        let mut copied = 0;
        let mut pos;
        let mut count = 0;
        let mut last_end: Option<usize> = None;
        let mut did = false;
        let mut next = Some(first);
        while let Some((s, e)) = next {
            if s == e && last_end == Some(s) {
                // No empty match right after the previous match.
                if s >= ps.len() {
                    break;
                }
                pos = s + char_len(ps, s);
                next = re.find_at(ps, pos);
                continue;
            }
            count += 1;
            if count >= subst.occurrence {
                result.extend_from_slice(&ps[copied..s]);
                if let Some(c) = caps.as_mut() {
                    re.captures_at(ps, s, c);
                    append_replacement(&mut result, &subst.replacement, ps, Some(c), (s, e));
                } else {
                    append_replacement(&mut result, &subst.replacement, ps, None, (s, e));
                }
                copied = e;
                did = true;
                if !subst.global {
                    break;
                }
            }
            last_end = Some(e);
            pos = if s == e {
                if e >= ps.len() {
                    break;
                }
                e + char_len(ps, e)
            } else {
                e
            };
            if pos > ps.len() {
                break;
            }
            next = re.find_at(ps, pos);
        }
        if !did {
            return Ok(false);
        }
        result.extend_from_slice(&ps[copied..]);
        self.ps = result;
        Ok(true)
    }
}

fn char_len(s: &[u8], i: usize) -> usize {
    match s.get(i) {
        Some(b) if *b >= 0xc0 => {
            let want = if *b >= 0xf0 { 4 } else if *b >= 0xe0 { 3 } else { 2 };
            if i + want <= s.len() && std::str::from_utf8(&s[i..i + want]).is_ok() {
                want
            } else {
                1
            }
        }
        _ => 1,
    }
}

/// Appends the replacement for a match, applying `\L \U \l \u \E`.
fn append_replacement(out: &mut Vec<u8>, pieces: &[Piece], hay: &[u8], caps: Option<&Captures>, whole: (usize, usize)) {
    let mut mode: Option<CaseOp> = None;
    let mut one: Option<CaseOp> = None;
    for piece in pieces {
        let text: &[u8] = match piece {
            Piece::Literal(t) => t,
            Piece::Group(0) => &hay[whole.0..whole.1],
            Piece::Group(n) => match caps.and_then(|c| c.get(*n)) {
                Some((s, e)) => &hay[s..e],
                None => b"",
            },
            Piece::Case(op) => {
                match op {
                    CaseOp::Lower | CaseOp::Upper => {
                        mode = Some(*op);
                        one = None;
                    }
                    CaseOp::End => {
                        mode = None;
                        one = None;
                    }
                    _ => one = Some(*op),
                }
                continue;
            }
        };
        if mode.is_none() && one.is_none() {
            out.extend_from_slice(text);
            continue;
        }
        let s = String::from_utf8_lossy(text);
        for ch in s.chars() {
            let op = one.take().or(mode);
            match op {
                Some(CaseOp::Upper) | Some(CaseOp::UpperOne) => out.extend(ch.to_uppercase().collect::<String>().bytes()),
                Some(CaseOp::Lower) | Some(CaseOp::LowerOne) => out.extend(ch.to_lowercase().collect::<String>().bytes()),
                _ => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }
}

pub(super) fn translate(ps: &[u8], map: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ps.len());
    let mut i = 0;
    while i < ps.len() {
        let len = char_len(ps, i);
        let ch = &ps[i..i + len];
        match map.iter().find(|(from, _)| from.as_slice() == ch) {
            Some((_, to)) => out.extend_from_slice(to),
            None => out.extend_from_slice(ch),
        }
        i += len;
    }
    out
}

/// The `l` command's unambiguous form, wrapped at `width` (0 or 1: no wrapping).
pub(super) fn list(ps: &[u8], width: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut col = 0;
    for &b in ps {
        let esc: Vec<u8> = match b {
            b'\\' => b"\\\\".to_vec(),
            7 => b"\\a".to_vec(),
            8 => b"\\b".to_vec(),
            12 => b"\\f".to_vec(),
            b'\n' => b"\\n".to_vec(),
            b'\r' => b"\\r".to_vec(),
            b'\t' => b"\\t".to_vec(),
            11 => b"\\v".to_vec(),
            0x20..=0x7e => vec![b],
            _ => format!("\\{:03o}", b).into_bytes(),
        };
        if width > 1 && col + esc.len() > width - 1 {
            out.extend_from_slice(b"\\\n");
            col = 0;
        }
        col += esc.len();
        out.extend_from_slice(&esc);
    }
    out.extend_from_slice(b"$\n");
    out
}
