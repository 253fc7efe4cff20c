//! Reading a patch file the way GNU patch 2.7 does: each file's section is found by its
//! headers (`---`/`+++`, `***`/`---`, `Index:`, `diff --git`), hunks are read in unified,
//! context or normal format into one shape (old lines tagged ' ' '-' '!', new lines
//! tagged ' ' '+' '!'), and "\ No newline at end of file" removes the previous newline.

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

struct Reader<'a> {
    lines: Vec<&'a [u8]>,
    pos: usize,
}

/// GNU's strip_leading_slashes: drop `strip` leading components (all but the last when
/// negative); None when there are not enough.
pub fn strip_name(name: &[u8], strip: i64) -> Option<Vec<u8>> {
    let mut s = strip;
    let mut start = 0;
    let mut i = 0;
    while i < name.len() {
        if name[i] == b'/' {
            while i + 1 < name.len() && name[i + 1] == b'/' {
                i += 1;
            }
            if strip < 0 || {
                s -= 1;
                s >= 0
            } {
                start = i + 1;
            }
        }
        i += 1;
    }
    if (strip < 0 || s <= 0) && start < name.len() {
        Some(name[start..].to_vec())
    } else {
        None
    }
}

/// Parses a C-quoted name (`"a b\t"`); returns it and the rest of the line.
fn c_string(s: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut out = Vec::new();
    let mut i = 1;
    while i < s.len() {
        let c = s[i];
        i += 1;
        match c {
            b'"' => return Some((out, &s[i..])),
            b'\\' => {
                let e = *s.get(i)?;
                i += 1;
                out.push(match e {
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    b'\\' | b'"' => e,
                    b'0'..=b'3' => {
                        let d1 = *s.get(i)?;
                        let d2 = *s.get(i + 1)?;
                        if !(b'0'..=b'7').contains(&d1) || !(b'0'..=b'7').contains(&d2) {
                            return None;
                        }
                        i += 2;
                        ((e - b'0') << 6) | ((d1 - b'0') << 3) | (d2 - b'0')
                    }
                    _ => return None,
                });
            }
            _ => out.push(c),
        }
    }
    None
}

/// A header's name and time stamp (GNU fetchname). Returns (name, timestr, epoch):
/// name None for /dev/null or when stripping fails.
fn fetch_name(at: &[u8], strip: i64) -> (Option<Vec<u8>>, Option<Vec<u8>>, bool) {
    let mut i = 0;
    while i < at.len() && at[i].is_ascii_whitespace() {
        i += 1;
    }
    let at = &at[i..];
    let (name, rest): (Vec<u8>, &[u8]) = if at.first() == Some(&b'"') {
        match c_string(at) {
            Some(v) => v,
            None => return (None, None, false),
        }
    } else {
        let mut t = 0;
        while t < at.len() {
            if at[t].is_ascii_whitespace() {
                // Spaces belong to the name when a tab separates name and date.
                let mut u = t;
                while u < at.len() && at[u] != b'\t' && at.get(u + 1).map_or(false, |c| c.is_ascii_whitespace()) {
                    u += 1;
                }
                if at[u] != b'\t' && at[(u + 1).min(at.len())..].contains(&b'\t') {
                    t += 1;
                    continue;
                }
                break;
            }
            t += 1;
        }
        (at[..t].to_vec(), &at[t..])
    };
    let mut rest_end = rest.len();
    while rest_end > 0 && (rest[rest_end - 1] == b'\n' || rest[rest_end - 1] == b'\r') {
        rest_end -= 1;
    }
    let timestr = rest[..rest_end].to_vec();
    let date = String::from_utf8_lossy(&timestr).trim().to_string();
    // The epoch in any time zone means "this file does not exist".
    let epoch = date.starts_with("1970-01-01") || date.starts_with("1969-12-31") || date.contains("Jan  1 00:00:00 1970") || date.contains("Dec 31 ") && date.ends_with("1969");
    if name == b"/dev/null" {
        return (None, Some(timestr), true);
    }
    (strip_name(&name, strip), Some(timestr), epoch)
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
fn is_normal_command(line: &[u8]) -> bool {
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
    fn peek(&self) -> Option<&'a [u8]> {
        self.lines.get(self.pos).copied()
    }
    fn next(&mut self) -> Option<&'a [u8]> {
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

fn unified_hunk(r: &mut Reader) -> Result<Option<Hunk>, Malformed> {
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
            b'-' => {
                if hunk.old.len() >= old_count {
                    return Err(malformed_line());
                }
                let last = hunk.old.len() + 1 == old_count;
                let inc = last && r.incomplete();
                hunk.old.push(PLine { tag, text: text_of(body, inc) });
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
            b'+' => {
                if hunk.new.len() >= new_count {
                    return Err(malformed_line());
                }
                let last = hunk.new.len() + 1 == new_count;
                let inc = last && r.incomplete();
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

fn context_hunk(r: &mut Reader) -> Result<Option<Hunk>, Malformed> {
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

fn normal_hunk(r: &mut Reader) -> Result<Option<Hunk>, Malformed> {
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
    for k in 0..old_count {
        let l = r.next().ok_or_else(|| Malformed(format!("unexpected end of file in patch at line {}", r.pos)))?;
        if !l.starts_with(b"< ") && !l.starts_with(b"<\t") {
            return Err(Malformed(format!("'<' followed by space or tab expected at line {} of patch", r.pos)));
        }
        let inc = k + 1 == old_count && r.incomplete();
        hunk.old.push(PLine { tag: b'-', text: text_of(&l[2..], inc) });
    }
    if kind == b'c' {
        match r.next() {
            Some(l) if l.starts_with(b"-") => {}
            _ => return Err(Malformed(format!("'---' expected at line {} of patch", r.pos))),
        }
    }
    if kind != b'd' {
        for k in 0..new_count {
            let l = r.next().ok_or_else(|| Malformed(format!("unexpected end of file in patch at line {}", r.pos)))?;
            if !l.starts_with(b"> ") && !l.starts_with(b">\t") {
                return Err(Malformed(format!("'>' followed by space or tab expected at line {} of patch", r.pos)));
            }
            let inc = k + 1 == new_count && r.incomplete();
            hunk.new.push(PLine { tag: b'+', text: text_of(&l[2..], inc) });
        }
    }
    Ok(Some(hunk))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripping() {
        assert_eq!(strip_name(b"a/b/c", -1), Some(b"c".to_vec()));
        assert_eq!(strip_name(b"a/b/c", 0), Some(b"a/b/c".to_vec()));
        assert_eq!(strip_name(b"a/b/c", 1), Some(b"b/c".to_vec()));
        assert_eq!(strip_name(b"a/b/c", 3), None);
        assert_eq!(strip_name(b"/abs/x", 1), Some(b"abs/x".to_vec()));
    }

    #[test]
    fn names_with_spaces_and_dates() {
        let (n, t, e) = fetch_name(b" a b\t2020-01-01 00:00:00.000000000 +0000\n", 0);
        assert_eq!(n, Some(b"a b".to_vec()));
        assert_eq!(t, Some(b"\t2020-01-01 00:00:00.000000000 +0000".to_vec()));
        assert!(!e);
        assert_eq!(fetch_name(b" /dev/null\n", 0).0, None);
        assert!(fetch_name(b" x\t1970-01-01 00:00:00.000000000 +0000\n", 0).2);
    }

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
