//! Side-by-side output (-y): both files in two columns of `-W` width with a gutter mark
//! (`|` changed, `<` only left, `>` only right, `(`/`)` common lines with --left-column),
//! laid out with tabs exactly as GNU sdiff-format output is.

use std::io;

use super::analyze::{Change, Text};
use super::format::Printer;

const GUTTER: usize = 3;

struct Layout {
    half_width: usize,
    column2: usize,
    tabsize: usize,
    expand_tabs: bool,
}

impl Layout {
    fn new(width: usize, tabsize: usize, expand_tabs: bool) -> Layout {
        let t = if expand_tabs { 1 } else { tabsize };
        let off = (width + t + GUTTER) / (2 * t) * t;
        let half_width = off.saturating_sub(GUTTER).min(width.saturating_sub(off));
        let column2 = if half_width > 0 { off } else { width };
        Layout { half_width, column2, tabsize, expand_tabs }
    }

    /// Moves from column `from` to `to` with tabs (unless -t) and spaces.
    fn tab_from_to(&self, out: &mut Vec<u8>, mut from: usize, to: usize) -> usize {
        if !self.expand_tabs {
            let mut tab = from + self.tabsize - from % self.tabsize;
            while tab <= to {
                out.push(b'\t');
                from = tab;
                tab += self.tabsize;
            }
        }
        while from < to {
            out.push(b' ');
            from += 1;
        }
        to
    }

    /// Half a line, cut at `bound` columns; returns the last column written.
    fn half_line(&self, out: &mut Vec<u8>, line: &[u8], indent: usize, bound: usize) -> usize {
        let (mut in_pos, mut out_pos) = (0usize, 0usize);
        let mut k = 0;
        while k < line.len() {
            let c = line[k];
            k += 1;
            match c {
                b'\t' => {
                    let spaces = self.tabsize - in_pos % self.tabsize;
                    if in_pos == out_pos {
                        let mut tabstop = out_pos + spaces;
                        if self.expand_tabs {
                            tabstop = tabstop.min(bound);
                            while out_pos < tabstop {
                                out.push(b' ');
                                out_pos += 1;
                            }
                        } else if tabstop < bound {
                            out_pos = tabstop;
                            out.push(c);
                        }
                    }
                    in_pos += spaces;
                }
                b'\r' => {
                    out.push(c);
                    self.tab_from_to(out, 0, indent);
                    in_pos = 0;
                    out_pos = 0;
                }
                b'\x08' => {
                    if in_pos != 0 {
                        in_pos -= 1;
                        if in_pos < bound {
                            if out_pos <= in_pos {
                                while out_pos < in_pos {
                                    out.push(b' ');
                                    out_pos += 1;
                                }
                            } else {
                                out_pos = in_pos;
                                out.push(c);
                            }
                        }
                    }
                }
                b'\n' => return out_pos,
                0x20..=0x7e => {
                    in_pos += 1;
                    if in_pos <= bound {
                        out_pos = in_pos;
                        out.push(c);
                    }
                }
                _ => {
                    // A multibyte character counts its display width; anything else
                    // (controls, invalid bytes) is copied without moving the column.
                    let (width, len) = char_width(&line[k - 1..]);
                    match len {
                        Some(len) => {
                            in_pos += width;
                            if in_pos <= bound {
                                out_pos = in_pos;
                                out.extend_from_slice(&line[k - 1..k - 1 + len]);
                            }
                            k += len - 1;
                        }
                        None => {
                            if in_pos < bound {
                                out.push(c);
                            }
                        }
                    }
                }
            }
        }
        out_pos
    }

    fn row(&self, out: &mut Vec<u8>, left: Option<&[u8]>, sep: u8, right: Option<&[u8]>) {
        let hw = self.half_width;
        let c2o = self.column2;
        let mut col = 0;
        let mut put_newline = false;
        if let Some(l) = left {
            put_newline |= l.last() == Some(&b'\n');
            col = self.half_line(out, l, 0, hw);
        }
        if sep != b' ' {
            col = self.tab_from_to(out, col, (hw + c2o - 1) / 2) + 1;
            let mut sep = sep;
            if sep == b'|' {
                let right_nl = right.map_or(false, |r| r.last() == Some(&b'\n'));
                if put_newline != right_nl {
                    sep = if put_newline { b'/' } else { b'\\' };
                }
            }
            out.push(sep);
        }
        if let Some(r) = right {
            put_newline |= r.last() == Some(&b'\n');
            if r.first() != Some(&b'\n') {
                col = self.tab_from_to(out, col, c2o);
                self.half_line(out, r, col, hw);
            }
        }
        if put_newline {
            out.push(b'\n');
        }
    }
}

/// Display width and byte length of the UTF-8 character at the start of `bytes` (None for
/// an invalid or control sequence).
fn char_width(bytes: &[u8]) -> (usize, Option<usize>) {
    let len = match bytes[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (0, None),
    };
    if bytes.len() < len {
        return (0, None);
    }
    match std::str::from_utf8(&bytes[..len]) {
        Ok(s) => {
            let width = s.chars().next().and_then(unicode_width::UnicodeWidthChar::width).unwrap_or(0);
            (width, Some(len))
        }
        Err(_) => (0, None),
    }
}

fn common_lines(p: &mut Printer, layout: &Layout, next: &mut (usize, usize), limit0: usize, limit1: usize, out: &mut Vec<u8>) {
    let [t0, t1]: [&Text; 2] = p.pair.texts;
    let (mut i0, mut i1) = *next;
    if !p.format.suppress_common && (i0 != limit0 || i1 != limit1) {
        if !p.format.left_column {
            while i0 != limit0 && i1 != limit1 {
                layout.row(out, Some(t0.line(i0)), b' ', Some(t1.line(i1)));
                i0 += 1;
                i1 += 1;
            }
            while i1 != limit1 {
                layout.row(out, None, b')', Some(t1.line(i1)));
                i1 += 1;
            }
        }
        while i0 != limit0 {
            layout.row(out, Some(t0.line(i0)), b'(', None);
            i0 += 1;
        }
    }
    *next = (limit0, limit1);
}

/// Prints the whole of both files side by side.
pub fn print(p: &mut Printer, changes: &[Change]) -> io::Result<()> {
    let layout = Layout::new(p.format.width, p.format.tabsize, p.format.expand_tabs);
    p.begin()?;
    let [t0, t1]: [&Text; 2] = p.pair.texts;
    let mut next = (0usize, 0usize);
    let mut out = Vec::new();
    for change in changes {
        let (mut first0, last0, mut first1, last1, old, new) = match p.extent(change) {
            Some(e) => e,
            None => continue,
        };
        common_lines(p, &layout, &mut next, first0, first1, &mut out);
        let (mut old, mut new) = (old, new);
        if old && new {
            while first0 < last0 && first1 < last1 {
                layout.row(&mut out, Some(t0.line(first0)), b'|', Some(t1.line(first1)));
                first0 += 1;
                first1 += 1;
            }
            old = first0 < last0;
            new = first1 < last1;
            next = (first0, first1);
        }
        if new {
            for j in first1..last1 {
                layout.row(&mut out, None, b'>', Some(t1.line(j)));
            }
            next.1 = last1;
        }
        if old {
            for i in first0..last0 {
                layout.row(&mut out, Some(t0.line(i)), b'<', None);
            }
            next.0 = last0;
        }
        if out.len() > 1 << 16 {
            p.write(&out)?;
            out.clear();
        }
    }
    common_lines(p, &layout, &mut next, t0.len(), t1.len(), &mut out);
    p.write(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_layout_matches_gnu() {
        let l = Layout::new(130, 8, false);
        assert_eq!((l.half_width, l.column2), (61, 64));
        let l = Layout::new(40, 8, false);
        assert_eq!((l.half_width, l.column2), (16, 24));
    }

    #[test]
    fn changed_row() {
        let l = Layout::new(130, 8, false);
        let mut out = Vec::new();
        l.row(&mut out, Some(b"b\n"), b'|', Some(b"c\n"));
        assert_eq!(out, b"b\t\t\t\t\t\t\t      |\tc\n".to_vec());
    }
}
