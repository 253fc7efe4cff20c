//! Reading a patch file the way GNU patch 2.7 does: each file's section is found by its
//! headers (`---`/`+++`, `***`/`---`, `Index:`, `diff --git`; their names read in
//! names.rs), and its hunks, read in unified, context or normal format (hunks.rs), take
//! one shape: old lines tagged ' ' '-' '!', new lines tagged ' ' '+' '!', and
//! "\ No newline at end of file" removes the previous newline.

use super::hunks::{context_hunk, is_normal_command, normal_hunk, unified_hunk, Reader};
use super::names::fetch_name;

/// Patch formats we read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Unified,
    Context,
    Normal,
}

/// One line of a hunk: its tag and text (with the newline, unless it had none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PLine {
    pub tag: u8,
    pub text: Vec<u8>,
}

#[derive(Clone, Debug)]
pub struct Hunk {
    /// First old line (1-based; the line after which to append when `old` is empty).
    pub first: usize,
    pub newfirst: usize,
    pub old: Vec<PLine>,
    pub new: Vec<PLine>,
    pub prefix_context: usize,
    pub suffix_context: usize,
    /// What followed the hunk header (`@@ ... @@ func`), for reject files.
    pub function: Option<Vec<u8>>,
}

impl Hunk {
    /// The hunk with old and new swapped (-R, or a reversed patch detected).
    pub fn swapped(&self) -> Hunk {
        let flip = |lines: &[PLine], from: u8, to: u8| lines.iter().map(|l| PLine { tag: if l.tag == from { to } else { l.tag }, text: l.text.clone() }).collect();
        Hunk {
            first: self.newfirst,
            newfirst: self.first,
            old: flip(&self.new, b'+', b'-'),
            new: flip(&self.old, b'-', b'+'),
            prefix_context: self.prefix_context,
            suffix_context: self.suffix_context,
            function: self.function.clone(),
        }
    }
}

/// One file's section of the patch.
#[derive(Debug, Default)]
pub struct FilePatch {
    pub kind: Option<Kind>,
    /// Old, new and Index: names after -p stripping (None: absent, /dev/null or not
    /// enough components to strip).
    pub names: [Option<Vec<u8>>; 3],
    /// The text after each header name (tab and time stamp), for reject headers.
    pub timestr: [Option<Vec<u8>>; 2],
    /// 0: exists, 1: probably empty, 2: does not exist ("/dev/null", epoch time stamps,
    /// git's new/deleted file mode).
    pub says_nonexistent: [u8; 2],
    pub hunks: Vec<Hunk>,
    /// 1-based line of the patch where this file's hunks start (for messages).
    pub start_line: usize,
    /// The lines between the previous section and this one's first hunk.
    pub leading: Vec<Vec<u8>>,
}

/// A fatal problem with the patch text (GNU: `patch: **** ...`, exit 2).
#[derive(Debug)]
pub struct Malformed(pub String);

/// Splits the whole patch into file sections.
pub fn parse(data: &[u8], strip: i64, forced: Option<Kind>) -> Result<Vec<FilePatch>, Malformed> {
    let mut lines: Vec<&[u8]> = data.split_inclusive(|b| *b == b'\n').collect();
    if lines.last().map_or(false, |l| l.last() != Some(&b'\n')) {
        // GNU ignores a partial last line.
        lines.pop();
    }
    let mut r = Reader { lines, pos: 0 };
    let mut out = Vec::new();
    loop {
        let section_start = r.pos;
        let mut fp = FilePatch::default();
        let mut pending_new: Option<(Option<Vec<u8>>, Option<Vec<u8>>, bool)> = None;
        let mut pending_old: Option<(Option<Vec<u8>>, Option<Vec<u8>>, bool)> = None;
        let mut git_nonexistent = [false, false];
        let mut prev_stars = false;
        let mut prev_command = false;
        let kind = loop {
            let line = match r.next() {
                Some(l) => l,
                None => break None,
            };
            let stars = line.starts_with(b"********");
            if line.starts_with(b"@@ -") && forced.map_or(true, |k| k == Kind::Unified) {
                r.pos -= 1;
                break Some(Kind::Unified);
            }
            if prev_stars && line.starts_with(b"*** ") && forced.map_or(true, |k| k == Kind::Context) {
                r.pos -= 2;
                break Some(Kind::Context);
            }
            if prev_command && (line.starts_with(b"< ") || line.starts_with(b"> ")) && forced.map_or(true, |k| k == Kind::Normal) {
                r.pos -= 2;
                break Some(Kind::Normal);
            }
            prev_stars = stars;
            prev_command = is_normal_command(line);
            if !prev_stars && line.starts_with(b"*** ") {
                pending_old = Some(fetch_name(&line[4..], strip));
            } else if line.starts_with(b"+++ ") {
                pending_old = Some(fetch_name(&line[4..], strip));
            } else if line.starts_with(b"--- ") {
                pending_new = Some(fetch_name(&line[4..], strip));
            } else if line.starts_with(b"Index:") {
                fp.names[2] = fetch_name(&line[6..], strip).0;
            } else if line.starts_with(b"diff --git ") {
                git_nonexistent = [false, false];
            } else if line.starts_with(b"new file mode ") {
                git_nonexistent[0] = true;
            } else if line.starts_with(b"deleted file mode ") {
                git_nonexistent[1] = true;
            }
        };
        let kind = match kind {
            Some(k) => k,
            None => {
                if out.is_empty() && !data.is_empty() && !r.lines.is_empty() {
                    return Err(Malformed("Only garbage was found in the patch input.".to_string()));
                }
                return Ok(out);
            }
        };
        fp.kind = Some(kind);
        fp.leading = r.lines[section_start..r.pos].iter().map(|l| l.to_vec()).collect();
        fp.start_line = r.pos + 1;
        // For unified diffs the "+++" name is the new one and "---" the old one.
        let (old, new) = if kind == Kind::Unified { (pending_new, pending_old) } else { (pending_old, pending_new) };
        for (k, v) in [(0usize, old), (1usize, new)] {
            if let Some((name, timestr, epoch)) = v {
                fp.names[k] = name;
                fp.timestr[k] = timestr;
                if epoch {
                    fp.says_nonexistent[k] = 2;
                }
            }
        }
        let epoch = fp.says_nonexistent;
        fp.says_nonexistent = [0, 0];
        loop {
            let hunk = match kind {
                Kind::Unified => unified_hunk(&mut r)?,
                Kind::Context => context_hunk(&mut r)?,
                Kind::Normal => normal_hunk(&mut r)?,
            };
            match hunk {
                Some(h) => {
                    if fp.hunks.is_empty() {
                        // An empty old range at line 0 means the old file is empty or,
                        // with an epoch time, absent; likewise for the new file.
                        if h.old.is_empty() && h.first <= 1 {
                            fp.says_nonexistent[0] = 1 + (epoch[0] == 2) as u8;
                        }
                        if h.new.is_empty() && h.newfirst <= 1 {
                            fp.says_nonexistent[1] = 1 + (epoch[1] == 2) as u8;
                        }
                    }
                    fp.hunks.push(h);
                }
                None => break,
            }
        }
        for k in 0..2 {
            if git_nonexistent[k] {
                fp.says_nonexistent[k] = 2;
            }
        }
        out.push(fp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_hunk_shape() {
        let text = b"--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n";
        let files = parse(text, 0, None).unwrap();
        assert_eq!(files.len(), 1);
        let h = &files[0].hunks[0];
        assert_eq!((h.first, h.newfirst, h.old.len(), h.new.len()), (1, 1, 3, 3));
        assert_eq!((h.prefix_context, h.suffix_context), (1, 1));
        assert_eq!(files[0].names[0], Some(b"a".to_vec()));
        assert_eq!(files[0].names[1], Some(b"b".to_vec()));
    }

    #[test]
    fn missing_newline_marker() {
        let text = b"--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n";
        let files = parse(text, 0, None).unwrap();
        let h = &files[0].hunks[0];
        assert_eq!(h.old[0].text, b"x".to_vec());
        assert_eq!(h.new[0].text, b"x\n".to_vec());
    }

    #[test]
    fn context_and_normal() {
        let text = b"*** a\n--- b\n***************\n*** 1,2 ****\n  x\n! y\n--- 1,2 ----\n  x\n! Y\n";
        let files = parse(text, 0, None).unwrap();
        let h = &files[0].hunks[0];
        assert_eq!(h.old[1], PLine { tag: b'!', text: b"y\n".to_vec() });
        assert_eq!(h.new[1], PLine { tag: b'!', text: b"Y\n".to_vec() });
        let files = parse(b"2c2\n< y\n---\n> Y\n", 0, None).unwrap();
        let h = &files[0].hunks[0];
        assert_eq!((h.first, h.old.len(), h.new.len()), (2, 1, 1));
    }
}
