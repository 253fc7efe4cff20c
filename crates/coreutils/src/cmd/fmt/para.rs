//! fmt's reader and line breaker: reads a paragraph into words (with their trailing space
//! and punctuation facts), chooses breaks by dynamic programming over GNU fmt's cost model,
//! and writes the lines back with the indentation and prefix. Paragraphs longer than
//! GNU's buffers (1000 words, 5000 bytes) are flushed in parts at a cheap break, as GNU
//! does, so output matches and memory stays bounded.

use std::io::{self, BufRead, Write};

const MAX_WORDS: usize = 1000;
const MAX_CHARS: usize = 5000;
const TAB: usize = 8;
/// Secondary indent of a one-line tagged paragraph with nothing to copy it from.
const DEF_INDENT: usize = 3;

const fn equiv(n: i64) -> i64 {
    n * n
}
const LINE_COST: i64 = equiv(70);
const SENTENCE_BONUS: i64 = equiv(50);
const NOBREAK_COST: i64 = equiv(600);
const PAREN_BONUS: i64 = equiv(40);
const PUNCT_BONUS: i64 = equiv(40);
const LINE_CREDIT: i64 = equiv(3);

fn short_cost(n: i64) -> i64 {
    equiv(n * 10)
}
fn ragged_cost(n: i64) -> i64 {
    short_cost(n) / 2
}

#[derive(Default)]
pub struct Options {
    pub crown: bool,
    pub tagged: bool,
    pub split: bool,
    pub uniform: bool,
    pub max_width: usize,
    pub goal_width: usize,
    /// The prefix without its leading and trailing spaces.
    prefix: Vec<u8>,
    /// Its length with trailing spaces.
    prefix_full_length: usize,
    prefix_lead_space: usize,
}

impl Options {
    pub fn set_prefix(&mut self, p: &[u8]) {
        let lead = p.iter().take_while(|c| **c == b' ').count();
        let rest = &p[lead..];
        let trimmed = rest.len() - rest.iter().rev().take_while(|c| **c == b' ').count();
        self.prefix_lead_space = lead;
        self.prefix_full_length = rest.len();
        self.prefix = rest[..trimmed].to_vec();
    }
}

#[derive(Clone, Copy, Default)]
struct Word {
    start: usize,
    length: usize,
    space: usize,
    paren: bool,
    period: bool,
    punct: bool,
    last: bool,
    // Computed by the optimizer.
    line_length: usize,
    best_cost: i64,
    next_break: usize,
}

pub struct Formatter<'a> {
    o: &'a Options,
    input: &'a mut dyn BufRead,
    out: &'a mut dyn Write,
    text: Vec<u8>,
    /// Complete words; the word being read is `current`.
    words: Vec<Word>,
    current: Word,
    in_column: usize,
    out_column: usize,
    tabs: bool,
    prefix_indent: usize,
    first_indent: usize,
    other_indent: usize,
    next_prefix_indent: usize,
    last_line_length: usize,
}

type Char = Option<u8>;

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

impl<'a> Formatter<'a> {
    pub fn new(o: &'a Options, input: &'a mut dyn BufRead, out: &'a mut dyn Write) -> Formatter<'a> {
        Formatter {
            o,
            input,
            out,
            text: Vec::new(),
            words: Vec::new(),
            current: Word::default(),
            in_column: 0,
            out_column: 0,
            tabs: false,
            prefix_indent: 0,
            first_indent: 0,
            other_indent: 0,
            next_prefix_indent: 0,
            last_line_length: 0,
        }
    }

    fn getc(&mut self) -> io::Result<Char> {
        let buf = self.input.fill_buf()?;
        match buf.first() {
            Some(&c) => {
                self.input.consume(1);
                Ok(Some(c))
            }
            None => Ok(None),
        }
    }

    pub fn run(mut self) -> io::Result<()> {
        let mut c = self.get_prefix()?;
        while let Some(next) = self.paragraph(c)? {
            self.optimize();
            self.put_paragraph(self.words.len())?;
            c = next;
        }
        Ok(())
    }

    fn get_space(&mut self, mut c: Char) -> io::Result<Char> {
        loop {
            match c {
                Some(b' ') => self.in_column += 1,
                Some(b'\t') => {
                    self.tabs = true;
                    self.in_column = (self.in_column / TAB + 1) * TAB;
                }
                _ => return Ok(c),
            }
            c = self.getc()?;
        }
    }

    /// Reads the indentation and prefix of a line; returns the first character after them
    /// (or the one that failed to match the prefix).
    fn get_prefix(&mut self) -> io::Result<Char> {
        self.in_column = 0;
        let first = self.getc()?;
        let mut c = self.get_space(first)?;
        if self.o.prefix.is_empty() {
            self.next_prefix_indent = self.o.prefix_lead_space.min(self.in_column);
        } else {
            self.next_prefix_indent = self.in_column;
            for i in 0..self.o.prefix.len() {
                if c != Some(self.o.prefix[i]) {
                    return Ok(c);
                }
                self.in_column += 1;
                c = self.getc()?;
            }
            c = self.get_space(c)?;
        }
        Ok(c)
    }

    fn same_para(&self, c: Char) -> bool {
        self.next_prefix_indent == self.prefix_indent && self.in_column >= self.next_prefix_indent + self.o.prefix_full_length && c != Some(b'\n') && c.is_some()
    }

    fn set_other_indent(&mut self, same: bool) {
        let o = self.o;
        if o.split {
            self.other_indent = self.first_indent;
        } else if o.crown {
            self.other_indent = if same { self.in_column } else { self.first_indent };
        } else if o.tagged {
            if same && self.in_column != self.first_indent {
                self.other_indent = self.in_column;
            } else if self.other_indent == self.first_indent {
                self.other_indent = if self.first_indent == 0 { DEF_INDENT } else { 0 };
            }
        } else {
            self.other_indent = self.first_indent;
        }
    }

    /// Copies blank and non-prefixed lines, then reads one paragraph. Returns the
    /// lookahead character after it, or None at the end of the input.
    fn paragraph(&mut self, mut c: Char) -> io::Result<Option<Char>> {
        self.last_line_length = 0;
        while c == Some(b'\n') || c.is_none() || self.next_prefix_indent < self.o.prefix_lead_space || self.in_column < self.next_prefix_indent + self.o.prefix_full_length {
            c = self.copy_rest(c)?;
            if c.is_none() {
                return Ok(None);
            }
            self.out.write_all(b"\n")?;
            c = self.get_prefix()?;
        }
        self.prefix_indent = self.next_prefix_indent;
        self.first_indent = self.in_column;
        self.text.clear();
        self.words.clear();
        c = self.get_line(c)?;
        let same = self.same_para(c);
        self.set_other_indent(same);
        let o = self.o;
        if o.split {
        } else if o.crown || o.tagged {
            if self.same_para(c) && (o.crown || self.in_column != self.first_indent) {
                loop {
                    c = self.get_line(c)?;
                    if !(self.same_para(c) && self.in_column == self.other_indent) {
                        break;
                    }
                }
            }
        } else {
            while self.same_para(c) && self.in_column == self.other_indent {
                c = self.get_line(c)?;
            }
        }
        if let Some(w) = self.words.last_mut() {
            w.period = true;
            w.last = true;
        }
        Ok(Some(c))
    }

    /// Writes a line that is not part of a paragraph as it was.
    fn copy_rest(&mut self, mut c: Char) -> io::Result<Char> {
        self.out_column = 0;
        let at_end = c == Some(b'\n') || c.is_none();
        if self.in_column > self.next_prefix_indent || !at_end {
            self.put_space(self.next_prefix_indent)?;
            let mut i = 0;
            while self.out_column != self.in_column && i < self.o.prefix.len() {
                self.out.write_all(&self.o.prefix[i..i + 1])?;
                i += 1;
                self.out_column += 1;
            }
            if !at_end {
                self.put_space(self.in_column.saturating_sub(self.out_column))?;
            }
            if c.is_none() && self.in_column >= self.next_prefix_indent + self.o.prefix.len() {
                self.out.write_all(b"\n")?;
            }
        }
        while let Some(ch) = c {
            if ch == b'\n' {
                break;
            }
            self.out.write_all(&[ch])?;
            c = self.getc()?;
        }
        Ok(c)
    }

    /// Reads the words of one line starting with `c`; returns the next line's first
    /// character after its prefix.
    fn get_line(&mut self, mut c: Char) -> io::Result<Char> {
        loop {
            self.current = Word { start: self.text.len(), ..Word::default() };
            while let Some(ch) = c {
                if self.text.len() == MAX_CHARS {
                    self.set_other_indent(true);
                    self.flush()?;
                }
                self.text.push(ch);
                c = self.getc()?;
                if c.map_or(true, is_space) {
                    break;
                }
            }
            let length = self.text.len() - self.current.start;
            self.current.length = length;
            self.in_column += length;
            self.punctuation();
            let start = self.in_column;
            c = self.get_space(c)?;
            let w = &mut self.current;
            w.space = self.in_column - start;
            w.last = c.is_none() || (w.period && (c == Some(b'\n') || w.space > 1));
            if c == Some(b'\n') || c.is_none() || self.o.uniform {
                w.space = if w.last { 2 } else { 1 };
            }
            if self.words.len() == MAX_WORDS - 2 {
                self.set_other_indent(true);
                self.flush()?;
            }
            let done = self.current;
            self.words.push(done);
            if c == Some(b'\n') || c.is_none() {
                break;
            }
        }
        self.get_prefix()
    }

    fn punctuation(&mut self) {
        let w = &mut self.current;
        let text = &self.text[w.start..w.start + w.length];
        if text.is_empty() {
            return;
        }
        w.paren = b"(['`\"".contains(&text[0]);
        w.punct = text[text.len() - 1].is_ascii_punctuation();
        let mut end = text.len() - 1;
        while end > 0 && b")]'\"".contains(&text[end]) {
            end -= 1;
        }
        w.period = b".?!".contains(&text[end]);
    }

    /// Writes part of an overlong paragraph, up to a cheap break near its end.
    fn flush(&mut self) -> io::Result<()> {
        if self.words.is_empty() {
            self.out.write_all(&self.text)?;
            self.text.clear();
            self.current.start = 0;
            return Ok(());
        }
        self.optimize();
        let n = self.words.len();
        let mut split = n;
        let mut best = i64::MAX;
        let mut w = self.words[0].next_break;
        while w != n {
            let next = self.words[w].next_break;
            let next_cost = if next == n { 0 } else { self.words[next].best_cost };
            let diff = self.words[w].best_cost - next_cost;
            if diff < best {
                split = w;
                best = diff;
            }
            if best <= i64::MAX - LINE_CREDIT {
                best += LINE_CREDIT;
            }
            w = next;
        }
        self.put_paragraph(split)?;
        let shift = if split < n { self.words[split].start } else { self.current.start };
        self.text.drain(..shift);
        self.words.drain(..split);
        for w in self.words.iter_mut() {
            w.start -= shift;
        }
        self.current.start -= shift;
        Ok(())
    }

    /// The cheapest breaks for the paragraph, computed for each suffix from the end.
    fn optimize(&mut self) {
        let n = self.words.len();
        let (max_width, goal) = (self.o.max_width, self.o.goal_width as i64);
        for start in (0..n).rev() {
            let mut best = i64::MAX;
            let mut len = if start == 0 { self.first_indent } else { self.other_indent } + self.words[start].length;
            let mut w = start;
            loop {
                w += 1;
                let mut cost = self.line_cost(w, len, goal).saturating_add(if w == n { 0 } else { self.words[w].best_cost });
                if start == 0 && self.last_line_length > 0 {
                    cost = cost.saturating_add(ragged_cost(len as i64 - self.last_line_length as i64));
                }
                if cost < best {
                    best = cost;
                    self.words[start].next_break = w;
                    self.words[start].line_length = len;
                }
                if w == n {
                    break;
                }
                len += self.words[w - 1].space + self.words[w].length;
                if len >= max_width {
                    break;
                }
            }
            self.words[start].best_cost = best.saturating_add(self.base_cost(start));
        }
    }

    fn line_cost(&self, next: usize, len: usize, goal: i64) -> i64 {
        let n = self.words.len();
        if next == n {
            return 0;
        }
        let mut cost = short_cost(goal - len as i64);
        if self.words[next].next_break != n {
            cost += ragged_cost(len as i64 - self.words[next].line_length as i64);
        }
        cost
    }

    fn base_cost(&self, this: usize) -> i64 {
        let w = &self.words;
        let mut cost = LINE_COST;
        if this > 0 {
            let prev = &w[this - 1];
            if prev.period {
                if prev.last {
                    cost -= SENTENCE_BONUS;
                } else {
                    cost += NOBREAK_COST;
                }
            } else if prev.punct {
                cost -= PUNCT_BONUS;
            } else if this > 1 && w[this - 2].last {
                cost += equiv(200) / (prev.length as i64 + 2);
            }
        }
        if w[this].paren {
            cost -= PAREN_BONUS;
        } else if w[this].last {
            cost += equiv(150) / (w[this].length as i64 + 2);
        }
        cost
    }

    fn put_paragraph(&mut self, finish: usize) -> io::Result<()> {
        if self.words.is_empty() {
            return Ok(());
        }
        self.put_line(0, self.first_indent)?;
        let mut w = self.words[0].next_break;
        while w != finish && w < self.words.len() {
            self.put_line(w, self.other_indent)?;
            w = self.words[w].next_break;
        }
        Ok(())
    }

    fn put_line(&mut self, first: usize, indent: usize) -> io::Result<()> {
        self.out_column = 0;
        self.put_space(self.prefix_indent)?;
        self.out.write_all(&self.o.prefix)?;
        self.out_column += self.o.prefix.len();
        self.put_space(indent.saturating_sub(self.out_column))?;
        let end = self.words[first].next_break - 1;
        for i in first..=end {
            let w = self.words[i];
            self.out.write_all(&self.text[w.start..w.start + w.length])?;
            self.out_column += w.length;
            if i != end {
                self.put_space(w.space)?;
            }
        }
        self.last_line_length = self.out_column;
        self.out.write_all(b"\n")
    }

    /// `space` columns of blanks, as tabs where the input had tabs.
    fn put_space(&mut self, space: usize) -> io::Result<()> {
        let target = self.out_column + space;
        if self.tabs {
            let tab_target = target / TAB * TAB;
            if self.out_column + 1 < tab_target {
                while self.out_column < tab_target {
                    self.out.write_all(b"\t")?;
                    self.out_column = (self.out_column / TAB + 1) * TAB;
                }
            }
        }
        while self.out_column < target {
            self.out.write_all(b" ")?;
            self.out_column += 1;
        }
        Ok(())
    }
}
