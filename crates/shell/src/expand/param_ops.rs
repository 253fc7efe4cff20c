//! The string operations behind `${x/p/r}` and `${x^^}`.

use shell_parser::ast::{CaseMode, ReplaceMode};

use crate::pattern::Pattern;

#[derive(Debug, Clone)]
pub(super) enum Piece {
    Text(String),
    Match,
}

pub(super) fn replace(text: &str, pattern: &Pattern, template: &[Piece], mode: ReplaceMode, empty_pattern: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let render = |matched: &[char]| -> String {
        template
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Match => matched.iter().collect(),
            })
            .collect()
    };
    match mode {
        ReplaceMode::Prefix => match pattern.longest_at(&chars, 0) {
            Some(end) => format!("{}{}", render(&chars[..end]), chars[end..].iter().collect::<String>()),
            None => text.to_string(),
        },
        ReplaceMode::Suffix => match pattern.match_suffix(&chars, true) {
            Some(start) => format!("{}{}", chars[..start].iter().collect::<String>(), render(&chars[start..])),
            None => text.to_string(),
        },
        ReplaceMode::First | ReplaceMode::All => {
            if empty_pattern {
                return text.to_string();
            }
            // Bash matches an empty value as a whole (`${y//*(z)/Q}` is `Q`), where in a
            // longer one it never tries the empty match at the end.
            if chars.is_empty() {
                return if pattern.longest_at(&chars, 0).is_some() { render(&[]) } else { String::new() };
            }
            let literal = pattern.literal();
            let mut out = String::with_capacity(text.len());
            let mut i = 0;
            let mut replaced = false;
            while i <= chars.len() {
                if replaced && mode == ReplaceMode::First {
                    out.extend(&chars[i..]);
                    break;
                }
                let found = match &literal {
                    Some(lit) => {
                        let lit: Vec<char> = lit.chars().collect();
                        if !lit.is_empty() && chars[i..].starts_with(&lit) {
                            Some(i + lit.len())
                        } else {
                            None
                        }
                    }
                    None => pattern.longest_at(&chars, i),
                };
                match found {
                    Some(end) if end > i => {
                        out.push_str(&render(&chars[i..end]));
                        i = end;
                        replaced = true;
                    }
                    // A pattern that matches the empty string before a character (`*(z)`,
                    // `?(b)`, `!(a*)`) replaces it there, as bash does; never at the end.
                    Some(_) if i < chars.len() => {
                        out.push_str(&render(&[]));
                        out.push(chars[i]);
                        i += 1;
                        replaced = true;
                    }
                    _ => {
                        if i < chars.len() {
                            out.push(chars[i]);
                        }
                        i += 1;
                    }
                }
            }
            out
        }
    }
}

pub(super) fn change_case(text: &str, mode: CaseMode, all: bool, pattern: Option<&Pattern>) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        let applies = (all || i == 0) && pattern.map_or(true, |p| p.matches(&c.to_string()));
        if !applies {
            out.push(c);
            continue;
        }
        match mode {
            CaseMode::Upper => out.extend(c.to_uppercase()),
            CaseMode::Lower => out.extend(c.to_lowercase()),
            CaseMode::Toggle => {
                if c.is_uppercase() {
                    out.extend(c.to_lowercase())
                } else {
                    out.extend(c.to_uppercase())
                }
            }
        }
    }
    out
}

