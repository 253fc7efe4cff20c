//! Printing an edit script in GNU diff's formats: normal, context (-c), unified (-u),
//! ed (-e), RCS (-n) and side by side (-y, in side.rs). Hunks that consist only of
//! ignorable lines (-B, -I) are left out, and the file header is printed only once some
//! hunk is (so `diff -B` of files differing in blank lines prints nothing).

use std::io::{self, Write};

use common::regex::Regex;

use super::analyze::{Change, Text, WhiteSpace};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Style {
    Normal,
    Context,
    Unified,
    Ed,
    Rcs,
    SideBySide,
}

/// Everything about how output looks.
pub struct Format {
    pub style: Style,
    pub context: usize,
    pub initial_tab: bool,
    pub expand_tabs: bool,
    pub tabsize: usize,
    pub suppress_blank_empty: bool,
    pub ignore_blank_lines: bool,
    pub ignore_regex: Option<Regex>,
    pub function_regex: Option<Regex>,
    pub white: WhiteSpace,
    pub labels: [Option<Vec<u8>>; 2],
    pub width: usize,
    pub left_column: bool,
    pub suppress_common: bool,
}

/// One pair of inputs being printed.
pub struct Pair<'a> {
    pub texts: [&'a Text; 2],
    /// Names as shown in headers (already quoted when needed).
    pub names: [Vec<u8>; 2],
    /// Modification times (ns since the epoch) for context/unified headers.
    pub mtimes: [i128; 2],
    /// `diff -r a/x b/x` when comparing inside directories.
    pub header_line: Option<Vec<u8>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Kind {
    old: bool,
    new: bool,
}

/// How a change is read from one side of a context hunk.
struct Side {
    start: fn(&Change) -> usize,
    count: fn(&Change) -> usize,
    other_count: fn(&Change) -> usize,
    mark: &'static [u8],
}

impl Side {
    const OLD: Side = Side { start: |c| c.line0, count: |c| c.deleted, other_count: |c| c.inserted, mark: b"-" };
    const NEW: Side = Side { start: |c| c.line1, count: |c| c.inserted, other_count: |c| c.deleted, mark: b"+" };
}

/// First and last lines (inclusive; last < first when empty) of a hunk, and whether it has
/// any non-ignorable deletion or insertion.
struct Extent {
    first0: isize,
    last0: isize,
    first1: isize,
    last1: isize,
    kind: Kind,
}

impl Format {
    fn line_is_trivial(&self, line: &[u8]) -> bool {
        let content = match line.last() {
            Some(b'\n') => &line[..line.len() - 1],
            _ => line,
        };
        if self.ignore_blank_lines {
            let blank = if self.white >= WhiteSpace::Trailing { content.iter().all(|c| c.is_ascii_whitespace() || *c == b'\x0b') } else { content.is_empty() };
            if blank {
                return true;
            }
        }
        match &self.ignore_regex {
            Some(re) => re.is_match(content),
            None => false,
        }
    }

    fn analyze_hunk(&self, pair: &Pair, hunk: &[Change]) -> Extent {
        let trivial_possible = self.ignore_blank_lines || self.ignore_regex.is_some();
        let mut trivial = trivial_possible;
        let (mut show_from, mut show_to) = (0, 0);
        for c in hunk {
            show_from += c.deleted;
            show_to += c.inserted;
            if trivial {
                trivial = (c.line0..c.line0 + c.deleted).all(|i| self.line_is_trivial(pair.texts[0].line(i))) && (c.line1..c.line1 + c.inserted).all(|i| self.line_is_trivial(pair.texts[1].line(i)));
            }
        }
        let (first, last) = (&hunk[0], &hunk[hunk.len() - 1]);
        Extent {
            first0: first.line0 as isize,
            last0: (last.line0 + last.deleted) as isize - 1,
            first1: first.line1 as isize,
            last1: (last.line1 + last.inserted) as isize - 1,
            kind: if trivial { Kind { old: false, new: false } } else { Kind { old: show_from > 0, new: show_to > 0 } },
        }
    }

    /// Whether some change is not entirely ignorable (-B, -I).
    pub fn has_visible(&self, pair: &Pair, changes: &[Change]) -> bool {
        changes.iter().any(|c| self.analyze_hunk(pair, std::slice::from_ref(c)).kind.any())
    }

    /// Prints the script; returns whether anything was printed.
    pub fn print(&self, pair: &Pair, changes: &[Change], out: &mut dyn Write) -> io::Result<bool> {
        let mut printer = Printer { format: self, pair, out, started: false, last_search: 0, last_match: None };
        match self.style {
            Style::Normal | Style::Rcs => {
                for c in changes {
                    printer.simple_hunk(std::slice::from_ref(c))?;
                }
            }
            Style::Ed => {
                for c in changes.iter().rev() {
                    printer.simple_hunk(std::slice::from_ref(c))?;
                }
            }
            Style::Context | Style::Unified => {
                let ignorable: Vec<bool> = changes.iter().map(|c| !self.analyze_hunk(pair, std::slice::from_ref(c)).kind.any()).collect();
                let mut start = 0;
                while start < changes.len() {
                    let mut end = start;
                    loop {
                        let top0 = changes[end].line0 + changes[end].deleted;
                        if end + 1 >= changes.len() {
                            break;
                        }
                        let threshold = if ignorable[end + 1] { self.context } else { 2 * self.context + 1 };
                        if changes[end + 1].line0 - top0 >= threshold {
                            break;
                        }
                        end += 1;
                    }
                    printer.context_hunk(&changes[start..=end])?;
                    start = end + 1;
                }
            }
            Style::SideBySide => super::side::print(&mut printer, changes)?,
        }
        Ok(printer.started)
    }
}

impl Kind {
    fn any(self) -> bool {
        self.old || self.new
    }
}

pub struct Printer<'a, 'b> {
    pub format: &'a Format,
    pub pair: &'a Pair<'a>,
    pub out: &'b mut dyn Write,
    pub started: bool,
    last_search: isize,
    last_match: Option<usize>,
}

/// `2024-01-31 12:00:00.123456789 +0000` (UTC: the sandbox has no time zones).
pub fn timestamp(ns: i128) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let nanos = ns.rem_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = common::timefmt::civil_from_days(days as i64);
    format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:09} +0000", year, month, day, rem / 3600, rem / 60 % 60, rem % 60, nanos)
}

impl<'a, 'b> Printer<'a, 'b> {
    /// The `diff -r` line and the context/unified file header, once, before the first hunk.
    pub fn begin(&mut self) -> io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        if let Some(line) = &self.pair.header_line {
            self.out.write_all(line)?;
            self.out.write_all(b"\n")?;
        }
        let marks: [&[u8]; 2] = match self.format.style {
            Style::Context => [b"***", b"---"],
            Style::Unified => [b"---", b"+++"],
            _ => return Ok(()),
        };
        for f in 0..2 {
            self.out.write_all(marks[f])?;
            self.out.write_all(b" ")?;
            match &self.format.labels[f] {
                Some(label) => self.out.write_all(label)?,
                None => {
                    self.out.write_all(&self.pair.names[f])?;
                    self.out.write_all(b"\t")?;
                    self.out.write_all(timestamp(self.pair.mtimes[f]).as_bytes())?;
                }
            }
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Writes a line's text, expanding tabs for -t.
    fn text(&mut self, line: &[u8], flag_format: Option<&[u8]>) -> io::Result<()> {
        if !self.format.expand_tabs {
            return self.out.write_all(line);
        }
        let mut column = 0usize;
        let mut buf = Vec::with_capacity(line.len() + 16);
        for (k, &c) in line.iter().enumerate() {
            match c {
                b'\t' => {
                    let n = self.format.tabsize - column % self.format.tabsize;
                    column += n;
                    buf.extend(std::iter::repeat(b' ').take(n));
                }
                b'\r' => {
                    buf.push(c);
                    if let Some(flag) = flag_format {
                        if k + 1 < line.len() && line[k + 1] != b'\n' {
                            buf.extend_from_slice(flag);
                        }
                    }
                    column = 0;
                }
                b'\x08' => {
                    if column > 0 {
                        column -= 1;
                        buf.push(c);
                    }
                }
                _ => {
                    if (0x20..0x7f).contains(&c) {
                        column += 1;
                    }
                    buf.push(c);
                }
            }
        }
        self.out.write_all(&buf)
    }

    /// GNU's print_1_line: optional flag ("<", ">", " ", "!", "+", "-") and separator, the
    /// line, and the "\ No newline at end of file" marker (not for ed scripts).
    fn line(&mut self, flag: Option<&[u8]>, text: &Text, i: usize) -> io::Result<()> {
        let line = text.line(i);
        let mut flag_format = None;
        if let Some(flag) = flag.filter(|f| !f.is_empty()) {
            let sep: &[u8] = if self.format.initial_tab { b"\t" } else { b" " };
            let mut full = flag.to_vec();
            full.extend_from_slice(sep);
            if self.format.suppress_blank_empty && line == b"\n" {
                self.out.write_all(flag)?;
            } else {
                self.out.write_all(&full)?;
            }
            flag_format = Some(full);
        }
        self.text(line, flag_format.as_deref())?;
        let marker = flag.map_or(true, |f| !f.is_empty());
        if marker && line.last() != Some(&b'\n') {
            self.out.write_all(b"\n\\ No newline at end of file\n")?;
        }
        Ok(())
    }

    /// Normal, ed and RCS hunks: one change each.
    fn simple_hunk(&mut self, hunk: &[Change]) -> io::Result<()> {
        let e = self.format.analyze_hunk(self.pair, hunk);
        if !e.kind.any() {
            return Ok(());
        }
        self.begin()?;
        let letter = match (e.kind.old, e.kind.new) {
            (true, true) => b'c',
            (true, false) => b'd',
            _ => b'a',
        };
        let [t0, t1] = self.pair.texts;
        match self.format.style {
            Style::Normal => {
                let header = format!("{}{}{}\n", range(e.first0, e.last0, ","), letter as char, range(e.first1, e.last1, ","));
                self.out.write_all(header.as_bytes())?;
                if e.kind.old {
                    for i in e.first0..=e.last0 {
                        self.line(Some(b"<"), t0, i as usize)?;
                    }
                }
                if e.kind.old && e.kind.new {
                    self.out.write_all(b"---\n")?;
                }
                if e.kind.new {
                    for i in e.first1..=e.last1 {
                        self.line(Some(b">"), t1, i as usize)?;
                    }
                }
            }
            Style::Ed => {
                let header = format!("{}{}\n", range(e.first0, e.last0, ","), letter as char);
                self.out.write_all(header.as_bytes())?;
                if e.kind.new {
                    let mut insert_mode = true;
                    for i in e.first1..=e.last1 {
                        if !insert_mode {
                            self.out.write_all(b"a\n")?;
                            insert_mode = true;
                        }
                        let line = t1.line(i as usize);
                        if line == b".\n" || line == b"." {
                            // A lone "." would end the insertion: write "..", then remove a dot.
                            self.out.write_all(b"..\n.\ns/.//\n")?;
                            insert_mode = false;
                        } else {
                            self.line(Some(b""), t1, i as usize)?;
                            if line.last() != Some(&b'\n') {
                                self.out.write_all(b"\n")?;
                            }
                        }
                    }
                    if insert_mode {
                        self.out.write_all(b".\n")?;
                    }
                }
            }
            _ => {
                // RCS: "dN COUNT" then "aN COUNT" with the new lines.
                let (f0, l0) = (e.first0 + 1, e.last0 + 1);
                if e.kind.old {
                    let count = if f0 <= l0 { l0 - f0 + 1 } else { 1 };
                    self.out.write_all(format!("d{} {}\n", f0, count).as_bytes())?;
                }
                if e.kind.new {
                    let (f1, l1) = (e.first1 + 1, e.last1 + 1);
                    let count = if f1 <= l1 { l1 - f1 + 1 } else { 1 };
                    self.out.write_all(format!("a{} {}\n", l0, count).as_bytes())?;
                    for i in e.first1..=e.last1 {
                        self.line(Some(b""), t1, i as usize)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The most recent line before `before` matching -F/-p, as GNU finds it.
    fn find_function(&mut self, before: isize) -> Option<Vec<u8>> {
        let re = self.format.function_regex.as_ref()?;
        let text = self.pair.texts[0];
        let last = self.last_search;
        self.last_search = before;
        let mut i = before;
        while last <= i - 1 {
            i -= 1;
            if re.is_match(text.content(i as usize)) {
                self.last_match = Some(i as usize);
                return Some(text.content(i as usize).to_vec());
            }
        }
        self.last_match.map(|m| text.content(m).to_vec())
    }

    fn function_suffix(&mut self, before: isize) -> Vec<u8> {
        let function = match self.find_function(before) {
            Some(f) => f,
            None => return Vec::new(),
        };
        let space = |c: u8| c.is_ascii_whitespace() || c == b'\x0b';
        let mut i = 0;
        while i < function.len() && space(function[i]) {
            i += 1;
        }
        let mut j = (i + 40).min(function.len());
        while j > i && space(function[j - 1]) {
            j -= 1;
        }
        let mut out = vec![b' '];
        out.extend_from_slice(&function[i..j]);
        out
    }

    /// A context or unified hunk: several changes with the lines between and around them.
    fn context_hunk(&mut self, hunk: &[Change]) -> io::Result<()> {
        let e = self.format.analyze_hunk(self.pair, hunk);
        if !e.kind.any() {
            return Ok(());
        }
        let [t0, t1] = self.pair.texts;
        let context = self.format.context as isize;
        let first0 = (e.first0 - context).max(0);
        let first1 = (e.first1 - context).max(0);
        let last0 = (e.last0 + context).min(t0.len() as isize - 1);
        let last1 = (e.last1 + context).min(t1.len() as isize - 1);
        let function = self.function_suffix(first0);
        self.begin()?;
        if self.format.style == Style::Unified {
            let mut header = b"@@ -".to_vec();
            header.extend_from_slice(unified_range(first0, last0).as_bytes());
            header.extend_from_slice(b" +");
            header.extend_from_slice(unified_range(first1, last1).as_bytes());
            header.extend_from_slice(b" @@");
            header.extend_from_slice(&function);
            header.push(b'\n');
            self.out.write_all(&header)?;
            let (mut i, mut j) = (first0, first1);
            let mut next = hunk.iter().peekable();
            while i <= last0 || j <= last1 {
                match next.peek() {
                    Some(c) if i >= c.line0 as isize => {
                        for k in 0..c.deleted {
                            self.unified_line(b'-', t0, c.line0 + k)?;
                        }
                        for k in 0..c.inserted {
                            self.unified_line(b'+', t1, c.line1 + k)?;
                        }
                        i += c.deleted as isize;
                        j += c.inserted as isize;
                        next.next();
                    }
                    _ => {
                        let line = t0.line(i as usize);
                        if !(self.format.suppress_blank_empty && line == b"\n") {
                            self.out.write_all(if self.format.initial_tab { b"\t" } else { b" " })?;
                        }
                        self.line(None, t0, i as usize)?;
                        i += 1;
                        j += 1;
                    }
                }
            }
            return Ok(());
        }
        let mut header = b"***************".to_vec();
        header.extend_from_slice(&function);
        header.extend_from_slice(b"\n*** ");
        header.extend_from_slice(range(first0, last0, ",").as_bytes());
        header.extend_from_slice(b" ****\n");
        self.out.write_all(&header)?;
        if e.kind.old {
            self.context_side(hunk, Side::OLD, t0, first0..=last0)?;
        }
        self.out.write_all(format!("--- {} ----\n", range(first1, last1, ",")).as_bytes())?;
        if e.kind.new {
            self.context_side(hunk, Side::NEW, t1, first1..=last1)?;
        }
        Ok(())
    }

    /// One side of a context hunk: each line flagged `!` where the change also has lines on
    /// the other side, the side's own mark (`-` or `+`) where it has not, else ` `.
    fn context_side(&mut self, hunk: &[Change], side: Side, text: &Text, lines: std::ops::RangeInclusive<isize>) -> io::Result<()> {
        let mut next = 0;
        for i in lines {
            while next < hunk.len() && ((side.start)(&hunk[next]) + (side.count)(&hunk[next])) as isize <= i {
                next += 1;
            }
            let flag: &[u8] = match hunk.get(next) {
                Some(c) if (side.start)(c) as isize <= i => {
                    if (side.other_count)(c) > 0 {
                        b"!"
                    } else {
                        side.mark
                    }
                }
                _ => b" ",
            };
            self.line(Some(flag), text, i as usize)?;
        }
        Ok(())
    }

    fn unified_line(&mut self, mark: u8, text: &Text, i: usize) -> io::Result<()> {
        self.out.write_all(&[mark])?;
        if self.format.initial_tab {
            self.out.write_all(b"\t")?;
        }
        self.line(None, text, i)
    }

    /// Side-by-side helpers need the raw output and the lines.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    /// (first0, last0, first1, last1, old, new) of one change, or None when ignorable.
    pub fn extent(&self, change: &Change) -> Option<(usize, usize, usize, usize, bool, bool)> {
        let e = self.format.analyze_hunk(self.pair, std::slice::from_ref(change));
        if !e.kind.any() {
            return None;
        }
        Some((e.first0 as usize, (e.last0 + 1) as usize, e.first1 as usize, (e.last1 + 1) as usize, e.kind.old, e.kind.new))
    }
}

/// A 1-based line range for normal and context output: "a,b", or "b" when it has one line
/// or none (then b is the line before).
fn range(first: isize, last: isize, sep: &str) -> String {
    let (a, b) = (first + 1, last + 1);
    if b <= a {
        format!("{}", b)
    } else {
        format!("{}{}{}", a, sep, b)
    }
}

/// A unified hunk range: "start,count", "start" for one line, "before,0" for none.
fn unified_range(first: isize, last: isize) -> String {
    let (a, b) = (first + 1, last + 1);
    if b < a {
        format!("{},0", b)
    } else if b == a {
        format!("{}", b)
    } else {
        format!("{},{}", a, b - a + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(0), "1970-01-01 00:00:00.000000000 +0000");
        assert_eq!(timestamp(1_700_000_000_123_456_789), "2023-11-14 22:13:20.123456789 +0000");
    }

    #[test]
    fn ranges() {
        assert_eq!(range(0, 2, ","), "1,3");
        assert_eq!(range(2, 2, ","), "3");
        assert_eq!(range(2, 1, ","), "2");
        assert_eq!(unified_range(0, -1), "0,0");
        assert_eq!(unified_range(4, 4), "5");
        assert_eq!(unified_range(4, 6), "5,3");
    }
}
