//! Brace expansion at run time: the parser marked `{a,b}` and `{1..5}`; here they become
//! one word per alternative (nested and adjacent braces multiply).

use shell_parser::ast::{BraceExpr, Word, WordPart};

/// More words than this from one word is surely a mistake; stop growing there.
const MAX_WORDS: usize = 1 << 20;

pub(super) fn expand(word: &Word) -> Vec<Word> {
    let mut results: Vec<Vec<WordPart>> = vec![Vec::new()];
    for part in &word.parts {
        match part {
            WordPart::Brace(expr) => {
                let alternatives: Vec<Word> = match &**expr {
                    BraceExpr::Alternatives(words) => words.iter().flat_map(expand).collect(),
                    BraceExpr::Sequence { start, end, step } => {
                        sequence(start, end, step.as_deref()).into_iter().map(|s| Word::literal(&s)).collect()
                    }
                };
                let mut next = Vec::with_capacity(results.len() * alternatives.len());
                'outer: for prefix in &results {
                    for alternative in &alternatives {
                        if next.len() >= MAX_WORDS {
                            break 'outer;
                        }
                        let mut parts = prefix.clone();
                        parts.extend(alternative.parts.iter().cloned());
                        next.push(parts);
                    }
                }
                results = next;
            }
            other => {
                for parts in results.iter_mut() {
                    parts.push(other.clone());
                }
            }
        }
    }
    // Brace expansion comes before tilde expansion: `{~,~/x}` gives two tildes to expand.
    let leading_brace = matches!(word.parts.first(), Some(WordPart::Brace(_)));
    results
        .into_iter()
        .map(|parts| {
            if leading_brace {
                shell_parser::tilde_pass(Word { parts: joined_literals(parts) }, false)
            } else {
                Word { parts }
            }
        })
        .collect()
}

/// Adjacent literal parts as one (a tilde prefix may span them: `{~root,~}/z`).
fn joined_literals(parts: Vec<WordPart>) -> Vec<WordPart> {
    let mut out: Vec<WordPart> = Vec::with_capacity(parts.len());
    for part in parts {
        if let (Some(WordPart::Literal(previous)), WordPart::Literal(text)) = (out.last_mut(), &part) {
            previous.push_str(text);
            continue;
        }
        out.push(part);
    }
    out
}

/// `{1..10..2}`, `{05..1}`, `{a..e}`: the generated strings.
pub(super) fn sequence(start: &str, end: &str, step: Option<&str>) -> Vec<String> {
    let step = step.and_then(|s| s.parse::<i64>().ok()).map(|s| s.unsigned_abs().max(1) as i64).unwrap_or(1);
    if let (Ok(a), Ok(b)) = (start.parse::<i64>(), end.parse::<i64>()) {
        let padded = |s: &str| {
            let digits = s.trim_start_matches('-');
            digits.len() > 1 && digits.starts_with('0')
        };
        let width = if padded(start) || padded(end) { start.len().max(end.len()) } else { 0 };
        let mut out = Vec::new();
        let mut value = a;
        loop {
            out.push(if width > 0 { pad(value, width) } else { value.to_string() });
            if out.len() >= MAX_WORDS {
                break;
            }
            if a <= b {
                value = match value.checked_add(step) {
                    Some(v) if v <= b => v,
                    _ => break,
                };
            } else {
                value = match value.checked_sub(step) {
                    Some(v) if v >= b => v,
                    _ => break,
                };
            }
        }
        return out;
    }
    let (a, b) = match (start.chars().next(), end.chars().next()) {
        (Some(a), Some(b)) => (a as u32, b as u32),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    let mut value = a;
    loop {
        if let Some(c) = char::from_u32(value) {
            out.push(c.to_string());
        }
        if a <= b {
            value += step as u32;
            if value > b {
                break;
            }
        } else {
            if value < b + step as u32 {
                break;
            }
            value -= step as u32;
        }
    }
    out
}

fn pad(value: i64, width: usize) -> String {
    if value < 0 {
        format!("-{:0>width$}", -value, width = width - 1)
    } else {
        format!("{:0>width$}", value, width = width)
    }
}

#[cfg(test)]
mod tests {
    use super::sequence;

    #[test]
    fn sequences() {
        assert_eq!(sequence("1", "5", Some("2")), ["1", "3", "5"]);
        assert_eq!(sequence("3", "1", None), ["3", "2", "1"]);
        assert_eq!(sequence("01", "3", None), ["01", "02", "03"]);
        assert_eq!(sequence("a", "e", Some("2")), ["a", "c", "e"]);
        assert_eq!(sequence("e", "a", Some("2")), ["e", "c", "a"]);
        assert_eq!(sequence("-2", "2", Some("2")), ["-2", "0", "2"]);
    }
}
