//! Reading one hunk in each format GNU patch 2.7 reads: unified (`@@ -a,b +c,d @@`), context
//! (`*** a,b ****` / `--- c,d ----`) and normal (`3a4,5`), all into one `Hunk` shape.

use super::parse::{Hunk, Malformed, PLine};

/// The patch's lines and the next one to read.
pub(super) struct Reader<'a> {
    pub(super) lines: Vec<&'a [u8]>,
    pub(super) pos: usize,
}

fn digits(s: &[u8], i: &mut usize) -> Option<usize> {
    while *i < s.len() && (s[*i] == b' ' || s[*i] == b'\t') {
        *i += 1;
    }
    let start = *i;
    while *i < s.len() && s[*i].is_ascii_digit() {
        *i += 1;
    }
    if start == *i {
        return None;
    }
    let n = std::str::from_utf8(&s[start..*i]).ok()?.parse().ok();
    while *i < s.len() && (s[*i] == b' ' || s[*i] == b'\t') {
        *i += 1;
    }
    n
}

/// Whether `line` is a normal-diff command like `3a4,5`.
pub(super) fn is_normal_command(line: &[u8]) -> bool {
    let mut i = 0;
    while i < line.len() && (line[i].is_ascii_digit() || line[i] == b',') {
        i += 1;
    }
    if i == 0 || i >= line.len() || !matches!(line[i], b'a' | b'c' | b'd') {
        return false;
    }
    i += 1;
    let start = i;
    while i < line.len() && (line[i].is_ascii_digit() || line[i] == b',') {
        i += 1;
    }
    i > start && line[i..].iter().all(|c| c.is_ascii_whitespace())
}

impl<'a> Reader<'a> {
    pub(super) fn peek(&self) -> Option<&'a [u8]> {
        self.lines.get(self.pos).copied()
    }
    pub(super) fn next(&mut self) -> Option<&'a [u8]> {
        let l = self.peek();
        if l.is_some() {
            self.pos += 1;
        }
        l
    }
    /// Consumes a following "\ No newline at end of file" line, if any.
    fn incomplete(&mut self) -> bool {
        if self.peek().map_or(false, |l| l.first() == Some(&b'\\')) {
            self.pos += 1;
            return true;
        }
        false
    }
}

fn text_of(body: &[u8], incomplete: bool) -> Vec<u8> {
    let mut t = body.to_vec();
    if incomplete && t.last() == Some(&b'\n') {
        t.pop();
    }
    t
}

pub(super) fn unified_hunk(r: &mut Reader) -> Result<Option<Hunk>, Malformed> {
    let header = match r.peek() {
        Some(l) if l.starts_with(b"@@ -") => l,
        _ => return Ok(None),
    };
    let line_no = r.pos + 1;
    r.pos += 1;
    let bad = || Malformed(format!("malformed patch at line {}: {}", line_no, String::from_utf8_lossy(header).trim_end_matches('\n')));
    // `FIRST[,COUNT]`: a count of 1 may be left out.
    let range = |i: &mut usize| -> Option<(usize, usize)> {
        let first = digits(header, i)?;
        if header.get(*i) != Some(&b',') {
            return Some((first, 1));
        }
        *i += 1;
        Some((first, digits(header, i)?))
    };
    let mut i = 4;
    let (mut first, old_count) = range(&mut i).ok_or_else(bad)?;
    if header.get(i) != Some(&b'+') {
        return Err(bad());
    }
    i += 1;
    let (mut newfirst, new_count) = range(&mut i).ok_or_else(bad)?;
    if header.get(i) != Some(&b'@') {
        return Err(bad());
    }
    let function = if header.get(i + 1) == Some(&b'@') && header.get(i + 2) == Some(&b' ') {
        Some(header[i + 2..header.len() - 1].to_vec())
    } else {
        None
    };
    if old_count == 0 {
        first += 1;
    }
    if new_count == 0 {
        newfirst += 1;
    }
    let mut hunk = Hunk { first, newfirst, old: Vec::new(), new: Vec::new(), prefix_context: 0, suffix_context: 0, function };
    let mut context = 0;
    let mut prefix: Option<usize> = None;
    while hunk.old.len() < old_count || hunk.new.len() < new_count {
        let line = match r.next() {
            Some(l) => l,
            None => {
                if old_count + new_count + 1 - (hunk.old.len() + hunk.new.len()) < 4 {
                    // Assume blank context lines got chopped at the end.
                    b" \n"
                } else {
                    return Err(Malformed("unexpected end of file in patch".to_string()));
                }
            }
        };
        let (tag, body): (u8, &[u8]) = if line[0] == b'\n' || line[0] == b'\t' { (b' ', line) } else { (line[0], &line[1..]) };
        let tag = if tag == b'=' { b' ' } else { tag };
        let malformed_line = || Malformed(format!("malformed patch at line {}: {}", r.pos, String::from_utf8_lossy(line).trim_end_matches('\n')));
        match tag {
            b'-' | b'+' => {
                let (lines, count) = if tag == b'-' { (&mut hunk.old, old_count) } else { (&mut hunk.new, new_count) };
                if lines.len() >= count {
                    return Err(malformed_line());
                }
                let inc = lines.len() + 1 == count && r.incomplete();
                lines.push(PLine { tag, text: text_of(body, inc) });
            }
            b' ' => {
                if hunk.old.len() >= old_count || hunk.new.len() >= new_count {
                    return Err(malformed_line());
                }
                context += 1;
                // As in GNU, the marker is looked for only after the last old line,
                // and then applies to both copies.
                let inc = hunk.old.len() + 1 == old_count && r.incomplete();
                hunk.old.push(PLine { tag, text: text_of(body, inc) });
                hunk.new.push(PLine { tag, text: text_of(body, inc) });
            }
            _ => return Err(malformed_line()),
        }
        if tag != b' ' {
            if prefix.is_none() {
                prefix = Some(context);
            }
            context = 0;
        }
    }
    hunk.prefix_context = match prefix {
        Some(p) => p,
        None => return Err(Malformed(format!("malformed patch at line {}: {}", r.pos, ""))),
    };
    hunk.suffix_context = context;
    Ok(Some(hunk))
}

/// `*** a,b ****` / `--- a,b ----` ranges: (first, count).
fn context_range(line: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < line.len() && !line[i].is_ascii_digit() {
        i += 1;
    }
    let first = digits(line, &mut i)?;
    if line.get(i) == Some(&b',') {
        i += 1;
        let last = digits(line, &mut i)?;
        let first = if first == 0 && last == 0 { 1 } else { first };
        return Some((first, (last + 1).checked_sub(first)?));
    }
    if first > 0 {
        Some((first, 1))
    } else {
        Some((1, 0))
    }
}

pub(super) fn context_hunk(r: &mut Reader) -> Result<Option<Hunk>, Malformed> {
    match r.peek() {
        Some(l) if l.starts_with(b"********") => {}
        _ => return Ok(None),
    }
    let stars = r.next().unwrap_or(b"");
    let mut k = 0;
    while k < stars.len() && stars[k] == b'*' {
        k += 1;
    }
    let function = if stars.get(k) == Some(&b' ') || stars.get(k) == Some(&b'\t') { Some(stars[k..stars.len() - 1].to_vec()) } else { None };
    let line_no = r.pos + 1;
    let old_header = r.next().ok_or_else(|| Malformed("unexpected end of file in patch".to_string()))?;
    if !old_header.starts_with(b"*** ") {
        return Err(Malformed(format!("malformed patch at line {}: {}", line_no, String::from_utf8_lossy(old_header).trim_end())));
    }
    let (first, old_count) = context_range(old_header).ok_or_else(|| Malformed(format!("malformed patch at line {}", line_no)))?;
    let mut old: Vec<PLine> = Vec::new();
    let parse_body = |line: &[u8]| -> (u8, Vec<u8>) {
        if line[0] == b'\n' || line[0] == b'\t' {
            return (b' ', line.to_vec());
        }
        let body = if line.len() > 1 && (line[1] == b' ' || line[1] == b'\t') { &line[2..] } else { &line[1..] };
        (line[0], body.to_vec())
    };
    while let Some(line) = r.peek() {
        if line.starts_with(b"--- ") || line.starts_with(b"********") {
            break;
        }
        r.pos += 1;
        let (tag, mut body) = parse_body(line);
        if !matches!(tag, b' ' | b'-' | b'!') {
            return Err(Malformed(format!("malformed patch at line {}: {}", r.pos, String::from_utf8_lossy(line).trim_end())));
        }
        if r.incomplete() && body.last() == Some(&b'\n') {
            body.pop();
        }
        old.push(PLine { tag, text: body });
    }
    let new_header = match r.peek() {
        Some(l) if l.starts_with(b"--- ") => {
            r.pos += 1;
            l
        }
        _ => return Err(Malformed(format!("no '---' found in patch at line {}", line_no))),
    };
    let (newfirst, new_count) = context_range(new_header).ok_or_else(|| Malformed(format!("malformed patch at line {}", r.pos)))?;
    let mut new: Vec<PLine> = Vec::new();
    while new.len() < new_count {
        let line = match r.peek() {
            Some(l) if !l.starts_with(b"********") && !l.starts_with(b"*** ") && !l.starts_with(b"diff ") && !l.starts_with(b"Index:") => l,
            _ => break,
        };
        let (tag, mut body) = parse_body(line);
        if !matches!(tag, b' ' | b'+' | b'!') {
            break;
        }
        r.pos += 1;
        if r.incomplete() && body.last() == Some(&b'\n') {
            body.pop();
        }
        new.push(PLine { tag, text: body });
    }
    // An omitted side is the other side's context lines.
    if old.is_empty() && old_count > 0 {
        old = new.iter().filter(|l| l.tag == b' ').cloned().collect();
    }
    if new.is_empty() && new_count > 0 {
        new = old.iter().filter(|l| l.tag == b' ').cloned().collect();
    }
    let lead = |v: &[PLine]| v.iter().take_while(|l| l.tag == b' ').count();
    let trail = |v: &[PLine]| v.iter().rev().take_while(|l| l.tag == b' ').count();
    let all_context = |v: &[PLine]| v.iter().all(|l| l.tag == b' ');
    let (prefix, suffix) = if all_context(&old) {
        (lead(&new), trail(&new))
    } else if all_context(&new) {
        (lead(&old), trail(&old))
    } else {
        (lead(&old).min(lead(&new)), trail(&old).min(trail(&new)))
    };
    // A range naming one line with no lines under it is an append after that line.
    let first = if old.is_empty() && old_count > 0 { first + 1 } else { first };
    let newfirst = if new.is_empty() && new_count > 0 { newfirst + 1 } else { newfirst };
    Ok(Some(Hunk { first, newfirst, old, new, prefix_context: prefix, suffix_context: suffix, function }))
}

pub(super) fn normal_hunk(r: &mut Reader) -> Result<Option<Hunk>, Malformed> {
    let line = match r.peek() {
        Some(l) if is_normal_command(l) => l,
        _ => return Ok(None),
    };
    r.pos += 1;
    let line_no = r.pos;
    let bad = || Malformed(format!("malformed patch at line {}: {}", line_no, String::from_utf8_lossy(line).trim_end()));
    let mut i = 0;
    let mut first = digits(line, &mut i).ok_or_else(bad)?;
    let mut old_count = 1;
    if line.get(i) == Some(&b',') {
        i += 1;
        let last = digits(line, &mut i).ok_or_else(bad)?;
        old_count = (last + 1).checked_sub(first).ok_or_else(bad)?;
    }
    let kind = line[i];
    if kind == b'a' {
        old_count = 0;
        first += 1;
    }
    i += 1;
    let mut min = digits(line, &mut i).ok_or_else(bad)?;
    let mut max = min;
    if line.get(i) == Some(&b',') {
        i += 1;
        max = digits(line, &mut i).ok_or_else(bad)?;
    }
    if kind == b'd' {
        min += 1;
    }
    let new_count = (max + 1).saturating_sub(min);
    let mut hunk = Hunk { first, newfirst: min, old: Vec::new(), new: Vec::new(), prefix_context: 0, suffix_context: 0, function: None };
    hunk.old = normal_lines(r, old_count, b'<', b'-')?;
    if kind == b'c' {
        match r.next() {
            Some(l) if l.starts_with(b"-") => {}
            _ => return Err(Malformed(format!("'---' expected at line {} of patch", r.pos))),
        }
    }
    if kind != b'd' {
        hunk.new = normal_lines(r, new_count, b'>', b'+')?;
    }
    Ok(Some(hunk))
}

/// `count` lines of one side of a normal hunk, each `MARK ` or `MARK\t` and text, kept
/// with `tag`.
fn normal_lines(r: &mut Reader, count: usize, mark: u8, tag: u8) -> Result<Vec<PLine>, Malformed> {
    let mut lines = Vec::with_capacity(count);
    for k in 0..count {
        let l = r.next().ok_or_else(|| Malformed(format!("unexpected end of file in patch at line {}", r.pos)))?;
        if l.first() != Some(&mark) || !matches!(l.get(1), Some(b' ' | b'\t')) {
            return Err(Malformed(format!("'{}' followed by space or tab expected at line {} of patch", mark as char, r.pos)));
        }
        let inc = k + 1 == count && r.incomplete();
        lines.push(PLine { tag, text: text_of(&l[2..], inc) });
    }
    Ok(lines)
}
