//! POSIX extended regular expressions for `[[ string =~ regex ]]`, matched the way glibc
//! does (leftmost-longest, with GNU's `\w \s \b \< \>` and back-references). A small
//! backtracker rather than the `regex` crate: it keeps the shell binary small and gives
//! POSIX longest-match answers, which bash users see in BASH_REMATCH.

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Char(char),
    Any,
    Class { negated: bool, items: Vec<Item> },
    Start,
    End,
    WordBoundary(bool),
    WordStart,
    WordEnd,
    Group(usize, Box<Node>),
    Alt(Vec<Node>),
    Concat(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
    Backref(usize),
}

#[derive(Debug, Clone, PartialEq)]
enum Item {
    Char(char),
    Range(char, char),
    Named(String),
}

#[derive(Debug, Clone)]
pub struct Regex {
    root: Node,
    groups: usize,
    nocase: bool,
}

/// A syntax error in the regex (bash then returns 2 from `[[ ]]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError(pub String);

/// Work bound for one search: pathological patterns give up rather than hang.
const MAX_STEPS: u64 = 5_000_000;
/// glibc's RE_DUP_MAX.
const MAX_REPEAT: u32 = 32767;
const MAX_DEPTH: u32 = 200;

impl Regex {
    pub fn new(pattern: &str, nocase: bool) -> Result<Regex, RegexError> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut parser = RegexParser { chars: &chars, pos: 0, groups: 0, depth: 0, open: 0 };
        let root = parser.alternation()?;
        Ok(Regex { root, groups: parser.groups, nocase })
    }

    /// The whole match and each group (`None` for groups that did not take part), or
    /// `None` when nothing matches.
    pub fn captures(&self, text: &str) -> Option<Vec<Option<String>>> {
        let chars: Vec<char> = text.chars().collect();
        let mut matcher = Matcher { text: &chars, caps: vec![None; self.groups + 1], steps: 0, nocase: self.nocase };
        for start in 0..=chars.len() {
            let mut best: Option<(usize, Vec<Option<(usize, usize)>>)> = None;
            let text_len = chars.len();
            matcher.caps.iter_mut().for_each(|c| *c = None);
            matcher.run(&self.root, start, &mut |m: &mut Matcher, end: usize| {
                if best.as_ref().map_or(true, |(e, _)| end > *e) {
                    best = Some((end, m.caps.clone()));
                }
                end == text_len || m.steps > MAX_STEPS
            });
            if let Some((end, caps)) = best {
                let mut out = vec![Some(chars[start..end].iter().collect())];
                for cap in caps.into_iter().skip(1) {
                    out.push(cap.map(|(a, b)| chars[a..b].iter().collect()));
                }
                return Some(out);
            }
            if matcher.steps > MAX_STEPS {
                return None;
            }
        }
        None
    }
}

/// Escapes text to match literally (quoted parts of the right side of `=~`).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.[]()*+?{}|^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

struct RegexParser<'a> {
    chars: &'a [char],
    pos: usize,
    groups: usize,
    depth: u32,
    /// Groups open around the current position (a `)` outside any is a literal, as in
    /// glibc).
    open: u32,
}

impl<'a> RegexParser<'a> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn alternation(&mut self) -> Result<Node, RegexError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(RegexError("Regular expression too big".to_string()));
        }
        let mut branches = vec![self.branch()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            branches.push(self.branch()?);
        }
        self.depth -= 1;
        Ok(if branches.len() == 1 { branches.pop().unwrap_or(Node::Concat(Vec::new())) } else { Node::Alt(branches) })
    }

    fn branch(&mut self) -> Result<Node, RegexError> {
        let mut nodes: Vec<Node> = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || (c == ')' && self.open > 0) {
                break;
            }
            // A repetition needs something to repeat: glibc refuses one at the start of a
            // branch or right after `^`.
            if matches!(c, '*' | '+' | '?' | '{') && nodes.is_empty() {
                return Err(RegexError("Invalid preceding regular expression".to_string()));
            }
            let atom = self.atom()?;
            if atom == Node::Start && matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
                return Err(RegexError("Invalid preceding regular expression".to_string()));
            }
            let atom = self.repetitions(atom)?;
            nodes.push(atom);
        }
        Ok(Node::Concat(nodes))
    }

    fn atom(&mut self) -> Result<Node, RegexError> {
        let c = self.peek().unwrap_or('\0');
        self.pos += 1;
        Ok(match c {
            '(' => {
                self.groups += 1;
                let index = self.groups;
                self.open += 1;
                let inner = self.alternation()?;
                self.open -= 1;
                if self.peek() != Some(')') {
                    return Err(RegexError("Unmatched ( or \\(".to_string()));
                }
                self.pos += 1;
                Node::Group(index, Box::new(inner))
            }
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '[' => self.bracket()?,
            '\\' => {
                let e = match self.peek() {
                    Some(e) => e,
                    None => return Err(RegexError("Trailing backslash".to_string())),
                };
                self.pos += 1;
                match e {
                    'w' => word_class(false),
                    'W' => word_class(true),
                    's' => Node::Class { negated: false, items: vec![Item::Named("space".into())] },
                    'S' => Node::Class { negated: true, items: vec![Item::Named("space".into())] },
                    'b' => Node::WordBoundary(true),
                    'B' => Node::WordBoundary(false),
                    '<' => Node::WordStart,
                    '>' => Node::WordEnd,
                    '`' => Node::Start,
                    '\'' => Node::End,
                    '1'..='9' => {
                        let n = e as usize - '0' as usize;
                        if n > self.groups {
                            return Err(RegexError("Invalid back reference".to_string()));
                        }
                        Node::Backref(n)
                    }
                    other => Node::Char(other),
                }
            }
            other => Node::Char(other),
        })
    }

    fn repetitions(&mut self, mut atom: Node) -> Result<Node, RegexError> {
        loop {
            let (min, max) = match self.peek() {
                Some('*') => {
                    self.pos += 1;
                    (0, None)
                }
                Some('+') => {
                    self.pos += 1;
                    (1, None)
                }
                Some('?') => {
                    self.pos += 1;
                    (0, Some(1))
                }
                Some('{') => match self.bound() {
                    Some(bound) => {
                        self.pos += 1;
                        bound
                    }
                    // In an ERE `{` always starts an interval.
                    None => return Err(RegexError("Invalid content of \\{\\}".to_string())),
                },
                _ => return Ok(atom),
            };
            if max.map_or(false, |m| m < min) || min > MAX_REPEAT || max.map_or(false, |m| m > MAX_REPEAT) {
                return Err(RegexError("Invalid content of \\{\\}".to_string()));
            }
            atom = Node::Repeat(Box::new(atom), min, max);
        }
    }

    /// `{m}`, `{m,}`, `{m,n}` at the current position (consumed), or `None` (then `{` is
    /// an ordinary character).
    fn bound(&mut self) -> Option<(u32, Option<u32>)> {
        let start = self.pos;
        let mut i = self.pos + 1;
        let digits = |i: &mut usize, chars: &[char]| -> Option<u32> {
            let begin = *i;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                *i += 1;
            }
            if *i == begin {
                None
            } else {
                chars[begin..*i].iter().collect::<String>().parse().ok()
            }
        };
        // `{,n}` is `{0,n}` for glibc.
        let min = if self.chars.get(i) == Some(&',') { 0 } else { digits(&mut i, self.chars)? };
        let max = if self.chars.get(i) == Some(&',') {
            i += 1;
            digits(&mut i, self.chars)
        } else {
            Some(min)
        };
        if self.chars.get(i) != Some(&'}') {
            self.pos = start;
            return None;
        }
        // Leave the position on the `}` so `repetitions` steps over it.
        self.pos = i;
        Some((min, max))
    }

    fn bracket(&mut self) -> Result<Node, RegexError> {
        let mut negated = false;
        if self.peek() == Some('^') {
            negated = true;
            self.pos += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return Err(RegexError("Unmatched [, [^, [:, [., or [=".to_string())),
            };
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            if c == '[' && matches!(self.chars.get(self.pos + 1), Some(':') | Some('=') | Some('.')) {
                let kind = self.chars[self.pos + 1];
                let body_start = self.pos + 2;
                let end = (body_start..self.chars.len().saturating_sub(1)).find(|&j| self.chars[j] == kind && self.chars[j + 1] == ']');
                if let Some(end) = end {
                    let body: String = self.chars[body_start..end].iter().collect();
                    self.pos = end + 2;
                    if kind == ':' {
                        if !POSIX_CLASSES.contains(&body.as_str()) {
                            return Err(RegexError("Invalid character class name".to_string()));
                        }
                        items.push(Item::Named(body));
                    } else if body.chars().count() == 1 {
                        items.extend(body.chars().map(Item::Char));
                    } else {
                        // Only single characters collate in the C locale.
                        return Err(RegexError("Invalid collation character".to_string()));
                    }
                    continue;
                }
            }
            self.pos += 1;
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).map_or(false, |&n| n != ']') {
                let high = self.chars[self.pos + 1];
                self.pos += 2;
                if high < c {
                    return Err(RegexError("Invalid range end".to_string()));
                }
                items.push(Item::Range(c, high));
            } else {
                items.push(Item::Char(c));
            }
        }
        Ok(Node::Class { negated, items })
    }
}

/// The class names a bracket expression may use (`[[:alpha:]]`).
const POSIX_CLASSES: [&str; 12] = ["alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit"];

fn word_class(negated: bool) -> Node {
    Node::Class { negated, items: vec![Item::Named("word".into())] }
}

struct Matcher<'a> {
    text: &'a [char],
    caps: Vec<Option<(usize, usize)>>,
    steps: u64,
    nocase: bool,
}

type Cont<'k> = dyn FnMut(&mut Matcher, usize) -> bool + 'k;

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl<'a> Matcher<'a> {
    fn same(&self, a: char, b: char) -> bool {
        a == b || (self.nocase && a.to_lowercase().eq(b.to_lowercase()))
    }

    fn class_matches(&self, negated: bool, items: &[Item], c: char) -> bool {
        let test = |c: char| {
            items.iter().any(|item| match item {
                Item::Char(x) => *x == c,
                Item::Range(lo, hi) => *lo <= c && c <= *hi,
                Item::Named(name) => crate::pattern::named_class(name, c),
            })
        };
        let hit = test(c) || (self.nocase && (test(c.to_ascii_lowercase()) || test(c.to_ascii_uppercase())));
        hit != negated
    }

    fn word_at(&self, pos: usize) -> bool {
        self.text.get(pos).map_or(false, |&c| is_word(c))
    }

    fn word_before(&self, pos: usize) -> bool {
        pos > 0 && is_word(self.text[pos - 1])
    }

    /// Matches `node` at `pos`, calling `k` with each possible end (most preferred first)
    /// until it returns true.
    fn run(&mut self, node: &Node, pos: usize, k: &mut Cont) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return false;
        }
        match node {
            Node::Char(c) => pos < self.text.len() && self.same(self.text[pos], *c) && k(self, pos + 1),
            Node::Any => pos < self.text.len() && k(self, pos + 1),
            Node::Class { negated, items } => pos < self.text.len() && self.class_matches(*negated, items, self.text[pos]) && k(self, pos + 1),
            Node::Start => pos == 0 && k(self, pos),
            Node::End => pos == self.text.len() && k(self, pos),
            Node::WordBoundary(at) => (self.word_before(pos) != self.word_at(pos)) == *at && k(self, pos),
            Node::WordStart => !self.word_before(pos) && self.word_at(pos) && k(self, pos),
            Node::WordEnd => self.word_before(pos) && !self.word_at(pos) && k(self, pos),
            Node::Backref(n) => {
                let (a, b) = match self.caps.get(*n).copied().flatten() {
                    Some(span) => span,
                    None => return false,
                };
                let len = b - a;
                if pos + len > self.text.len() {
                    return false;
                }
                let equal = (0..len).all(|i| self.same(self.text[a + i], self.text[pos + i]));
                equal && k(self, pos + len)
            }
            Node::Group(index, inner) => {
                let index = *index;
                let saved = self.caps[index];
                let found = self.run(inner, pos, &mut |m: &mut Matcher, end: usize| {
                    let before = m.caps[index];
                    m.caps[index] = Some((pos, end));
                    if k(m, end) {
                        return true;
                    }
                    m.caps[index] = before;
                    false
                });
                if !found {
                    self.caps[index] = saved;
                }
                found
            }
            Node::Alt(branches) => branches.iter().any(|branch| self.run(branch, pos, k)),
            Node::Concat(nodes) => self.sequence(nodes, pos, k),
            Node::Repeat(inner, min, max) => self.repeat(inner, *min, *max, 0, pos, k),
        }
    }

    fn sequence(&mut self, nodes: &[Node], pos: usize, k: &mut Cont) -> bool {
        match nodes.split_first() {
            None => k(self, pos),
            Some((first, rest)) => self.run(first, pos, &mut |m: &mut Matcher, next: usize| m.sequence(rest, next, k)),
        }
    }

    fn repeat(&mut self, inner: &Node, min: u32, max: Option<u32>, count: u32, pos: usize, k: &mut Cont) -> bool {
        if max.map_or(true, |m| count < m) {
            let found = self.run(inner, pos, &mut |m: &mut Matcher, next: usize| {
                // An iteration that matched nothing cannot make progress.
                if next == pos && count >= min {
                    return false;
                }
                m.repeat(inner, min, max, count + 1, next, k)
            });
            if found {
                return true;
            }
        }
        count >= min && k(self, pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(pattern: &str, text: &str) -> Option<Vec<String>> {
        Regex::new(pattern, false).unwrap().captures(text).map(|c| c.into_iter().map(|g| g.unwrap_or_default()).collect())
    }

    #[test]
    fn basic_matches() {
        assert_eq!(caps("^[0-9]+$", "123"), Some(vec!["123".into()]));
        assert_eq!(caps("^[0-9]+$", "12a"), None);
        assert_eq!(caps("b+", "abbbc"), Some(vec!["bbb".into()]));
        assert_eq!(caps("([a-z]+)@([a-z]+)", "x joe@host y"), Some(vec!["joe@host".into(), "joe".into(), "host".into()]));
    }

    #[test]
    fn leftmost_longest() {
        assert_eq!(caps("(a|ab)(c|bcd)", "abcd"), Some(vec!["abcd".into(), "a".into(), "bcd".into()]));
        assert_eq!(caps("a|ab", "ab"), Some(vec!["ab".into()]));
    }

    #[test]
    fn bounds_classes_and_backrefs() {
        assert_eq!(caps("^a{2,3}$", "aaa"), Some(vec!["aaa".into()]));
        assert_eq!(caps("^a{2,3}$", "aaaa"), None);
        assert_eq!(caps("[[:upper:]][[:digit:]]", "xA1"), Some(vec!["A1".into()]));
        assert_eq!(caps("(a)\\1", "aa"), Some(vec!["aa".into(), "a".into()]));
        assert_eq!(caps("^a{,2}$", "aa"), Some(vec!["aa".into()]));
        assert_eq!(caps("a)", "a)"), Some(vec!["a)".into()]));
    }

    #[test]
    fn errors_as_glibc() {
        for bad in ["x{", "a{1", "a{x}", "*a", "+a", "(?a)", "a|{1}", "^*", "[z-a]", "[[:word:]]", "[[.hyphen.]]", "(a"] {
            assert!(Regex::new(bad, false).is_err(), "{}", bad);
        }
    }

    #[test]
    fn pathological_patterns_end() {
        let text = "a".repeat(30) + "c";
        assert_eq!(caps("(a*)*b", &text), None);
    }
}
