//! `diff --color`: GNU diff's colours, put on the finished output line by line — file
//! headers bold, hunk headers cyan, deleted lines red, added lines green (in the context
//! format, every line of the old and new sections). Other formats are not coloured.

use std::io::{self, Write};

use super::format::Style;

const HEADER: &str = "1";
const HUNK: &str = "36";
const OLD: &str = "31";
const NEW: &str = "32";

/// Which section of a context-format hunk the lines are in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Old,
    New,
}

pub struct Painter<'a> {
    inner: &'a mut dyn Write,
    style: Style,
    line: Vec<u8>,
    /// Unified: the old and new lines left in the current hunk.
    left: (u64, u64),
    section: Section,
}

impl<'a> Painter<'a> {
    /// Whether `style` is one GNU colours.
    pub fn colours(style: Style) -> bool {
        matches!(style, Style::Normal | Style::Unified | Style::Context)
    }

    pub fn new(inner: &'a mut dyn Write, style: Style) -> Painter<'a> {
        Painter { inner, style, line: Vec::new(), left: (0, 0), section: Section::None }
    }

    fn colour_of(&mut self, line: &[u8]) -> Option<&'static str> {
        match self.style {
            Style::Normal => match line.first() {
                Some(b'<') => Some(OLD),
                Some(b'>') => Some(NEW),
                Some(c) if c.is_ascii_digit() => Some(HUNK),
                _ => None,
            },
            Style::Unified => {
                if self.left != (0, 0) {
                    match line.first() {
                        Some(b' ') => {
                            self.left = (self.left.0.saturating_sub(1), self.left.1.saturating_sub(1));
                            return None;
                        }
                        Some(b'-') => {
                            self.left.0 = self.left.0.saturating_sub(1);
                            return Some(OLD);
                        }
                        Some(b'+') => {
                            self.left.1 = self.left.1.saturating_sub(1);
                            return Some(NEW);
                        }
                        Some(b'\\') => return None,
                        _ => self.left = (0, 0),
                    }
                }
                if line.starts_with(b"@@ ") {
                    self.left = hunk_counts(line);
                    Some(HUNK)
                } else if line.starts_with(b"--- ") || line.starts_with(b"+++ ") {
                    Some(HEADER)
                } else {
                    None
                }
            }
            Style::Context => {
                // Lines of a section have a two-character prefix ending in a space.
                let content = line.len() >= 2 && line[1] == b' ' && b" -+!".contains(&line[0]);
                if content && self.section != Section::None {
                    return Some(if self.section == Section::Old { OLD } else { NEW });
                }
                if line.starts_with(b"\\") {
                    return None;
                }
                if line == b"***************" {
                    self.section = Section::None;
                    return None;
                }
                let hunk_old = line.starts_with(b"*** ") && line.ends_with(b" ****");
                let hunk_new = line.starts_with(b"--- ") && line.ends_with(b" ----");
                if hunk_old || hunk_new {
                    self.section = if hunk_old { Section::Old } else { Section::New };
                    return Some(HUNK);
                }
                self.section = Section::None;
                if line.starts_with(b"*** ") || line.starts_with(b"--- ") {
                    Some(HEADER)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn emit(&mut self, newline: bool) -> io::Result<()> {
        let line = std::mem::take(&mut self.line);
        match self.colour_of(&line) {
            Some(code) => {
                write!(self.inner, "\x1b[{}m", code)?;
                self.inner.write_all(&line)?;
                self.inner.write_all(b"\x1b[0m")?;
            }
            None => self.inner.write_all(&line)?,
        }
        if newline {
            self.inner.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// The old and new line counts of `@@ -a[,b] +c[,d] @@` (a count left out is 1).
fn hunk_counts(line: &[u8]) -> (u64, u64) {
    let text = String::from_utf8_lossy(line);
    let mut counts = (0, 0);
    for word in text.split(' ').skip(1).take(2) {
        if !(word.starts_with('-') || word.starts_with('+')) {
            continue;
        }
        let count = match word[1..].split_once(',') {
            Some((_, n)) => n.parse().unwrap_or(0),
            None => 1,
        };
        if word.starts_with('-') {
            counts.0 = count;
        } else if word.starts_with('+') {
            counts.1 = count;
        }
    }
    counts
}

impl<'a> Write for Painter<'a> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for part in buf.split_inclusive(|b| *b == b'\n') {
            match part.split_last() {
                Some((b'\n', body)) => {
                    self.line.extend_from_slice(body);
                    self.emit(true)?;
                }
                _ => self.line.extend_from_slice(part),
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.line.is_empty() {
            self.emit(false)?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paint(style: Style, text: &str) -> String {
        let mut out = Vec::new();
        {
            let mut painter = Painter::new(&mut out, style);
            painter.write_all(text.as_bytes()).unwrap();
            painter.flush().unwrap();
        }
        String::from_utf8(out).unwrap().replace('\x1b', "^[")
    }

    #[test]
    fn colours_as_gnu_diff() {
        assert_eq!(paint(Style::Normal, "2c2\n< b\n---\n> B\n"), "^[[36m2c2^[[0m\n^[[31m< b^[[0m\n---\n^[[32m> B^[[0m\n");
        assert_eq!(
            paint(Style::Unified, "--- p\n+++ q\n@@ -1,2 +1 @@\n a\n--- x\n@@ -5 +4 @@\n-y\n+z\nOnly in r1: only\n"),
            "^[[1m--- p^[[0m\n^[[1m+++ q^[[0m\n^[[36m@@ -1,2 +1 @@^[[0m\n a\n^[[31m--- x^[[0m\n^[[36m@@ -5 +4 @@^[[0m\n^[[31m-y^[[0m\n^[[32m+z^[[0m\nOnly in r1: only\n"
        );
        assert_eq!(
            paint(Style::Context, "*** p\n--- q\n***************\n*** 1,2 ****\n  a\n! b\n--- 1,2 ----\n  a\n! B\n"),
            "^[[1m*** p^[[0m\n^[[1m--- q^[[0m\n***************\n^[[36m*** 1,2 ****^[[0m\n^[[31m  a^[[0m\n^[[31m! b^[[0m\n^[[36m--- 1,2 ----^[[0m\n^[[32m  a^[[0m\n^[[32m! B^[[0m\n"
        );
    }
}
