//! POSIX regular expressions (GNU flavour) parsed into a small syntax tree.
//!
//! BRE: `\( \) \{ \} \| \+ \?` are operators, `* ` is literal at the start of an expression
//! (or after `\(`, `\|`, `^`), `^`/`$` are anchors only at the ends of an expression or a
//! group. ERE: `( ) { } | + ? *` are operators; a `*`/`+`/`?`/interval with nothing to
//! repeat is ignored, as GNU does; a `{` that does not start a valid interval is literal.
//! Both: back-references `\1`–`\9`, bracket expressions with `[:class:]`, `[=c=]`, `[.c.]`,
//! and the GNU escapes `\w \W \s \S \b \B \< \> \` \'`.

use super::RegexError;

/// A named character class (`[:alpha:]` …), evaluated on Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    Alpha,
    Digit,
    Alnum,
    Upper,
    Lower,
    Space,
    Blank,
    Punct,
    Print,
    Graph,
    Cntrl,
    Xdigit,
    /// `\w`: alphanumerics and `_`.
    Word,
}

impl Named {
    fn from_name(name: &[u8]) -> Option<Named> {
        Some(match name {
            b"alpha" => Named::Alpha,
            b"digit" => Named::Digit,
            b"alnum" => Named::Alnum,
            b"upper" => Named::Upper,
            b"lower" => Named::Lower,
            b"space" => Named::Space,
            b"blank" => Named::Blank,
            b"punct" => Named::Punct,
            b"print" => Named::Print,
            b"graph" => Named::Graph,
            b"cntrl" => Named::Cntrl,
            b"xdigit" => Named::Xdigit,
            _ => return None,
        })
    }

    /// Whether `c` is in the class (glibc's C.UTF-8 classification, approximately).
    pub fn contains(self, c: char) -> bool {
        match self {
            Named::Alpha => c.is_alphabetic(),
            Named::Digit => c.is_ascii_digit(),
            Named::Alnum => c.is_alphabetic() || c.is_ascii_digit(),
            Named::Upper => c.is_uppercase(),
            Named::Lower => c.is_lowercase(),
            Named::Space => c.is_whitespace(),
            Named::Blank => c == ' ' || c == '\t' || (c != '\u{a0}' && !c.is_ascii() && c.is_whitespace() && c != '\u{2028}' && c != '\u{2029}' && c != '\u{85}'),
            Named::Punct => is_punct(c),
            Named::Print => !c.is_control() && !is_unassigned_like(c),
            Named::Graph => !c.is_control() && !c.is_whitespace() && !is_unassigned_like(c),
            Named::Cntrl => c.is_control(),
            Named::Xdigit => c.is_ascii_hexdigit(),
            Named::Word => c.is_alphanumeric() || c == '_',
        }
    }
}

fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_punctuation()
    } else {
        !c.is_alphanumeric() && !c.is_whitespace() && !c.is_control() && !is_unassigned_like(c)
    }
}

fn is_unassigned_like(c: char) -> bool {
    // Surrogates cannot be chars; private use and non-characters count as printable in glibc.
    c == '\u{fffe}' || c == '\u{ffff}'
}

/// One member of a bracket expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassItem {
    Range(char, char),
    Named(Named),
    /// A byte that is not valid UTF-8 in the pattern (matches that raw byte).
    Byte(u8),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    pub negated: bool,
    pub items: Vec<ClassItem>,
}

/// Zero-width assertions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assertion {
    LineStart,
    LineEnd,
    TextStart,
    TextEnd,
    WordBoundary,
    NotWordBoundary,
    WordStart,
    WordEnd,
    /// grep -w: the match is not preceded by a word character.
    NotWordBefore,
    /// grep -w: the match is not followed by a word character.
    NotWordAfter,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Empty,
    Char(char),
    /// A pattern byte that is not valid UTF-8.
    Byte(u8),
    Any,
    Class(Box<Class>),
    Assert(Assertion),
    /// A capturing group with its number (1-based).
    Group(Box<Node>, usize),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
    Backref(usize),
}

/// GNU's limit on interval counts (RE_DUP_MAX).
const DUP_MAX: u32 = 32767;

pub struct Parser<'a> {
    pattern: &'a [u8],
    pos: usize,
    extended: bool,
    /// Groups opened so far (numbering continues across several patterns of one grep).
    pub groups: usize,
    /// Groups whose `)` has been seen: back-references may only name those.
    closed: Vec<usize>,
    depth: usize,
}

impl<'a> Parser<'a> {
    pub fn new(pattern: &'a [u8], extended: bool, group_base: usize) -> Parser<'a> {
        Parser { pattern, pos: 0, extended, groups: group_base, closed: Vec::new(), depth: 0 }
    }

    /// Parses the whole pattern.
    pub fn parse(&mut self) -> Result<Node, RegexError> {
        let node = self.alternation()?;
        if self.pos < self.pattern.len() {
            // Only an unmatched close paren stops the top level early.
            return Err(RegexError::UnmatchedParenClose);
        }
        Ok(node)
    }

    fn peek(&self) -> Option<u8> {
        self.pattern.get(self.pos).copied()
    }

    fn at_alt_bar(&self) -> bool {
        if self.extended {
            self.peek() == Some(b'|')
        } else {
            self.pattern[self.pos..].starts_with(b"\\|")
        }
    }

    fn at_group_close(&self) -> bool {
        if self.extended {
            self.peek() == Some(b')') && self.depth > 0
        } else {
            self.pattern[self.pos..].starts_with(b"\\)")
        }
    }

    fn alternation(&mut self) -> Result<Node, RegexError> {
        let mut branches = vec![self.branch()?];
        while self.at_alt_bar() {
            self.pos += if self.extended { 1 } else { 2 };
            branches.push(self.branch()?);
        }
        Ok(if branches.len() == 1 { branches.pop().unwrap_or(Node::Empty) } else { Node::Alt(branches) })
    }

    fn branch(&mut self) -> Result<Node, RegexError> {
        let mut items: Vec<Node> = Vec::new();
        let branch_start = self.pos;
        loop {
            if self.pos >= self.pattern.len() || self.at_alt_bar() || self.at_group_close() {
                break;
            }
            if !self.extended && self.pattern[self.pos..].starts_with(b"\\)") {
                return Err(RegexError::UnmatchedParenClose);
            }
            let at_start = self.pos == branch_start || (items.len() == 1 && items[0] == Node::Assert(Assertion::LineStart));
            let c = self.pattern[self.pos];
            // Repetition operators.
            if let Some((min, max)) = self.repetition(at_start)? {
                match items.pop() {
                    Some(Node::Assert(a)) if !self.extended || a == Assertion::LineStart => {
                        // `^*` in BRE: the star is literal (handled by repetition returning None).
                        items.push(Node::Assert(a));
                    }
                    Some(prev) => items.push(Node::Repeat(Box::new(prev), min, max)),
                    None => {}
                }
                continue;
            }
            self.pos += 1;
            let node = match c {
                b'^' if self.extended || at_start => Node::Assert(Assertion::LineStart),
                b'$' if self.extended || self.at_branch_end() => Node::Assert(Assertion::LineEnd),
                b'.' => Node::Any,
                b'[' => self.bracket()?,
                b'(' if self.extended => self.group()?,
                b')' if self.extended => Node::Char(')'),
                b'\\' => self.escape()?,
                _ => {
                    self.pos -= 1;
                    self.literal()
                }
            };
            items.push(node);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    fn at_branch_end(&self) -> bool {
        self.pos >= self.pattern.len() || self.at_alt_bar() || (!self.extended && self.pattern[self.pos..].starts_with(b"\\)"))
    }

    /// A repetition operator at the cursor: consumes it and returns its bounds. In BRE a `*`
    /// at the start of an expression is an ordinary character (returns None).
    fn repetition(&mut self, at_start: bool) -> Result<Option<(u32, Option<u32>)>, RegexError> {
        let rest = &self.pattern[self.pos..];
        if rest.first() == Some(&b'*') {
            if !self.extended && at_start {
                return Ok(None);
            }
            self.pos += 1;
            return Ok(Some((0, None)));
        }
        let (plus, question, brace): (&[u8], &[u8], &[u8]) = if self.extended { (b"+", b"?", b"{") } else { (b"\\+", b"\\?", b"\\{") };
        if rest.starts_with(plus) || rest.starts_with(question) {
            if !self.extended && at_start {
                return Ok(None);
            }
            let is_plus = rest.starts_with(plus);
            self.pos += plus.len();
            return Ok(Some(if is_plus { (1, None) } else { (0, Some(1)) }));
        }
        if rest.starts_with(brace) {
            if !self.extended && at_start {
                return Ok(None);
            }
            let save = self.pos;
            self.pos += brace.len();
            match self.interval() {
                Ok(bounds) => return Ok(Some(bounds)),
                Err(e) => {
                    if self.extended && e != RegexError::TooBig && e != RegexError::BadInterval {
                        // ERE: a brace that does not start an interval is literal.
                        self.pos = save;
                        return Ok(None);
                    }
                    return Err(e);
                }
            }
        }
        Ok(None)
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.pos;
        let mut value: u32 = 0;
        while let Some(d) = self.peek().filter(u8::is_ascii_digit) {
            value = value.saturating_mul(10).saturating_add((d - b'0') as u32);
            self.pos += 1;
        }
        if self.pos == start {
            None
        } else {
            Some(value)
        }
    }

    fn interval(&mut self) -> Result<(u32, Option<u32>), RegexError> {
        let min = self.number();
        let max = if self.peek() == Some(b',') {
            self.pos += 1;
            self.number()
        } else {
            match min {
                Some(m) => Some(m),
                None => return Err(self.brace_error()),
            }
        };
        let close: &[u8] = if self.extended { b"}" } else { b"\\}" };
        if !self.pattern[self.pos..].starts_with(close) {
            return Err(self.brace_error());
        }
        self.pos += close.len();
        let min = min.unwrap_or(0);
        if let Some(max) = max {
            if max < min {
                return Err(RegexError::BadInterval);
            }
        }
        if min > DUP_MAX || max.map_or(false, |m| m > DUP_MAX) {
            return Err(RegexError::TooBig);
        }
        Ok((min, max))
    }

    fn brace_error(&self) -> RegexError {
        let close: &[u8] = if self.extended { b"}" } else { b"\\}" };
        let rest = &self.pattern[self.pos..];
        let has_close = rest.windows(close.len()).any(|w| w == close);
        if has_close {
            RegexError::BadInterval
        } else {
            RegexError::UnmatchedBrace
        }
    }

    fn group(&mut self) -> Result<Node, RegexError> {
        self.groups += 1;
        let index = self.groups;
        self.depth += 1;
        let inner = self.alternation()?;
        self.depth -= 1;
        let close: &[u8] = if self.extended { b")" } else { b"\\)" };
        if !self.pattern[self.pos..].starts_with(close) {
            return Err(RegexError::UnmatchedParenOpen);
        }
        self.pos += close.len();
        self.closed.push(index);
        Ok(Node::Group(Box::new(inner), index))
    }

    fn escape(&mut self) -> Result<Node, RegexError> {
        let c = match self.peek() {
            Some(c) => c,
            None => return Err(RegexError::TrailingBackslash),
        };
        self.pos += 1;
        Ok(match c {
            b'(' if !self.extended => return self.group(),
            b'{' if !self.extended => Node::Char('{'),
            b'1'..=b'9' => {
                let n = (c - b'0') as usize;
                if !self.closed.contains(&n) {
                    return Err(RegexError::BadBackref);
                }
                Node::Backref(n)
            }
            b'w' => class_of(Named::Word, false),
            b'W' => class_of(Named::Word, true),
            b's' => class_of(Named::Space, false),
            b'S' => class_of(Named::Space, true),
            b'b' => Node::Assert(Assertion::WordBoundary),
            b'B' => Node::Assert(Assertion::NotWordBoundary),
            b'<' => Node::Assert(Assertion::WordStart),
            b'>' => Node::Assert(Assertion::WordEnd),
            b'`' => Node::Assert(Assertion::TextStart),
            b'\'' => Node::Assert(Assertion::TextEnd),
            _ => {
                self.pos -= 1;
                self.literal()
            }
        })
    }

    /// One literal character (a whole UTF-8 sequence, or one invalid byte).
    fn literal(&mut self) -> Node {
        let (c, len) = decode(self.pattern, self.pos);
        self.pos += len;
        match c {
            Some(c) => Node::Char(c),
            None => Node::Byte(self.pattern[self.pos - 1]),
        }
    }

    fn bracket(&mut self) -> Result<Node, RegexError> {
        if self.pos >= self.pattern.len() {
            return Err(RegexError::BadPattern);
        }
        let mut class = Class { negated: false, items: Vec::new() };
        if self.peek() == Some(b'^') {
            class.negated = true;
            self.pos += 1;
        }
        let mut first = true;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return Err(RegexError::UnmatchedBracket),
            };
            if c == b']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            let start = match self.bracket_element()? {
                Element::Item(item) => {
                    class.items.push(item);
                    continue;
                }
                Element::Char(c) => c,
            };
            // A range `a-z` (a `-` before `]` is literal).
            if self.peek() == Some(b'-') && self.pattern.get(self.pos + 1).map_or(false, |c| *c != b']') {
                self.pos += 1;
                let end = match self.bracket_element()? {
                    Element::Char(c) => c,
                    Element::Item(_) => return Err(RegexError::BadRangeEnd),
                };
                if end < start {
                    return Err(RegexError::BadRangeEnd);
                }
                class.items.push(ClassItem::Range(start, end));
            } else {
                class.items.push(ClassItem::Range(start, start));
            }
        }
        Ok(Node::Class(Box::new(class)))
    }

    fn bracket_element(&mut self) -> Result<Element, RegexError> {
        let rest = &self.pattern[self.pos..];
        if rest.len() >= 2 && rest[0] == b'[' && matches!(rest[1], b':' | b'=' | b'.') {
            let kind = rest[1];
            let body_start = self.pos + 2;
            let end = self.pattern[body_start..].windows(2).position(|w| w[0] == kind && w[1] == b']');
            let end = match end {
                Some(e) => body_start + e,
                None => return Err(RegexError::UnmatchedBracket),
            };
            let body = &self.pattern[body_start..end];
            self.pos = end + 2;
            return match kind {
                b':' => Named::from_name(body).map(|n| Element::Item(ClassItem::Named(n))).ok_or(RegexError::BadClass),
                _ => {
                    // Equivalence classes and collating symbols: single characters only.
                    let (c, len) = decode(body, 0);
                    match c {
                        Some(c) if len == body.len() => Ok(Element::Char(c)),
                        _ => Err(RegexError::BadCollation),
                    }
                }
            };
        }
        let (c, len) = decode(self.pattern, self.pos);
        self.pos += len;
        Ok(match c {
            Some(c) => Element::Char(c),
            None => Element::Item(ClassItem::Byte(self.pattern[self.pos - 1])),
        })
    }
}

enum Element {
    Char(char),
    Item(ClassItem),
}

fn class_of(named: Named, negated: bool) -> Node {
    Node::Class(Box::new(Class { negated, items: vec![ClassItem::Named(named)] }))
}

/// Decodes one UTF-8 character at `i`: the char (None for an invalid byte) and its length.
pub fn decode(bytes: &[u8], i: usize) -> (Option<char>, usize) {
    let b0 = match bytes.get(i) {
        Some(b) => *b,
        None => return (None, 0),
    };
    if b0 < 0x80 {
        return (Some(b0 as char), 1);
    }
    let len = match b0 {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (None, 1),
    };
    match bytes.get(i..i + len).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => (s.chars().next(), len),
        None => (None, 1),
    }
}

/// Parses a literal string (grep -F) into a node.
pub fn literal_node(pattern: &[u8]) -> Node {
    let mut items = Vec::new();
    let mut i = 0;
    while i < pattern.len() {
        let (c, len) = decode(pattern, i);
        items.push(match c {
            Some(c) => Node::Char(c),
            None => Node::Byte(pattern[i]),
        });
        i += len.max(1);
    }
    match items.len() {
        0 => Node::Empty,
        1 => items.pop().unwrap_or(Node::Empty),
        _ => Node::Concat(items),
    }
}
