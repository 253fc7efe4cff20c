//! Searching one input and printing what grep prints for it. Input is read in large
//! blocks; the regex's fast candidate search runs over a whole block so that runs of
//! non-matching lines are skipped without looking at them one by one (grep -c, grep -E on
//! big logs). Lines are only visited individually when they are printed, inverted,
//! or kept for context.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};

use common::regex::Regex;

use super::{write_colored, write_name, BinaryMode, Config};

/// What the caller learns about one input.
#[derive(Default)]
pub struct Outcome {
    /// Selected lines (stops counting at -m).
    pub count: u64,
    /// -q: stop everything now.
    pub quit: bool,
}

pub struct Searcher<'c, 'o> {
    config: &'c Config,
    re: &'c Regex,
    out: &'o mut dyn Write,
    name: &'c [u8],
    show_name: bool,
    /// Set when a `--` separator is due before the next printed group (shared across files).
    pub printed_any: &'c mut bool,
    lineno: u64,
    /// Byte offset of the start of the current block in the input.
    block_offset: u64,
    count: u64,
    after_left: usize,
    /// Line number of the last line printed in this input, for deciding on `--`.
    last_printed: Option<u64>,
    ring: VecDeque<(u64, u64, Vec<u8>)>,
    /// The input held a NUL: lines are no longer printed (GNU's binary file handling).
    binary: bool,
    /// Offset of the first NUL seen (rg's report).
    nul_offset: u64,
    /// rg --heading: the name is still to be printed before this input's first line.
    header_due: bool,
    binary_matched: bool,
    encoding_error: bool,
    /// -m reached: only trailing context is still printed.
    stopping: bool,
    done: bool,
    quit: bool,
}

impl<'c, 'o> Searcher<'c, 'o> {
    pub fn new(config: &'c Config, re: &'c Regex, out: &'o mut dyn Write, name: &'c [u8], show_name: bool, printed_any: &'c mut bool) -> Self {
        Searcher {
            config,
            re,
            out,
            name,
            show_name,
            printed_any,
            lineno: 0,
            block_offset: 0,
            count: 0,
            after_left: 0,
            last_printed: None,
            ring: VecDeque::new(),
            binary: false,
            nul_offset: 0,
            header_due: config.heading,
            binary_matched: false,
            encoding_error: false,
            stopping: false,
            done: false,
            quit: false,
        }
    }

    /// Reads `input` to the end (or until grep may stop) and prints what is selected.
    /// Returns the outcome and, when a "binary file matches" report is due, the offset of
    /// the first NUL.
    pub fn run(mut self, input: &mut dyn BufRead) -> io::Result<(Outcome, Option<u64>)> {
        let eol = self.config.eol;
        let mut buf: Vec<u8> = Vec::with_capacity(1 << 18);
        let mut eof = false;
        let mut first = true;
        while !eof && !self.done {
            let old = buf.len();
            buf.resize(old + (1 << 17), 0);
            let n = loop {
                match input.read(&mut buf[old..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        buf.truncate(old);
                        return Err(e);
                    }
                }
            };
            buf.truncate(old + n);
            if n == 0 {
                eof = true;
                if buf.is_empty() {
                    break;
                }
                if buf.last() != Some(&eol) {
                    buf.push(eol);
                }
            }
            if self.config.binary != BinaryMode::Text && eol != 0 && !self.binary {
                if let Some(i) = memchr::memchr(0, &buf[old..]) {
                    self.binary = true;
                    self.nul_offset = self.block_offset + (old + i) as u64;
                    match self.config.binary {
                        BinaryMode::WithoutMatch if first => return Ok((Outcome::default(), None)),
                        BinaryMode::Quit => {
                            // rg drops the block holding the NUL and what follows.
                            return Ok((Outcome { count: self.count, quit: self.quit }, None));
                        }
                        _ => {}
                    }
                }
            }
            first = false;
            let end = match memchr::memrchr(eol, &buf) {
                Some(i) => i + 1,
                None => continue,
            };
            let block = std::mem::take(&mut buf);
            let result = self.block(&block[..end]);
            buf = block;
            result?;
            self.block_offset += end as u64;
            buf.drain(..end);
        }
        let report = (self.binary_matched || (self.encoding_error && self.config.binary == BinaryMode::Binary)) && !self.config.quiet_output();
        Ok((Outcome { count: self.count, quit: self.quit }, if report { Some(self.nul_offset) } else { None }))
    }

    /// A block of whole lines.
    fn block(&mut self, block: &[u8]) -> io::Result<()> {
        let mut pos = 0;
        while pos < block.len() && !self.done {
            let next = if self.stopping { None } else { self.next_matching_line(block, pos) };
            let gap_end = next.map_or(block.len(), |(start, _)| start);
            if gap_end > pos {
                self.gap(block, pos, gap_end)?;
            }
            match next {
                Some((start, end)) if !self.done => {
                    self.line(block, start, end, true)?;
                    pos = end + 1;
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// The next line at or after `pos` that the pattern matches: (start, index of its eol).
    fn next_matching_line(&self, block: &[u8], mut pos: usize) -> Option<(usize, usize)> {
        let eol = self.config.eol;
        if !self.config.block_search {
            while pos < block.len() {
                let end = pos + memchr::memchr(eol, &block[pos..])?;
                if self.re.is_match(&block[pos..end]) {
                    return Some((pos, end));
                }
                pos = end + 1;
            }
            return None;
        }
        while pos < block.len() {
            let (s, e) = self.re.find_candidate(block, pos)?;
            if s >= block.len() {
                return None;
            }
            let start = memchr::memrchr(eol, &block[pos..s]).map_or(pos, |i| pos + i + 1);
            let end = s + memchr::memchr(eol, &block[s..])?;
            if (self.re.candidates_are_exact() && e <= end) || self.re.is_match(&block[start..end]) {
                return Some((start, end));
            }
            pos = end + 1;
        }
        None
    }

    /// Lines [from, to) that the pattern does not match.
    fn gap(&mut self, block: &[u8], mut from: usize, to: usize) -> io::Result<()> {
        let eol = self.config.eol;
        let visit_all = self.config.invert || self.stopping;
        while from < to && !self.done && (visit_all || self.after_left > 0) {
            let end = from + memchr::memchr(eol, &block[from..to]).unwrap_or(to - from - 1);
            self.line(block, from, end, false)?;
            from = end + 1;
        }
        if from >= to || self.done {
            return Ok(());
        }
        // Only the last B lines can be printed (as before-context); skip the rest.
        let keep = self.config.before;
        let mut skip_to = to;
        for _ in 0..keep {
            match memchr::memrchr(eol, &block[from..skip_to - 1]) {
                Some(i) => skip_to = from + i + 1,
                None => {
                    skip_to = from;
                    break;
                }
            }
        }
        if self.config.needs_line_numbers {
            self.lineno += memchr::memchr_iter(eol, &block[from..skip_to]).count() as u64;
        }
        let mut at = skip_to;
        while at < to && keep > 0 {
            let end = at + memchr::memchr(eol, &block[at..to]).unwrap_or(to - at - 1);
            self.line(block, at, end, false)?;
            at = end + 1;
        }
        Ok(())
    }

    /// One line [start, end) (end = its eol) that the pattern matched or not.
    fn line(&mut self, block: &[u8], start: usize, end: usize, matched: bool) -> io::Result<()> {
        self.lineno += 1;
        let offset = self.block_offset + start as u64;
        let text = &block[start..end];
        let config = self.config;
        let selected = matched != config.invert && !self.stopping;
        if !selected {
            if self.after_left > 0 {
                self.after_left -= 1;
                self.print_line(text, b'-', offset)?;
                if self.stopping && self.after_left == 0 {
                    self.done = true;
                }
            } else if self.stopping {
                self.done = true;
            } else if config.before > 0 {
                if self.ring.len() == config.before {
                    self.ring.pop_front();
                }
                self.ring.push_back((self.lineno, offset, text.to_vec()));
            }
            return Ok(());
        }
        self.count += 1;
        if config.max_count.map_or(false, |m| self.count >= m) {
            self.stopping = true;
            if config.after == 0 || config.quiet_output() || config.only_matching {
                self.done = true;
            }
        }
        if config.quiet {
            self.quit = true;
            self.done = true;
            return Ok(());
        }
        if config.list_files.is_some() {
            self.done = true;
            return Ok(());
        }
        if config.count_only {
            return Ok(());
        }
        if self.binary {
            self.binary_matched = true;
            self.done = true;
            return Ok(());
        }
        let ring = std::mem::take(&mut self.ring);
        for (lineno, off, text) in &ring {
            self.separator(*lineno)?;
            self.emit(text, b'-', *lineno, *off)?;
        }
        self.separator(self.lineno)?;
        self.emit(text, b':', self.lineno, offset)?;
        self.after_left = config.after;
        Ok(())
    }

    fn print_line(&mut self, text: &[u8], sep: u8, offset: u64) -> io::Result<()> {
        if self.config.quiet_output() || self.binary {
            return Ok(());
        }
        self.separator(self.lineno)?;
        self.emit(text, sep, self.lineno, offset)
    }

    /// `--` between groups of context that are not adjacent.
    fn separator(&mut self, lineno: u64) -> io::Result<()> {
        let config = self.config;
        if self.header_due {
            // rg --heading: a blank line between files instead of `--`.
            if *self.printed_any {
                self.out.write_all(b"\n")?;
            }
            return Ok(());
        }
        if config.context_given && *self.printed_any && self.last_printed.map_or(true, |l| lineno > l + 1) && config.group_separator.is_some() {
            let sep = config.group_separator.as_deref().unwrap_or(b"--");
            write_colored(self.out, sep, config.colors.as_ref().map(|p| &p.separator[..]), config)?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Prints a line (or its matches with -o) with its prefix. Coloured, as GNU grep's
    /// print_line_middle and print_line_tail: the matches of a matching line (a selected one,
    /// or a context one under -v) in `ms`/`mc`, the text around them in `sl`/`cx`.
    fn emit(&mut self, text: &[u8], sep: u8, lineno: u64, offset: u64) -> io::Result<()> {
        let config = self.config;
        let selected = sep == b':';
        let (match_color, line_color) = match &config.colors {
            Some(p) => (
                if selected { &p.selected_match[..] } else { &p.context_match[..] },
                if selected != (config.invert && p.reverse) { &p.selected_line[..] } else { &p.context_line[..] },
            ),
            None => (&[][..], &[][..]),
        };
        self.last_printed = Some(lineno);
        *self.printed_any = true;
        if config.only_matching {
            if sep != b':' {
                return Ok(());
            }
            for (s, e) in nonempty_matches(self.re, text) {
                let part = &text[s..e];
                if config.binary == BinaryMode::Binary && std::str::from_utf8(part).is_err() {
                    self.encoding_error = true;
                } else {
                    self.prefix(sep, lineno, offset + s as u64, part.is_empty())?;
                    write_colored(self.out, part, Some(match_color), config)?;
                    self.out.write_all(&[config.eol])?;
                }
            }
            return self.flush_if_line_buffered();
        }
        if config.binary == BinaryMode::Binary && std::str::from_utf8(text).is_err() {
            self.encoding_error = true;
            return Ok(());
        }
        self.prefix(sep, lineno, offset, text.is_empty())?;
        let mut last = 0;
        if !match_color.is_empty() && selected != config.invert {
            for (s, e) in nonempty_matches(self.re, text) {
                // GNU starts the line colour before the text ahead of each match and lets
                // the match's own colour end it.
                self.out.write_all(line_color)?;
                self.out.write_all(&text[last..s])?;
                write_colored(self.out, &text[s..e], Some(match_color), config)?;
                last = e;
            }
        }
        let rest = &text[last..];
        // The line colour stops before a carriage return ending the line, and an empty
        // tail gets none.
        let tail = if rest.last() == Some(&b'\r') { rest.len() - 1 } else { rest.len() };
        write_colored(self.out, &rest[..tail], if tail > 0 { Some(line_color) } else { None }, config)?;
        self.out.write_all(&rest[tail..])?;
        self.out.write_all(&[config.eol])?;
        self.flush_if_line_buffered()
    }

    fn flush_if_line_buffered(&mut self) -> io::Result<()> {
        if self.config.line_buffered {
            self.out.flush()?;
        }
        Ok(())
    }

    fn sep(&mut self, sep: u8) -> io::Result<()> {
        write_colored(self.out, &[sep], self.config.colors.as_ref().map(|p| &p.separator[..]), self.config)
    }

    fn prefix(&mut self, sep: u8, lineno: u64, offset: u64, empty: bool) -> io::Result<()> {
        let config = self.config;
        let palette = config.colors.as_ref();
        if self.header_due {
            self.header_due = false;
            write_name(self.out, self.name, config)?;
            self.out.write_all(b"\n")?;
        }
        if self.show_name {
            write_name(self.out, self.name, config)?;
            if config.null_after_name {
                self.out.write_all(b"\0")?;
            } else {
                self.sep(sep)?;
            }
        }
        if config.line_number {
            let text = if config.initial_tab { format!("{:>4}", lineno) } else { lineno.to_string() };
            write_colored(self.out, text.as_bytes(), palette.map(|p| &p.line_number[..]), config)?;
            self.sep(sep)?;
        }
        if config.byte_offset {
            let text = if config.initial_tab { format!("{:>9}", offset) } else { offset.to_string() };
            write_colored(self.out, text.as_bytes(), palette.map(|p| &p.byte_offset[..]), config)?;
            self.sep(sep)?;
        }
        if config.initial_tab && (self.show_name || config.line_number || config.byte_offset) && !empty {
            self.out.write_all(b"\t")?;
        }
        Ok(())
    }
}

/// The non-empty matches in `text`, left to right (-o and colouring skip empty ones).
fn nonempty_matches<'t>(re: &'t Regex, text: &'t [u8]) -> impl Iterator<Item = (usize, usize)> + 't {
    let mut pos = 0;
    std::iter::from_fn(move || {
        while pos <= text.len() {
            let (s, e) = re.find_at(text, pos)?;
            if e > s {
                pos = e;
                return Some((s, e));
            }
            pos = s + 1;
        }
        None
    })
}

/// What is printed for an input after its lines: its count under -c (`zero_counts`: a
/// count of 0 too, as grep prints and rg does not), its name under -l or -L.
pub fn summary(out: &mut dyn Write, name: &[u8], show: bool, count: u64, config: &Config, zero_counts: bool) -> io::Result<()> {
    if config.count_only && (zero_counts || count > 0) {
        if show {
            write_name(out, name, config)?;
            if config.null_after_name {
                out.write_all(b"\0")?;
            } else {
                write_colored(out, b":", config.colors.as_ref().map(|p| &p.separator[..]), config)?;
            }
        }
        writeln!(out, "{}", count)?;
    }
    if config.list_files == Some(count > 0) {
        write_name(out, name, config)?;
        out.write_all(if config.null_after_name { b"\0" } else { b"\n" })?;
    }
    Ok(())
}
