//! Glob patterns (`*`, `?`, `[...]` with classes, extglob groups) for pathname expansion,
//! `case`, `[[ == ]]` and `${x#pattern}`. Patterns arrive with quoted characters escaped
//! by a backslash (the expander does that), so `"*"` matches only a star.

/// One element of a compiled pattern.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Char(char),
    Any,
    Star,
    Class { negated: bool, items: Vec<ClassItem> },
    Ext(ExtKind, Vec<Vec<Node>>),
}

#[derive(Debug, Clone, PartialEq)]
enum ClassItem {
    Char(char),
    Range(char, char),
    Named(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ExtKind {
    /// `?(...)` zero or one
    Optional,
    /// `*(...)` zero or more
    Any,
    /// `+(...)` one or more
    Some,
    /// `@(...)` exactly one
    One,
    /// `!(...)` anything but
    Not,
}

#[derive(Debug, Clone)]
pub struct Pattern {
    nodes: Vec<Node>,
    nocase: bool,
    has_ext: bool,
}

/// Steps a single match may take before giving up (extglob can be exponential).
const MAX_STEPS: u32 = 2_000_000;

impl Pattern {
    pub fn new(pattern: &str, extglob: bool, nocase: bool) -> Pattern {
        let chars: Vec<char> = pattern.chars().collect();
        let mut pos = 0;
        let nodes = compile(&chars, &mut pos, extglob, false);
        let has_ext = nodes.iter().any(|n| matches!(n, Node::Ext(..)));
        Pattern { nodes, nocase, has_ext }
    }

    /// The pattern is only literal characters.
    pub fn literal(&self) -> Option<String> {
        self.nodes
            .iter()
            .map(|n| match n {
                Node::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    pub fn matches(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        self.matches_chars(&chars)
    }

    pub fn matches_chars(&self, text: &[char]) -> bool {
        if !self.has_ext {
            return simple_match(&self.nodes, text, self.nocase);
        }
        let mut steps = 0;
        full_match(&self.nodes, text, self.nocase, &mut steps)
    }

    /// The length (in chars) of the shortest or longest prefix of `text` matching.
    pub fn match_prefix(&self, text: &[char], longest: bool) -> Option<usize> {
        if longest {
            (0..=text.len()).rev().find(|&k| self.matches_chars(&text[..k]))
        } else {
            (0..=text.len()).find(|&k| self.matches_chars(&text[..k]))
        }
    }

    /// The start (in chars) of the shortest or longest suffix of `text` matching.
    pub fn match_suffix(&self, text: &[char], longest: bool) -> Option<usize> {
        if longest {
            (0..=text.len()).find(|&k| self.matches_chars(&text[k..]))
        } else {
            (0..=text.len()).rev().find(|&k| self.matches_chars(&text[k..]))
        }
    }

    /// The longest match starting at `start`, if any: its end.
    pub fn longest_at(&self, text: &[char], start: usize) -> Option<usize> {
        if let Some(Node::Char(first)) = self.nodes.first() {
            match text.get(start) {
                Some(c) if chars_equal(*c, *first, self.nocase) => {}
                _ => return None,
            }
        }
        (start..=text.len()).rev().find(|&end| self.matches_chars(&text[start..end]))
    }
}

/// Whether a (backslash-escaped) pattern has unescaped glob characters.
pub fn has_glob_chars(pattern: &str, extglob: bool) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '*' | '?' | '[' => return true,
            '+' | '@' | '!' if extglob && chars.get(i + 1) == Some(&'(') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Removes the escaping backslashes (a pattern used literally).
pub fn unescape(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Escapes every pattern character (text to be matched literally).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '(' | ')' | '|' | '@' | '!' | '+') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn compile(chars: &[char], pos: &mut usize, extglob: bool, in_group: bool) -> Vec<Node> {
    let mut nodes = Vec::new();
    while *pos < chars.len() {
        let c = chars[*pos];
        if in_group && (c == '|' || c == ')') {
            break;
        }
        if extglob && matches!(c, '?' | '*' | '+' | '@' | '!') && chars.get(*pos + 1) == Some(&'(') {
            let save = *pos;
            *pos += 2;
            let mut alternatives = Vec::new();
            let mut closed = false;
            loop {
                alternatives.push(compile(chars, pos, extglob, true));
                match chars.get(*pos) {
                    Some('|') => *pos += 1,
                    Some(')') => {
                        *pos += 1;
                        closed = true;
                        break;
                    }
                    _ => break,
                }
            }
            if closed {
                let kind = match c {
                    '?' => ExtKind::Optional,
                    '*' => ExtKind::Any,
                    '+' => ExtKind::Some,
                    '@' => ExtKind::One,
                    _ => ExtKind::Not,
                };
                nodes.push(Node::Ext(kind, alternatives));
                continue;
            }
            *pos = save;
        }
        *pos += 1;
        match c {
            '\\' => match chars.get(*pos) {
                Some(&next) => {
                    *pos += 1;
                    nodes.push(Node::Char(next));
                }
                None => nodes.push(Node::Char('\\')),
            },
            '*' => {
                if nodes.last() != Some(&Node::Star) {
                    nodes.push(Node::Star);
                }
            }
            '?' => nodes.push(Node::Any),
            '[' => match compile_class(chars, *pos) {
                Some((node, end)) => {
                    nodes.push(node);
                    *pos = end;
                }
                None => nodes.push(Node::Char('[')),
            },
            other => nodes.push(Node::Char(other)),
        }
    }
    nodes
}

/// Parses a bracket expression whose `[` is just before `start`; returns it and the index
/// after its `]`, or `None` when it is not closed (then `[` is an ordinary character).
fn compile_class(chars: &[char], start: usize) -> Option<(Node, usize)> {
    let mut i = start;
    let mut negated = false;
    if matches!(chars.get(i), Some('!') | Some('^')) {
        negated = true;
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        if c == ']' && !first {
            return Some((Node::Class { negated, items }, i + 1));
        }
        first = false;
        if c == '[' && chars.get(i + 1) == Some(&':') {
            if let Some(end) = (i + 2..chars.len().saturating_sub(1)).find(|&j| chars[j] == ':' && chars[j + 1] == ']') {
                items.push(ClassItem::Named(chars[i + 2..end].iter().collect()));
                i = end + 2;
                continue;
            }
        }
        let (low, next) = if c == '\\' && i + 1 < chars.len() { (chars[i + 1], i + 2) } else { (c, i + 1) };
        if chars.get(next) == Some(&'-') && chars.get(next + 1).map_or(false, |&h| h != ']') {
            let (high, after) = if chars[next + 1] == '\\' && next + 2 < chars.len() { (chars[next + 2], next + 3) } else { (chars[next + 1], next + 2) };
            items.push(ClassItem::Range(low, high));
            i = after;
        } else {
            items.push(ClassItem::Char(low));
            i = next;
        }
    }
}

fn chars_equal(a: char, b: char, nocase: bool) -> bool {
    a == b || (nocase && a.to_lowercase().eq(b.to_lowercase()))
}

fn class_matches(negated: bool, items: &[ClassItem], c: char, nocase: bool) -> bool {
    let hit = |c: char| {
        items.iter().any(|item| match item {
            ClassItem::Char(x) => *x == c,
            ClassItem::Range(low, high) => *low <= c && c <= *high,
            ClassItem::Named(name) => named_class(name, c),
        })
    };
    let found = hit(c) || (nocase && (hit(c.to_ascii_lowercase()) || hit(c.to_ascii_uppercase())));
    found != negated
}

/// `[:name:]` character classes.
pub(crate) fn named_class(name: &str, c: char) -> bool {
    match name {
        "alnum" => c.is_alphanumeric(),
        "alpha" => c.is_alphabetic(),
        "ascii" => c.is_ascii(),
        "blank" => c == ' ' || c == '\t',
        "cntrl" => c.is_control(),
        "digit" => c.is_ascii_digit(),
        "graph" => !c.is_control() && !c.is_whitespace() && c != ' ',
        "lower" => c.is_lowercase(),
        "print" => !c.is_control(),
        "punct" => c.is_ascii_punctuation(),
        "space" => c.is_whitespace(),
        "upper" => c.is_uppercase(),
        "word" => c.is_alphanumeric() || c == '_',
        "xdigit" => c.is_ascii_hexdigit(),
        _ => false,
    }
}

fn single_matches(node: &Node, c: char, nocase: bool) -> bool {
    match node {
        Node::Char(x) => chars_equal(*x, c, nocase),
        Node::Any => true,
        Node::Class { negated, items } => class_matches(*negated, items, c, nocase),
        _ => false,
    }
}

/// Linear-time matching for patterns without extglob groups (the usual two-pointer star
/// backtracking).
fn simple_match(pattern: &[Node], text: &[char], nocase: bool) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] != Node::Star && single_matches(&pattern[p], text[t], nocase) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == Node::Star {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while p < pattern.len() && pattern[p] == Node::Star {
        p += 1;
    }
    p == pattern.len()
}

fn full_match(pattern: &[Node], text: &[char], nocase: bool, steps: &mut u32) -> bool {
    *steps += 1;
    if *steps > MAX_STEPS {
        return false;
    }
    let node = match pattern.first() {
        Some(node) => node,
        None => return text.is_empty(),
    };
    let rest = &pattern[1..];
    match node {
        Node::Star => (0..=text.len()).any(|k| full_match(rest, &text[k..], nocase, steps)),
        Node::Ext(kind, alternatives) => (0..=text.len()).any(|k| {
            let head = &text[..k];
            let ok = match kind {
                ExtKind::One => any_alternative(alternatives, head, nocase, steps),
                ExtKind::Optional => k == 0 || any_alternative(alternatives, head, nocase, steps),
                ExtKind::Some => repeated(alternatives, head, nocase, steps),
                ExtKind::Any => k == 0 || repeated(alternatives, head, nocase, steps),
                ExtKind::Not => !any_alternative(alternatives, head, nocase, steps),
            };
            ok && full_match(rest, &text[k..], nocase, steps)
        }),
        single => !text.is_empty() && single_matches(single, text[0], nocase) && full_match(rest, &text[1..], nocase, steps),
    }
}

fn any_alternative(alternatives: &[Vec<Node>], text: &[char], nocase: bool, steps: &mut u32) -> bool {
    alternatives.iter().any(|alt| full_match(alt, text, nocase, steps))
}

/// One or more alternatives, concatenated, make up `text`.
fn repeated(alternatives: &[Vec<Node>], text: &[char], nocase: bool, steps: &mut u32) -> bool {
    if text.is_empty() {
        return false;
    }
    (1..=text.len()).any(|k| {
        any_alternative(alternatives, &text[..k], nocase, steps) && (k == text.len() || repeated(alternatives, &text[k..], nocase, steps))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, text: &str) -> bool {
        Pattern::new(pattern, true, false).matches(text)
    }

    #[test]
    fn basics() {
        assert!(m("*.txt", "a.txt"));
        assert!(!m("*.txt", "a.txd"));
        assert!(m("a?c", "abc"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[!a-c]x", "dx"));
        assert!(m("[[:digit:]]*", "1abc"));
        assert!(m("\\*", "*"));
        assert!(!m("\\*", "a"));
        assert!(m("[]]", "]"));
        assert!(m("[", "["));
        assert!(m("*a*b*c*", "xxaxxbxxcxx"));
    }

    #[test]
    fn extglob() {
        assert!(m("@(a|b)", "a"));
        assert!(!m("@(a|b)", "ab"));
        assert!(m("+(ab)", "ababab"));
        assert!(m("*(x)y", "y"));
        assert!(m("!(*.txt)", "a.md"));
        assert!(!m("!(*.txt)", "a.txt"));
        assert!(m("?(a)b", "ab"));
    }

    #[test]
    fn prefix_and_suffix() {
        let text: Vec<char> = "a.b.c".chars().collect();
        let p = Pattern::new("*.", false, false);
        assert_eq!(p.match_prefix(&text, false), Some(2));
        assert_eq!(p.match_prefix(&text, true), Some(4));
        let s = Pattern::new(".*", false, false);
        assert_eq!(s.match_suffix(&text, false), Some(3));
        assert_eq!(s.match_suffix(&text, true), Some(1));
    }

    #[test]
    fn nocase() {
        assert!(Pattern::new("abc", false, true).matches("ABC"));
        assert!(Pattern::new("[a-c]", false, true).matches("B"));
    }
}
