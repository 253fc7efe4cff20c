//! The inputs as diff sees them: split into lines (keeping whether the last one had a
//! newline), and the keys under which lines compare equal with -i, -w, -b, -E and -Z.

use std::borrow::Cow;

/// One input split into lines. Line `i` spans `starts[i]..starts[i + 1]`, newline included.
pub struct Text {
    pub data: Vec<u8>,
    starts: Vec<usize>,
    pub missing_newline: bool,
}

impl Text {
    /// Splits `data`; with `strip_cr`, a carriage return before a newline is dropped, as
    /// --strip-trailing-cr does on input (one ending the file without a newline stays).
    pub fn new(mut data: Vec<u8>, strip_cr: bool) -> Text {
        if strip_cr {
            let mut out = Vec::with_capacity(data.len());
            for (i, &b) in data.iter().enumerate() {
                if b == b'\r' && data.get(i + 1) == Some(&b'\n') {
                    continue;
                }
                out.push(b);
            }
            data = out;
        }
        let mut starts = vec![0];
        for i in memchr::memchr_iter(b'\n', &data) {
            starts.push(i + 1);
        }
        let missing_newline = !data.is_empty() && data[data.len() - 1] != b'\n';
        if missing_newline {
            starts.push(data.len());
        }
        Text { data, starts, missing_newline }
    }

    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Line `i` with its newline, if it has one.
    pub fn line(&self, i: usize) -> &[u8] {
        &self.data[self.starts[i]..self.starts[i + 1]]
    }

    /// Line `i` without its newline.
    pub fn content(&self, i: usize) -> &[u8] {
        let line = self.line(i);
        match line.last() {
            Some(b'\n') => &line[..line.len() - 1],
            _ => line,
        }
    }

    /// Whether line `i` is the last one and has no newline.
    pub fn incomplete(&self, i: usize) -> bool {
        self.missing_newline && i + 1 == self.len()
    }
}

/// How white space is compared (GNU's order matters: later ones ignore more).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum WhiteSpace {
    Exact,
    TabExpansion,
    Trailing,
    TabExpansionAndTrailing,
    Change,
    All,
}

/// What counts as equal lines.
#[derive(Clone, Copy, Debug)]
pub struct Compare {
    pub ignore_case: bool,
    pub white: WhiteSpace,
    pub tabsize: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

impl Compare {
    /// The bytes two lines must share to be equal (content without the newline).
    pub fn key<'a>(&self, line: &'a [u8]) -> Cow<'a, [u8]> {
        let fold = |c: u8| if self.ignore_case { c.to_ascii_lowercase() } else { c };
        match self.white {
            WhiteSpace::Exact if !self.ignore_case => Cow::Borrowed(line),
            WhiteSpace::Exact => Cow::Owned(line.iter().map(|&c| fold(c)).collect()),
            WhiteSpace::All => Cow::Owned(line.iter().filter(|&&c| !is_space(c)).map(|&c| fold(c)).collect()),
            WhiteSpace::Change => {
                let mut out = Vec::with_capacity(line.len());
                let mut i = 0;
                while i < line.len() {
                    if is_space(line[i]) {
                        while i < line.len() && is_space(line[i]) {
                            i += 1;
                        }
                        if i == line.len() {
                            break;
                        }
                        out.push(b' ');
                    }
                    out.push(fold(line[i]));
                    i += 1;
                }
                Cow::Owned(out)
            }
            WhiteSpace::TabExpansion | WhiteSpace::Trailing | WhiteSpace::TabExpansionAndTrailing => {
                let trailing = self.white != WhiteSpace::TabExpansion;
                let expand = self.white != WhiteSpace::Trailing;
                let mut end = line.len();
                if trailing {
                    while end > 0 && is_space(line[end - 1]) {
                        end -= 1;
                    }
                }
                let mut out = Vec::with_capacity(end);
                let mut column = 0usize;
                for &c in &line[..end] {
                    if expand {
                        match c {
                            b'\x08' => column = column.saturating_sub(1),
                            b'\t' => {
                                let n = self.tabsize - column % self.tabsize;
                                column += n;
                                out.extend(std::iter::repeat(b' ').take(n));
                                continue;
                            }
                            b'\r' => column = 0,
                            _ => column += 1,
                        }
                    }
                    out.push(fold(c));
                }
                Cow::Owned(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_keys() {
        let c = Compare { ignore_case: true, white: WhiteSpace::Change, tabsize: 8 };
        assert_eq!(c.key(b"  A\t b  ").as_ref(), b" a b");
        let c = Compare { ignore_case: false, white: WhiteSpace::All, tabsize: 8 };
        assert_eq!(c.key(b" a b ").as_ref(), b"ab");
        let c = Compare { ignore_case: false, white: WhiteSpace::TabExpansion, tabsize: 8 };
        assert_eq!(c.key(b"ab\tc").as_ref(), b"ab      c");
    }

    #[test]
    fn strip_cr() {
        let t = Text::new(b"a\r\nb\r".to_vec(), true);
        assert_eq!(t.len(), 2);
        assert_eq!(t.line(0), b"a\n");
        assert_eq!(t.line(1), b"b\r");
    }
}
