//! Syntax tree → `regex` crate syntax. The `regex` crate is fast and linear but has no
//! back-references, no `\<`/`\>`, and is leftmost-first where POSIX is leftmost-longest, so
//! the translation also says how far its answers can be trusted:
//! - `exact_match`: a line matches iff the translation matches (else it is a superset,
//!   a prefilter to confirm with the backtracker);
//! - `exact_extent`: the translation's match extents and groups are POSIX's too. Leftmost-
//!   first and leftmost-longest agree unless an alternation or a repeated group lets an
//!   earlier choice end sooner; alternations of plain literals are made safe by trying the
//!   longer literals first.

use std::fmt::Write;

use super::parse::{Assertion, Class, ClassItem, Named, Node};

pub struct Translation {
    pub pattern: String,
    pub exact_match: bool,
    pub exact_extent: bool,
    /// Groups too (false when literal alternatives were reordered).
    pub exact_groups: bool,
}

pub fn translate(node: &Node, icase: bool, newline: bool) -> Translation {
    let mut t = Translator { out: String::new(), exact_match: true, exact_extent: true, exact_groups: true, newline };
    t.out.push_str(if newline { "(?sm" } else { "(?s" });
    if icase {
        t.out.push('i');
    }
    t.out.push(')');
    t.node(node, &[], 0);
    Translation { pattern: t.out, exact_match: t.exact_match, exact_extent: t.exact_match && t.exact_extent, exact_groups: t.exact_match && t.exact_extent && t.exact_groups }
}

struct Translator {
    out: String,
    exact_match: bool,
    exact_extent: bool,
    exact_groups: bool,
    newline: bool,
}

impl Translator {
    /// `siblings`/`index`: the concatenation the node sits in, to decide whether `\<` and
    /// `\>` can be plain word boundaries.
    fn node(&mut self, node: &Node, siblings: &[Node], index: usize) {
        match node {
            Node::Empty => {}
            Node::Char(c) => self.char(*c),
            Node::Byte(b) => {
                let _ = write!(self.out, "(?-u:\\x{:02X})", b);
            }
            Node::Any => self.out.push_str(if self.newline { "[^\\n]" } else { "." }),
            Node::Class(class) => self.class(class),
            Node::Assert(a) => self.assertion(*a, siblings, index),
            Node::Group(inner, _) => {
                self.out.push('(');
                self.node(inner, &[], 0);
                self.out.push(')');
            }
            Node::Concat(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Node::Alt(_) = item {
                        self.out.push_str("(?:");
                        self.node(item, items, i);
                        self.out.push(')');
                    } else {
                        self.node(item, items, i);
                    }
                }
            }
            Node::Alt(branches) => {
                let mut order: Vec<&Node> = branches.iter().collect();
                if branches.iter().all(|b| literal_len(b).is_some()) {
                    // Longest literal first makes leftmost-first pick POSIX's longest.
                    order.sort_by_key(|b| std::cmp::Reverse(literal_len(b).unwrap_or(0)));
                    if order.iter().zip(branches.iter()).any(|(a, b)| !std::ptr::eq(*a, b)) {
                        self.exact_groups = false;
                    }
                } else {
                    self.exact_extent = false;
                }
                for (i, branch) in order.iter().enumerate() {
                    if i > 0 {
                        self.out.push('|');
                    }
                    self.node(branch, &[], 0);
                }
            }
            Node::Repeat(inner, min, max) => {
                if !is_single(inner) {
                    self.exact_extent = false;
                }
                self.out.push_str("(?:");
                self.node(inner, &[], 0);
                self.out.push(')');
                match (min, max) {
                    (0, None) => self.out.push('*'),
                    (1, None) => self.out.push('+'),
                    (0, Some(1)) => self.out.push('?'),
                    (m, None) => {
                        let _ = write!(self.out, "{{{},}}", m);
                    }
                    (m, Some(n)) => {
                        let _ = write!(self.out, "{{{},{}}}", m, n);
                    }
                }
            }
            Node::Backref(_) => {
                self.exact_match = false;
                self.out.push_str(if self.newline { "[^\\n]*" } else { ".*" });
            }
        }
    }

    fn char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.out.push_str(&::regex::escape(c.encode_utf8(&mut buf)));
    }

    fn assertion(&mut self, a: Assertion, siblings: &[Node], index: usize) {
        let text = match a {
            Assertion::LineStart => "^",
            Assertion::LineEnd => "$",
            Assertion::TextStart => "\\A",
            Assertion::TextEnd => "\\z",
            Assertion::WordBoundary => "\\b",
            Assertion::NotWordBoundary => "\\B",
            Assertion::WordStart | Assertion::WordEnd => {
                let neighbour = if a == Assertion::WordStart { siblings.get(index + 1) } else { index.checked_sub(1).and_then(|i| siblings.get(i)) };
                let first = a == Assertion::WordStart;
                if neighbour.map_or(false, |n| is_word_edge(n, first)) {
                    "\\b"
                } else {
                    self.exact_match = false;
                    ""
                }
            }
            Assertion::NotWordBefore | Assertion::NotWordAfter => {
                self.exact_match = false;
                ""
            }
        };
        self.out.push_str(text);
    }

    fn class(&mut self, class: &Class) {
        let bytes: Vec<u8> = class.items.iter().filter_map(|i| if let ClassItem::Byte(b) = i { Some(*b) } else { None }).collect();
        let has_chars = class.items.iter().any(|i| !matches!(i, ClassItem::Byte(_)));
        if !bytes.is_empty() && class.negated {
            // A negated set of raw bytes cannot mix with Unicode classes; overapproximate.
            self.exact_match = false;
        }
        if !bytes.is_empty() && !class.negated {
            self.out.push_str("(?:");
        }
        if has_chars || class.negated {
            self.out.push('[');
            if self.newline {
                self.out.push('[');
            }
            if class.negated {
                self.out.push('^');
            }
            for item in &class.items {
                match item {
                    ClassItem::Range(a, b) => {
                        self.class_char(*a);
                        if a != b {
                            self.out.push('-');
                            self.class_char(*b);
                        }
                    }
                    ClassItem::Named(n) => self.out.push_str(named(*n)),
                    ClassItem::Byte(_) => {}
                }
            }
            if class.negated && !has_chars {
                // `[^\xff]`: everything valid; the byte itself is handled as inexact.
                self.out.push_str("\\x{0}-\\x{10FFFF}");
            }
            if self.newline {
                self.out.push_str("]&&[^\\n]");
            }
            self.out.push(']');
        }
        if !bytes.is_empty() && !class.negated {
            if has_chars {
                self.out.push('|');
            }
            self.out.push_str("(?-u:[");
            for b in bytes {
                let _ = write!(self.out, "\\x{:02X}", b);
            }
            self.out.push_str("]))");
        }
    }

    fn class_char(&mut self, c: char) {
        if c.is_alphanumeric() {
            self.out.push(c);
        } else {
            let _ = write!(self.out, "\\x{{{:X}}}", c as u32);
        }
    }
}

fn named(n: Named) -> &'static str {
    match n {
        Named::Alpha => "\\p{Alphabetic}",
        Named::Digit => "0-9",
        Named::Alnum => "\\p{Alphabetic}0-9",
        Named::Upper => "\\p{Uppercase}",
        Named::Lower => "\\p{Lowercase}",
        Named::Space => "\\s",
        Named::Blank => "\\t\\p{Zs}",
        Named::Punct => "\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E\\p{P}\\p{S}",
        Named::Print => "\\P{Cc}",
        Named::Graph => "[^\\p{Cc}\\s]",
        Named::Cntrl => "\\p{Cc}",
        Named::Xdigit => "0-9A-Fa-f",
        Named::Word => "\\w",
    }
}

/// The length of a node that is a plain literal string, if it is one.
fn literal_len(node: &Node) -> Option<usize> {
    match node {
        Node::Char(_) | Node::Byte(_) => Some(1),
        Node::Empty => Some(0),
        Node::Concat(items) => items.iter().map(literal_len).sum(),
        _ => None,
    }
}

fn is_single(node: &Node) -> bool {
    match node {
        Node::Char(_) | Node::Byte(_) | Node::Any | Node::Class(_) => true,
        Node::Group(inner, _) => is_single(inner),
        _ => false,
    }
}

/// Whether `node` certainly begins (`first`) or ends with a word character.
fn is_word_edge(node: &Node, first: bool) -> bool {
    match node {
        Node::Char(c) => c.is_alphanumeric() || *c == '_',
        Node::Class(class) => !class.negated && class.items.iter().all(|i| matches!(i, ClassItem::Named(Named::Word) | ClassItem::Named(Named::Alnum) | ClassItem::Named(Named::Alpha) | ClassItem::Named(Named::Digit) | ClassItem::Named(Named::Upper) | ClassItem::Named(Named::Lower)) || matches!(i, ClassItem::Range(a, b) if range_is_word(*a, *b))),
        Node::Group(inner, _) => is_word_edge(inner, first),
        Node::Repeat(inner, min, _) => *min > 0 && is_word_edge(inner, first),
        Node::Concat(items) => {
            let edge = if first { items.first() } else { items.last() };
            edge.map_or(false, |n| is_word_edge(n, first))
        }
        Node::Alt(branches) => branches.iter().all(|b| is_word_edge(b, first)),
        _ => false,
    }
}

fn range_is_word(a: char, b: char) -> bool {
    let ok = |lo: char, hi: char| a >= lo && b <= hi;
    ok('a', 'z') || ok('A', 'Z') || ok('0', '9') || (a == '_' && b == '_')
}
