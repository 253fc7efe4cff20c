//! Applying hunks to one file as GNU patch 2.7 does: each hunk is looked for near where
//! it says (offsets tried outward, alternating after and before), then with 1 and 2
//! lines of context ignored at the edges (fuzz); the output is built by copying input
//! lines up to each hunk, so context lines that matched only with fuzz keep the file's
//! own text. Rejected hunks are written in the patch's own format.

use super::parse::{Hunk, Kind};

/// The state of one file being patched.
pub struct Applier<'a> {
    input: Vec<&'a [u8]>,
    pub out: Vec<u8>,
    after_newline: bool,
    pub zero_output: bool,
    last_frozen: isize,
    pub in_offset: isize,
    pub out_offset: isize,
    ignore_whitespace: bool,
}

/// Lines compared with -l: runs of blanks are equivalent, the newline does not count.
fn similar(a: &[u8], b: &[u8]) -> bool {
    let trim = |s: &[u8]| if s.last() == Some(&b'\n') { s.len() - 1 } else { s.len() };
    let (mut a, mut b) = (&a[..trim(a)], &b[..trim(b)]);
    let blank = |c: u8| c == b' ' || c == b'\t';
    loop {
        if b.is_empty() || blank(b[0]) {
            while !b.is_empty() && blank(b[0]) {
                b = &b[1..];
            }
            if !a.is_empty() {
                if !blank(a[0]) {
                    return false;
                }
                while !a.is_empty() && blank(a[0]) {
                    a = &a[1..];
                }
            }
            if a.is_empty() || b.is_empty() {
                return a.len() == b.len();
            }
        } else if a.is_empty() || a[0] != b[0] {
            return false;
        } else {
            a = &a[1..];
            b = &b[1..];
        }
    }
}

impl<'a> Applier<'a> {
    pub fn new(data: &'a [u8], ignore_whitespace: bool) -> Applier<'a> {
        Applier {
            input: data.split_inclusive(|b| *b == b'\n').collect(),
            out: Vec::with_capacity(data.len() + 1024),
            after_newline: true,
            zero_output: true,
            last_frozen: 0,
            in_offset: 0,
            out_offset: 0,
            ignore_whitespace,
        }
    }

    fn lines(&self) -> isize {
        self.input.len() as isize
    }

    /// Input line `n` (1-based); empty outside the file.
    fn fetch(&self, n: isize) -> &'a [u8] {
        if n >= 1 && n <= self.lines() {
            self.input[(n - 1) as usize]
        } else {
            b""
        }
    }

    fn matches(&self, h: &Hunk, base: isize, offset: isize, prefix_fuzz: isize, suffix_fuzz: isize) -> bool {
        let pat_lines = h.old.len() as isize - suffix_fuzz;
        let mut pline = 1 + prefix_fuzz;
        let mut iline = base + offset + prefix_fuzz;
        while pline <= pat_lines {
            let line = self.fetch(iline);
            let pat = &h.old[(pline - 1) as usize].text;
            let ok = if self.ignore_whitespace { similar(line, pat) } else { line == pat.as_slice() };
            if !ok {
                return false;
            }
            pline += 1;
            iline += 1;
        }
        true
    }

    /// Where hunk `h` applies with `fuzz` context lines ignored (GNU's locate_hunk), or 0.
    pub fn locate(&mut self, h: &Hunk, fuzz: isize) -> isize {
        let first_guess = h.first as isize + self.in_offset;
        let pat_lines = h.old.len() as isize;
        let prefix_context = h.prefix_context as isize;
        let suffix_context = h.suffix_context as isize;
        let context = prefix_context.max(suffix_context);
        let mut prefix_fuzz = fuzz + prefix_context - context;
        let suffix_fuzz = fuzz + suffix_context - context;
        let max_where = self.lines() - (pat_lines - suffix_fuzz) + 1;
        let min_where = self.last_frozen + 1;
        let max_pos_offset = max_where - first_guess;
        let mut max_neg_offset = first_guess - min_where;
        let max_offset = max_pos_offset.max(max_neg_offset);
        if pat_lines == 0 {
            return first_guess;
        }
        if first_guess <= max_neg_offset {
            max_neg_offset = first_guess - 1;
        }
        if prefix_fuzz < 0 && h.first <= 1 {
            // Can only match the start of the file.
            if suffix_fuzz < 0 && (pat_lines != self.lines() || prefix_context < self.last_frozen) {
                return 0;
            }
            let offset = 1 - first_guess;
            if self.last_frozen <= prefix_context && offset <= max_pos_offset && self.matches(h, first_guess, offset, 0, suffix_fuzz) {
                self.in_offset += offset;
                return first_guess + offset;
            }
            return 0;
        } else if prefix_fuzz < 0 {
            prefix_fuzz = 0;
        }
        if suffix_fuzz < 0 {
            // Can only match the end of the file.
            let offset = first_guess - (self.lines() - pat_lines + 1);
            if offset <= max_neg_offset && self.matches(h, first_guess, -offset, prefix_fuzz, 0) {
                self.in_offset -= offset;
                return first_guess - offset;
            }
            return 0;
        }
        let min_offset = if max_pos_offset < 0 {
            first_guess - max_where
        } else if max_neg_offset < 0 {
            first_guess - min_where
        } else {
            0
        };
        let mut offset = min_offset;
        while offset <= max_offset {
            if offset <= max_pos_offset && self.matches(h, first_guess, offset, prefix_fuzz, suffix_fuzz) {
                self.in_offset += offset;
                return first_guess + offset;
            }
            if offset <= max_neg_offset && self.matches(h, first_guess, -offset, prefix_fuzz, suffix_fuzz) {
                self.in_offset -= offset;
                return first_guess - offset;
            }
            offset += 1;
        }
        0
    }

    fn write_line(&mut self, text: &[u8]) {
        self.out.extend_from_slice(text);
        self.after_newline = text.last() == Some(&b'\n');
        self.zero_output = false;
    }

    /// Copies input lines up to `last` (1-based, inclusive).
    fn copy_till(&mut self, last: isize) -> bool {
        if self.last_frozen > last {
            return false;
        }
        while self.last_frozen < last {
            self.last_frozen += 1;
            let line = self.fetch(self.last_frozen);
            if !line.is_empty() {
                if !self.after_newline {
                    self.out.push(b'\n');
                }
                self.write_line(line);
            }
        }
        true
    }

    /// Applies `h` at `where_` (GNU's apply_hunk). False: hunks out of order.
    pub fn apply(&mut self, h: &Hunk, where_: isize) -> bool {
        let base = where_ - 1;
        let (mut old, mut new) = (0usize, 0usize);
        while old < h.old.len() {
            match h.old[old].tag {
                b'-' => {
                    if !self.copy_till(base + old as isize) {
                        return false;
                    }
                    self.last_frozen += 1;
                    old += 1;
                }
                _ if new >= h.new.len() => break,
                _ if h.new[new].tag == b'+' => {
                    if !self.copy_till(base + old as isize) {
                        return false;
                    }
                    let text = h.new[new].text.clone();
                    self.write_line(&text);
                    new += 1;
                }
                b'!' if h.new[new].tag == b'!' => {
                    if !self.copy_till(base + old as isize) {
                        return false;
                    }
                    while old < h.old.len() && h.old[old].tag == b'!' {
                        self.last_frozen += 1;
                        old += 1;
                    }
                    while new < h.new.len() && h.new[new].tag == b'!' {
                        let text = h.new[new].text.clone();
                        self.write_line(&text);
                        new += 1;
                    }
                }
                _ => {
                    old += 1;
                    new += 1;
                }
            }
        }
        if new < h.new.len() && h.new[new].tag == b'+' {
            if !self.copy_till(base + old as isize) {
                return false;
            }
            while new < h.new.len() && h.new[new].tag == b'+' {
                if !self.after_newline {
                    self.out.push(b'\n');
                }
                let text = h.new[new].text.clone();
                self.write_line(&text);
                new += 1;
            }
        }
        self.out_offset += h.new.len() as isize - h.old.len() as isize;
        true
    }

    /// Copies the rest of the input.
    pub fn finish(&mut self) {
        let n = self.lines();
        self.copy_till(n);
    }

    /// Whether the patch and the file disagree on CRLF line ends where a hunk failed.
    pub fn line_endings_differ(&self, h: &Hunk, at: isize) -> bool {
        let p = match h.old.first() {
            Some(l) if !l.text.is_empty() => &l.text,
            _ => return false,
        };
        if self.input.is_empty() {
            return false;
        }
        let crlf = |s: &[u8]| s.len() >= 2 && s[s.len() - 2] == b'\r' && s[s.len() - 1] == b'\n';
        let line = self.fetch(at.min(self.lines()));
        !line.is_empty() && crlf(p) != crlf(line)
    }
}

/// Appends a rejected hunk to `rej` in the patch's format (with the file header first).
pub fn reject(rej: &mut Vec<u8>, kind: Kind, header: Option<&[Vec<u8>; 2]>, index: Option<&[u8]>, h: &Hunk, out_offset: isize) {
    let old_first = h.first as isize + out_offset;
    let new_first = h.newfirst as isize + out_offset;
    if let Some(names) = header {
        if let Some(i) = index {
            rej.extend_from_slice(b"Index: ");
            rej.extend_from_slice(i);
            rej.push(b'\n');
        }
        let marks: [&[u8]; 2] = if kind == Kind::Unified { [b"--- ", b"+++ "] } else { [b"*** ", b"--- "] };
        for k in 0..2 {
            rej.extend_from_slice(marks[k]);
            rej.extend_from_slice(&names[k]);
            rej.push(b'\n');
        }
    }
    if kind == Kind::Unified {
        let range = |start: isize, count: usize| match count {
            0 => format!("{},0", start - 1),
            1 => format!("{}", start),
            _ => format!("{},{}", start, count),
        };
        rej.extend_from_slice(format!("@@ -{} +{} @@", range(old_first, h.old.len()), range(new_first, h.new.len())).as_bytes());
        if let Some(f) = &h.function {
            rej.extend_from_slice(f);
        }
        rej.push(b'\n');
        let (mut old, mut new) = (0, 0);
        loop {
            while old < h.old.len() && matches!(h.old[old].tag, b'-' | b'!') {
                rej.push(b'-');
                rej.extend_from_slice(&h.old[old].text);
                old += 1;
            }
            while new < h.new.len() && matches!(h.new[new].tag, b'+' | b'!') {
                rej.push(b'+');
                rej.extend_from_slice(&h.new[new].text);
                new += 1;
            }
            if old >= h.old.len() {
                break;
            }
            rej.push(b' ');
            rej.extend_from_slice(&h.old[old].text);
            old += 1;
            new += 1;
        }
        return;
    }
    // Context format.
    rej.extend_from_slice(b"***************");
    if let Some(f) = &h.function {
        rej.extend_from_slice(f);
    }
    rej.push(b'\n');
    let old_last = old_first + h.old.len() as isize - 1;
    let new_last = new_first + h.new.len() as isize - 1;
    let range = |first: isize, last: isize| {
        if last < first {
            "0".to_string()
        } else if last == first {
            format!("{}", first)
        } else {
            format!("{},{}", first, last)
        }
    };
    // Normal diffs are rejected in the old context style (no stars after the range).
    let (stars, minuses) = if kind == Kind::Normal { ("", " -----") } else { (" ****", " ----") };
    rej.extend_from_slice(format!("*** {}{}\n", range(old_first, old_last), stars).as_bytes());
    for l in &h.old {
        rej.push(l.tag);
        rej.push(b' ');
        rej.extend_from_slice(&l.text);
    }
    rej.extend_from_slice(format!("--- {}{}\n", range(new_first, new_last), minuses).as_bytes());
    for l in &h.new {
        rej.push(l.tag);
        rej.push(b' ');
        rej.extend_from_slice(&l.text);
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    fn hunk(text: &str) -> Hunk {
        parse(text.as_bytes(), 0, None).unwrap().remove(0).hunks.remove(0)
    }

    #[test]
    fn applies_with_offset() {
        let h = hunk("--- a\n+++ b\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n");
        let input = b"0\n1\n2\n3\n4\n";
        let mut a = Applier::new(input, false);
        let at = a.locate(&h, 0);
        assert_eq!((at, a.in_offset), (2, 1));
        assert!(a.apply(&h, at));
        a.finish();
        assert_eq!(a.out, b"0\n1\ntwo\n3\n4\n".to_vec());
    }

    #[test]
    fn fuzz_needed_when_context_differs() {
        let h = hunk("--- a\n+++ b\n@@ -1,5 +1,5 @@\n a\n b\n-c\n+C\n d\n e\n");
        let input = b"A\nb\nc\nd\ne\n";
        let mut a = Applier::new(input, false);
        assert_eq!(a.locate(&h, 0), 0);
        assert_eq!(a.locate(&h, 1), 1);
        assert!(a.apply(&h, 1));
        a.finish();
        assert_eq!(a.out, b"A\nb\nC\nd\ne\n".to_vec());
    }

    #[test]
    fn whitespace_similarity() {
        assert!(similar(b"a  b\n", b"a b\n"));
        assert!(!similar(b"ab\n", b"a b\n"));
    }
}
