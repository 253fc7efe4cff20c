//! POSIX regular expressions as GNU tools understand them, on bytes, for every command
//! (grep, sed, awk, find -regex, expr, csplit, nl -bp, jq …).
//!
//! ```ignore
//! use common::regex::{Regex, Flavor, Flags};
//! let re = Regex::new(b"\\(ab\\)*c", Flavor::Basic, Flags::default())?;
//! re.is_match(b"xababc");                       // true
//! re.find_at(b"xababc", 0);                     // Some((1, 6)): leftmost-longest
//! let mut caps = re.new_captures();
//! if re.captures_at(b"xababc", 0, &mut caps) { caps.get(1); } // Some((3, 5))
//! ```
//!
//! Flavours: `Basic` (BRE: `\(\)`, `\{m,n\}`, GNU's `\+ \? \|`), `Extended` (ERE), `Fixed`
//! (a literal string, grep -F). Both regex flavours have back-references `\1`–`\9`,
//! bracket expressions with `[:class:]`/`[=c=]`/`[.c.]`, and `\w \W \s \S \b \B \< \> \` \'`.
//! Flags: `icase` (-i), `newline` (POSIX REG_NEWLINE: `.` and bracket expressions never match
//! a newline, `^`/`$` also match around newlines: grep, sed's `M`), `whole_line` (grep -x),
//! `whole_word` (grep -w: not preceded nor followed by a word character).
//!
//! Semantics follow glibc in a UTF-8 locale: `.` and classes match whole UTF-8 characters and
//! never an invalid byte; a pattern's invalid bytes match themselves. Matches are
//! leftmost-longest as POSIX requires (groups: the first alternative, in pattern order, that
//! gives the longest overall match, as GNU's matcher does in practice). Error messages are
//! glibc's `regerror` texts.
//!
//! How: the pattern is parsed once (`parse`), translated to the `regex` crate (`translate`),
//! which finds matches in linear time, and compiled to a small backtracker (`backtrack`)
//! that gives exact answers where the `regex` crate cannot (back-references, `\<`, `\>`,
//! -w, and alternations where leftmost-first and leftmost-longest differ). The `regex` crate
//! still finds the start: the backtracker only runs from candidate positions.

mod backtrack;
mod parse;
mod translate;

use ::regex::bytes::{CaptureLocations, Regex as Fast, RegexBuilder};

pub use parse::decode;
use parse::{Assertion, Node, Parser};

/// Pattern syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Basic,
    Extended,
    Fixed,
    /// The `regex` crate's own Perl-like syntax (grep -P): no look-around, no back-references.
    Perl,
}

/// Compile options (see the module header).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    pub icase: bool,
    pub newline: bool,
    pub whole_line: bool,
    pub whole_word: bool,
}

/// A compile error, with glibc's message as Display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegexError {
    BadPattern,
    BadCollation,
    BadClass,
    TrailingBackslash,
    BadBackref,
    UnmatchedBracket,
    UnmatchedParenOpen,
    UnmatchedParenClose,
    UnmatchedBrace,
    BadInterval,
    BadRangeEnd,
    BadPreceding,
    TooBig,
    /// A -P pattern the `regex` crate rejects (look-around, back-references …).
    Perl(&'static str),
}

fn perl_reason(error: &::regex::Error) -> &'static str {
    let text = error.to_string();
    if text.contains("look-around") {
        "look-around is not supported"
    } else if text.contains("backreferences") {
        "back-references are not supported"
    } else {
        "unsupported or invalid syntax"
    }
}

impl std::fmt::Display for RegexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RegexError::BadPattern => "Invalid regular expression",
            RegexError::BadCollation => "Invalid collation character",
            RegexError::BadClass => "Invalid character class name",
            RegexError::TrailingBackslash => "Trailing backslash",
            RegexError::BadBackref => "Invalid back reference",
            RegexError::UnmatchedBracket => "Unmatched [, [^, [:, [., or [=",
            RegexError::UnmatchedParenOpen => "Unmatched ( or \\(",
            RegexError::UnmatchedParenClose => "Unmatched ) or \\)",
            RegexError::UnmatchedBrace => "Unmatched \\{",
            RegexError::BadInterval => "Invalid content of \\{\\}",
            RegexError::BadRangeEnd => "Invalid range end",
            RegexError::BadPreceding => "Invalid preceding regular expression",
            RegexError::TooBig => "Regular expression too big",
            RegexError::Perl(reason) => return write!(f, "-P pattern: {} in the sandbox's Perl-compatible mode", reason),
        })
    }
}

impl std::error::Error for RegexError {}

/// A compiled pattern. Cheap to share by reference; matching takes `&self`.
pub struct Regex {
    fast: Fast,
    exact_match: bool,
    exact_extent: bool,
    exact_groups: bool,
    program: backtrack::Program,
    groups: usize,
}

/// Group positions of a match; reuse one across calls (`Regex::new_captures`).
pub struct Captures {
    slots: Vec<Option<usize>>,
    locations: CaptureLocations,
}

impl Captures {
    /// The byte range of group `i` (0 = the whole match), if it took part in the match.
    pub fn get(&self, i: usize) -> Option<(usize, usize)> {
        match (self.slots.get(2 * i).copied().flatten(), self.slots.get(2 * i + 1).copied().flatten()) {
            (Some(s), Some(e)) => Some((s, e)),
            _ => None,
        }
    }

    /// Number of groups including group 0.
    pub fn len(&self) -> usize {
        self.slots.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

impl Regex {
    /// Compiles one pattern.
    pub fn new(pattern: &[u8], flavor: Flavor, flags: Flags) -> Result<Regex, RegexError> {
        Regex::new_many(&[pattern], flavor, flags)
    }

    /// Compiles several patterns as alternatives (grep -e P1 -e P2): a text matches if any
    /// does. Groups are numbered across the patterns in order.
    pub fn new_many(patterns: &[&[u8]], flavor: Flavor, flags: Flags) -> Result<Regex, RegexError> {
        if flavor == Flavor::Perl {
            return Regex::perl(patterns, flags);
        }
        let mut branches = Vec::new();
        let mut groups = 0;
        for pattern in patterns {
            let node = match flavor {
                Flavor::Fixed => parse::literal_node(pattern),
                _ => {
                    let mut parser = Parser::new(pattern, flavor == Flavor::Extended, groups);
                    let node = parser.parse()?;
                    groups = parser.groups;
                    node
                }
            };
            branches.push(node);
        }
        let mut node = if branches.len() == 1 { branches.pop().unwrap_or(Node::Empty) } else { Node::Alt(branches) };
        if flags.whole_word {
            node = Node::Concat(vec![Node::Assert(Assertion::NotWordBefore), node, Node::Assert(Assertion::NotWordAfter)]);
        }
        if flags.whole_line {
            node = Node::Concat(vec![Node::Assert(Assertion::LineStart), node, Node::Assert(Assertion::LineEnd)]);
        }
        Regex::from_node(&node, groups, flags)
    }

    fn perl(patterns: &[&[u8]], flags: Flags) -> Result<Regex, RegexError> {
        let mut text = String::from(if flags.newline { "(?m" } else { "(?" });
        text.push_str(if flags.icase { "i)" } else { "-i)" });
        let joined: Vec<String> = patterns.iter().map(|p| format!("(?:{})", String::from_utf8_lossy(p))).collect();
        let body = joined.join("|");
        text.push_str(&match (flags.whole_line, flags.whole_word) {
            (true, _) => format!("^(?:{})$", body),
            (false, true) => format!("\\b(?:{})\\b", body),
            _ => body,
        });
        let fast = RegexBuilder::new(&text).build().map_err(|e| RegexError::Perl(perl_reason(&e)))?;
        let groups = fast.captures_len() - 1;
        let program = backtrack::compile(&Node::Empty, groups, false, false)?;
        Ok(Regex { fast, exact_match: true, exact_extent: true, exact_groups: true, program, groups })
    }

    fn from_node(node: &Node, groups: usize, flags: Flags) -> Result<Regex, RegexError> {
        let t = translate::translate(node, flags.icase, flags.newline);
        let fast = RegexBuilder::new(&t.pattern).size_limit(1 << 26).dfa_size_limit(1 << 23).build().map_err(|_| RegexError::TooBig)?;
        let program = backtrack::compile(node, groups, flags.icase, flags.newline)?;
        Ok(Regex { fast, exact_match: t.exact_match, exact_extent: t.exact_extent, exact_groups: t.exact_groups, program, groups })
    }

    /// Number of capture groups, not counting group 0.
    pub fn groups(&self) -> usize {
        self.groups
    }

    pub fn new_captures(&self) -> Captures {
        Captures { slots: vec![None; 2 * (self.groups + 1)], locations: self.fast.capture_locations() }
    }

    /// Whether the pattern matches anywhere in `hay`.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        if self.exact_match {
            return self.fast.is_match(hay);
        }
        let mut slots = Vec::new();
        self.search(hay, 0, &mut slots)
    }

    /// The leftmost-longest match starting at or after `start` (`^` and word edges still
    /// look at the bytes before `start`).
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        if self.exact_extent {
            return self.fast.find_at(hay, start).map(|m| (m.start(), m.end()));
        }
        let mut slots = Vec::new();
        if self.search(hay, start, &mut slots) {
            match (slots.first().copied().flatten(), slots.get(1).copied().flatten()) {
                (Some(s), Some(e)) => return Some((s, e)),
                _ => return None,
            }
        }
        None
    }

    /// Like `find_at`, also filling the groups. Returns whether there was a match.
    pub fn captures_at(&self, hay: &[u8], start: usize, caps: &mut Captures) -> bool {
        if self.exact_groups {
            if self.fast.captures_read_at(&mut caps.locations, hay, start).is_none() {
                return false;
            }
            for i in 0..caps.slots.len() / 2 {
                let pair = caps.locations.get(i);
                caps.slots[2 * i] = pair.map(|p| p.0);
                caps.slots[2 * i + 1] = pair.map(|p| p.1);
            }
            return true;
        }
        self.search(hay, start, &mut caps.slots)
    }

    /// A fast search that may report more than the real matches (never fewer): every real
    /// match starts at or after the returned start. Exact when `candidates_are_exact()`.
    /// grep uses it to skip over non-matching lines of a whole buffer at once.
    pub fn find_candidate(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        self.fast.find_at(hay, start).map(|m| (m.start(), m.end()))
    }

    /// Whether `find_candidate` only reports real matches (their extents may still differ
    /// from the leftmost-longest ones).
    pub fn candidates_are_exact(&self) -> bool {
        self.exact_match
    }

    /// The candidate loop: the `regex` crate proposes starts, the backtracker confirms and
    /// measures from each.
    fn search(&self, hay: &[u8], start: usize, slots: &mut Vec<Option<usize>>) -> bool {
        let mut pos = start;
        while pos <= hay.len() {
            let candidate = match self.fast.find_at(hay, pos) {
                Some(m) => m,
                None => return false,
            };
            let s = candidate.start();
            if self.program.longest_at(hay, s, slots) {
                return true;
            }
            if self.exact_match {
                // The engines disagree (they should not): trust the linear one.
                slots.clear();
                slots.resize(2 * (self.groups + 1), None);
                slots[0] = Some(s);
                slots[1] = Some(candidate.end());
                return true;
            }
            pos = s + parse::decode(hay, s).1.max(1);
        }
        false
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
