//! The exact matcher for what the `regex` crate cannot do: back-references, `\<`/`\>`,
//! grep -w's edges, and POSIX's leftmost-longest extents. It compiles the syntax tree to a
//! small instruction list and explores every path from one start position, keeping the
//! longest end (the first path, in leftmost-first priority, to reach it gives the groups —
//! what GNU's matcher gives in practice).
//!
//! Without back-references, which ends are reachable from (instruction, position) does not
//! depend on the path, so each pair is explored once (a bit set): O(program × text). With
//! back-references the search is exponential in the worst case and is cut off after a step
//! budget (GNU's matcher has the same worst case).

use super::parse::{decode, Assertion, Class, ClassItem, Node};
use super::RegexError;

#[derive(Debug, Clone)]
enum Inst {
    /// A literal character and its case-folded form (used with -i).
    Char(char, char),
    Byte(u8),
    Any,
    Class(usize),
    Assert(Assertion),
    Save(usize),
    /// Try the first target, then the second.
    Split(usize, usize),
    Jmp(usize),
    Backref(usize),
    Match,
}

pub struct Program {
    insts: Vec<Inst>,
    classes: Vec<Class>,
    icase: bool,
    newline: bool,
    has_backrefs: bool,
    /// Two slots (start, end) per group, group 0 included.
    pub slots: usize,
}

const MAX_INSTS: usize = 1 << 20;
const STEP_BUDGET: u64 = 50_000_000;

pub fn compile(node: &Node, groups: usize, icase: bool, newline: bool) -> Result<Program, RegexError> {
    let mut p = Program { insts: Vec::new(), classes: Vec::new(), icase, newline, has_backrefs: false, slots: 2 * (groups + 1) };
    p.insts.push(Inst::Save(0));
    p.emit(node)?;
    p.insts.push(Inst::Save(1));
    p.insts.push(Inst::Match);
    Ok(p)
}

impl Program {
    fn emit(&mut self, node: &Node) -> Result<(), RegexError> {
        if self.insts.len() > MAX_INSTS {
            return Err(RegexError::TooBig);
        }
        match node {
            Node::Empty => {}
            Node::Char(c) => self.insts.push(Inst::Char(*c, fold(*c))),
            Node::Byte(b) => self.insts.push(Inst::Byte(*b)),
            Node::Any => self.insts.push(Inst::Any),
            Node::Class(class) => {
                self.classes.push((**class).clone());
                self.insts.push(Inst::Class(self.classes.len() - 1));
            }
            Node::Assert(a) => self.insts.push(Inst::Assert(*a)),
            Node::Group(inner, index) => {
                self.insts.push(Inst::Save(2 * index));
                self.emit(inner)?;
                self.insts.push(Inst::Save(2 * index + 1));
            }
            Node::Concat(items) => {
                for item in items {
                    self.emit(item)?;
                }
            }
            Node::Alt(branches) => {
                let mut jumps = Vec::new();
                for (i, branch) in branches.iter().enumerate() {
                    if i + 1 < branches.len() {
                        let split = self.insts.len();
                        self.insts.push(Inst::Split(split + 1, 0));
                        self.emit(branch)?;
                        jumps.push(self.insts.len());
                        self.insts.push(Inst::Jmp(0));
                        let next = self.insts.len();
                        self.insts[split] = Inst::Split(split + 1, next);
                    } else {
                        self.emit(branch)?;
                    }
                }
                let end = self.insts.len();
                for j in jumps {
                    self.insts[j] = Inst::Jmp(end);
                }
            }
            Node::Repeat(inner, min, max) => {
                for _ in 0..*min {
                    self.emit(inner)?;
                }
                match max {
                    None => {
                        let split = self.insts.len();
                        self.insts.push(Inst::Split(split + 1, 0));
                        self.emit(inner)?;
                        self.insts.push(Inst::Jmp(split));
                        let end = self.insts.len();
                        self.insts[split] = Inst::Split(split + 1, end);
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            splits.push(self.insts.len());
                            self.insts.push(Inst::Split(0, 0));
                            self.emit(inner)?;
                        }
                        let end = self.insts.len();
                        for s in splits {
                            self.insts[s] = Inst::Split(s + 1, end);
                        }
                    }
                }
            }
            Node::Backref(n) => {
                self.has_backrefs = true;
                self.insts.push(Inst::Backref(*n));
            }
        }
        Ok(())
    }

    /// The longest match starting exactly at `start`: fills `slots` (byte offsets) and
    /// returns true, or returns false.
    pub fn longest_at(&self, hay: &[u8], start: usize, slots: &mut Vec<Option<usize>>) -> bool {
        let mut current: Vec<Option<usize>> = vec![None; self.slots];
        let mut best: Option<usize> = None;
        // Visited (instruction, position) pairs, position-major and grown on demand: a
        // match usually ends near its start, even in a huge text.
        let memo = !self.has_backrefs;
        let ninsts = self.insts.len();
        let mut visited: Vec<u64> = Vec::new();
        let mut stack: Vec<Job> = vec![Job::Step(0, start)];
        let mut steps: u64 = 0;
        while let Some(job) = stack.pop() {
            let (mut pc, mut pos) = match job {
                Job::Restore(slot, value) => {
                    current[slot] = value;
                    continue;
                }
                Job::Step(pc, pos) => (pc, pos),
            };
            loop {
                if memo {
                    let bit = (pos - start) * ninsts + pc;
                    if bit / 64 >= visited.len() {
                        let want = (bit / 64 + 1).max(visited.len() * 2).max(16);
                        visited.resize(want, 0);
                    }
                    if visited[bit / 64] & (1 << (bit % 64)) != 0 {
                        break;
                    }
                    visited[bit / 64] |= 1 << (bit % 64);
                } else {
                    steps += 1;
                    if steps > STEP_BUDGET {
                        stack.clear();
                        break;
                    }
                }
                match &self.insts[pc] {
                    Inst::Char(c, folded) => match decode(hay, pos) {
                        (Some(h), len) if h == *c || (self.icase && fold(h) == *folded) => {
                            pos += len;
                            pc += 1;
                        }
                        _ => break,
                    },
                    Inst::Byte(b) => {
                        if hay.get(pos) == Some(b) {
                            pos += 1;
                            pc += 1;
                        } else {
                            break;
                        }
                    }
                    Inst::Any => match decode(hay, pos) {
                        (Some(h), len) if !(self.newline && h == '\n') => {
                            pos += len;
                            pc += 1;
                        }
                        _ => break,
                    },
                    Inst::Class(i) => match self.class_len(&self.classes[*i], hay, pos) {
                        Some(len) => {
                            pos += len;
                            pc += 1;
                        }
                        None => break,
                    },
                    Inst::Assert(a) => {
                        if self.assertion(*a, hay, pos) {
                            pc += 1;
                        } else {
                            break;
                        }
                    }
                    Inst::Save(slot) => {
                        stack.push(Job::Restore(*slot, current[*slot]));
                        current[*slot] = Some(pos);
                        pc += 1;
                    }
                    Inst::Split(a, b) => {
                        stack.push(Job::Step(*b, pos));
                        pc = *a;
                    }
                    Inst::Jmp(target) => pc = *target,
                    Inst::Backref(n) => match (current.get(2 * n).copied().flatten(), current.get(2 * n + 1).copied().flatten()) {
                        (Some(s), Some(e)) if s <= e => {
                            let text = &hay[s..e];
                            if self.backref_matches(text, &hay[pos..]) {
                                pos += text.len();
                                pc += 1;
                            } else {
                                break;
                            }
                        }
                        _ => break,
                    },
                    Inst::Match => {
                        if best.map_or(true, |b| pos > b) {
                            best = Some(pos);
                            slots.clear();
                            slots.extend_from_slice(&current);
                        }
                        if pos == hay.len() {
                            stack.clear();
                        }
                        break;
                    }
                }
            }
        }
        best.is_some()
    }

    fn backref_matches(&self, text: &[u8], rest: &[u8]) -> bool {
        if rest.len() < text.len() {
            return false;
        }
        let candidate = &rest[..text.len()];
        candidate == text || (self.icase && std::str::from_utf8(text).ok().zip(std::str::from_utf8(candidate).ok()).map_or(false, |(a, b)| a.to_lowercase() == b.to_lowercase()))
    }

    /// The length of the character at `pos` if `class` matches it.
    fn class_len(&self, class: &Class, hay: &[u8], pos: usize) -> Option<usize> {
        let (c, len) = decode(hay, pos);
        if len == 0 {
            return None;
        }
        let c = match c {
            Some(c) => c,
            None => {
                let byte = hay[pos];
                let listed = class.items.iter().any(|i| *i == ClassItem::Byte(byte));
                return if listed != class.negated { Some(1) } else { None };
            }
        };
        if self.newline && c == '\n' {
            return None;
        }
        let mut hit = class_has(class, c);
        if !hit && self.icase {
            hit = c.to_lowercase().any(|l| class_has(class, l)) || c.to_uppercase().any(|u| class_has(class, u));
        }
        if hit != class.negated {
            Some(len)
        } else {
            None
        }
    }

    fn assertion(&self, a: Assertion, hay: &[u8], pos: usize) -> bool {
        let before = word_before(hay, pos);
        let after = word_after(hay, pos);
        match a {
            Assertion::LineStart => pos == 0 || (self.newline && hay[pos - 1] == b'\n'),
            Assertion::LineEnd => pos == hay.len() || (self.newline && hay[pos] == b'\n'),
            Assertion::TextStart => pos == 0,
            Assertion::TextEnd => pos == hay.len(),
            Assertion::WordBoundary => before != after,
            Assertion::NotWordBoundary => before == after,
            Assertion::WordStart => !before && after,
            Assertion::WordEnd => before && !after,
            Assertion::NotWordBefore => !before,
            Assertion::NotWordAfter => !after,
        }
    }
}

enum Job {
    Step(usize, usize),
    Restore(usize, Option<usize>),
}

fn class_has(class: &Class, c: char) -> bool {
    class.items.iter().any(|item| match item {
        ClassItem::Range(a, b) => *a <= c && c <= *b,
        ClassItem::Named(n) => n.contains(c),
        ClassItem::Byte(_) => false,
    })
}

pub fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn is_word(c: Option<char>) -> bool {
    c.map_or(false, |c| c.is_alphanumeric() || c == '_')
}

pub fn word_after(hay: &[u8], pos: usize) -> bool {
    is_word(decode(hay, pos).0)
}

pub fn word_before(hay: &[u8], pos: usize) -> bool {
    if pos == 0 {
        return false;
    }
    // Step back over up to three continuation bytes to the start of the previous character.
    let mut start = pos - 1;
    while start > 0 && pos - start < 4 && hay[start] & 0xc0 == 0x80 {
        start -= 1;
    }
    match decode(hay, start) {
        (c, len) if start + len == pos => is_word(c),
        _ => false,
    }
}
