//! Passes over a word once it is read: tilde prefixes and brace expressions. Both depend
//! only on the unquoted literal text, so they are decided at parse time; brace expansion
//! itself (generating the words) happens when the command runs.

use super::words::merge_literals;
use crate::ast::*;

/// Marks a leading `~prefix` (and, in assignments, one after each `:`) as a tilde part.
pub fn tilde_pass(word: Word, assignment: bool) -> Word {
    let needs = word.parts.iter().any(|p| matches!(p, WordPart::Literal(t) if t.contains('~')));
    if !needs {
        return word;
    }
    let count = word.parts.len();
    let mut out = Vec::with_capacity(count + 2);
    for (index, part) in word.parts.into_iter().enumerate() {
        let text = match part {
            WordPart::Literal(text) => text,
            other => {
                out.push(other);
                continue;
            }
        };
        let last = index + 1 == count;
        let mut pending = String::new();
        let mut rest: &str = &text;
        let mut at_start = index == 0;
        loop {
            if at_start && rest.starts_with('~') {
                let body = &rest[1..];
                // The prefix ends at `/` or `:` (readline's tilde suffixes), in any word.
                let end = body.find(|c| c == '/' || c == ':').unwrap_or(body.len());
                let prefix = &body[..end];
                // A prefix running into a quoted or expanded part is not a login name.
                let complete = end < body.len() || last;
                if complete && valid_tilde_prefix(prefix) {
                    if !pending.is_empty() {
                        out.push(WordPart::Literal(std::mem::take(&mut pending)));
                    }
                    out.push(WordPart::Tilde(prefix.to_string()));
                    rest = &body[end..];
                }
            }
            if !assignment {
                pending.push_str(rest);
                break;
            }
            match rest.find(':') {
                Some(i) => {
                    pending.push_str(&rest[..=i]);
                    rest = &rest[i + 1..];
                    at_start = true;
                }
                None => {
                    pending.push_str(rest);
                    break;
                }
            }
        }
        if !pending.is_empty() {
            out.push(WordPart::Literal(pending));
        }
    }
    Word { parts: out }
}

/// `name=~/x:~/y` given as an argument: tildes after the `=` and each `:` expand.
pub(crate) fn tilde_after_equals(word: Word) -> Word {
    let mut parts = word.parts;
    let first = match parts.first() {
        Some(WordPart::Literal(text)) => text.clone(),
        _ => return Word { parts },
    };
    let eq = match first.find('=') {
        Some(eq) => eq,
        None => return Word { parts },
    };
    parts[0] = WordPart::Literal(first[eq + 1..].to_string());
    if first[eq + 1..].is_empty() {
        parts.remove(0);
    }
    let mut out = vec![WordPart::Literal(first[..=eq].to_string())];
    out.extend(tilde_pass(Word { parts }, true).parts);
    Word { parts: merge_literals(out) }
}

fn valid_tilde_prefix(prefix: &str) -> bool {
    prefix.is_empty()
        || prefix == "+"
        || prefix == "-"
        || prefix.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

#[derive(Clone)]
enum Piece {
    Char(char),
    Part(WordPart),
}

/// Finds brace expressions (`{a,b}`, `{1..5}`) in a word's unquoted text.
pub(crate) fn brace_pass(word: Word) -> Word {
    let has_brace = word.parts.iter().any(|p| matches!(p, WordPart::Literal(t) if t.contains('{')));
    if !has_brace {
        return word;
    }
    let mut pieces = Vec::new();
    for part in word.parts {
        match part {
            WordPart::Literal(text) => pieces.extend(text.chars().map(Piece::Char)),
            other => pieces.push(Piece::Part(other)),
        }
    }
    Word { parts: merge_literals(build(&pieces, 0)) }
}

const MAX_BRACE_DEPTH: u32 = 64;

fn build(pieces: &[Piece], depth: u32) -> Vec<WordPart> {
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut i = 0;
    while i < pieces.len() {
        if let Piece::Char('{') = pieces[i] {
            if depth < MAX_BRACE_DEPTH {
                if let Some((close, expr)) = try_brace(pieces, i, depth) {
                    if !literal.is_empty() {
                        out.push(WordPart::Literal(std::mem::take(&mut literal)));
                    }
                    out.push(WordPart::Brace(Box::new(expr)));
                    i = close + 1;
                    continue;
                }
            }
        }
        match &pieces[i] {
            Piece::Char(c) => literal.push(*c),
            Piece::Part(part) => {
                if !literal.is_empty() {
                    out.push(WordPart::Literal(std::mem::take(&mut literal)));
                }
                out.push(part.clone());
            }
        }
        i += 1;
    }
    if !literal.is_empty() {
        out.push(WordPart::Literal(literal));
    }
    out
}

fn try_brace(pieces: &[Piece], open: usize, depth: u32) -> Option<(usize, BraceExpr)> {
    let mut level = 0usize;
    let mut commas = Vec::new();
    let mut close = None;
    for (j, piece) in pieces.iter().enumerate().skip(open) {
        match piece {
            Piece::Char('{') => level += 1,
            Piece::Char('}') => {
                level -= 1;
                if level == 0 {
                    close = Some(j);
                    break;
                }
            }
            Piece::Char(',') if level == 1 => commas.push(j),
            _ => {}
        }
    }
    let close = close?;
    if !commas.is_empty() {
        let mut alternatives = Vec::new();
        let mut start = open + 1;
        for &comma in commas.iter().chain(std::iter::once(&close)) {
            let parts = merge_literals(build(&pieces[start..comma], depth + 1));
            alternatives.push(Word { parts });
            start = comma + 1;
        }
        return Some((close, BraceExpr::Alternatives(alternatives)));
    }
    let mut inner = String::new();
    for piece in &pieces[open + 1..close] {
        match piece {
            Piece::Char(c) => inner.push(*c),
            Piece::Part(_) => return None,
        }
    }
    sequence(&inner).map(|expr| (close, expr))
}

fn sequence(inner: &str) -> Option<BraceExpr> {
    let pieces: Vec<&str> = inner.split("..").collect();
    if pieces.len() != 2 && pieces.len() != 3 {
        return None;
    }
    let is_int = |s: &str| {
        let digits = s.strip_prefix('-').or_else(|| s.strip_prefix('+')).unwrap_or(s);
        !digits.is_empty() && digits.len() < 19 && digits.bytes().all(|c| c.is_ascii_digit())
    };
    let is_char = |s: &str| s.chars().count() == 1 && s.chars().all(|c| c.is_ascii_alphabetic());
    let ends_ok = (is_int(pieces[0]) && is_int(pieces[1])) || (is_char(pieces[0]) && is_char(pieces[1]));
    if !ends_ok || (pieces.len() == 3 && !is_int(pieces[2])) {
        return None;
    }
    Some(BraceExpr::Sequence {
        start: pieces[0].to_string(),
        end: pieces[1].to_string(),
        step: pieces.get(2).map(|s| s.to_string()),
    })
}
