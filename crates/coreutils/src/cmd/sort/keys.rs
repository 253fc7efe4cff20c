//! Sort keys: parsing `-k POS1[,POS2]` (and the obsolete `+POS1 -POS2`), finding a key's
//! bytes in a line (GNU's begfield/limfield, quirks included: without -t a field starts
//! with its leading blanks), and comparing two lines key by key.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

use super::compare;

/// Which bytes a key ignores (-d, -i).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ignore {
    None,
    NonDictionary,
    NonPrinting,
}

#[derive(Clone, Debug)]
pub struct Key {
    /// Fields to skip before the key starts (0-based).
    pub sword: usize,
    /// Characters to skip in the start field.
    pub schar: usize,
    /// The field the key ends in (0-based); None: the end of the line.
    pub eword: Option<usize>,
    /// Characters of the end field included; 0: all of it.
    pub echar: usize,
    pub skip_start_blanks: bool,
    pub skip_end_blanks: bool,
    pub numeric: bool,
    pub general: bool,
    pub human: bool,
    pub month: bool,
    pub version: bool,
    pub random: bool,
    pub ignore: Ignore,
    pub fold: bool,
    pub reverse: bool,
}

impl Key {
    pub fn whole_line() -> Key {
        Key {
            sword: 0,
            schar: 0,
            eword: None,
            echar: 0,
            skip_start_blanks: false,
            skip_end_blanks: false,
            numeric: false,
            general: false,
            human: false,
            month: false,
            version: false,
            random: false,
            ignore: Ignore::None,
            fold: false,
            reverse: false,
        }
    }

    /// GNU's default_key_compare (ignoring -r): no ordering option of its own.
    pub fn has_no_ordering(&self) -> bool {
        !(self.skip_start_blanks
            || self.skip_end_blanks
            || self.numeric
            || self.general
            || self.human
            || self.month
            || self.version
            || self.random
            || self.ignore != Ignore::None
            || self.fold)
    }

    /// Takes the global options (a key without options of its own inherits them all).
    pub fn inherit(&mut self, g: &Key) {
        self.skip_start_blanks = g.skip_start_blanks;
        self.skip_end_blanks = g.skip_end_blanks;
        self.numeric = g.numeric;
        self.general = g.general;
        self.human = g.human;
        self.month = g.month;
        self.version = g.version;
        self.random = g.random;
        self.ignore = g.ignore;
        self.fold = g.fold;
        self.reverse = g.reverse;
    }

    /// Applies one ordering letter; false if it is not one.
    pub fn set_option(&mut self, c: u8, at_end: bool) -> bool {
        match c {
            b'b' => {
                if at_end {
                    self.skip_end_blanks = true;
                } else {
                    self.skip_start_blanks = true;
                }
            }
            b'd' => self.ignore = Ignore::NonDictionary,
            b'f' => self.fold = true,
            b'g' => self.general = true,
            b'h' => self.human = true,
            b'i' => self.ignore = Ignore::NonPrinting,
            b'M' => self.month = true,
            b'n' => self.numeric = true,
            b'R' => self.random = true,
            b'r' => self.reverse = true,
            b'V' => self.version = true,
            _ => return false,
        }
        true
    }

    /// GNU's check_ordering_compatibility: the option letters when they conflict.
    pub fn conflict(&self) -> Option<String> {
        let count = self.numeric as u32 + self.general as u32 + self.human as u32 + self.month as u32 + (self.version || self.random || self.ignore != Ignore::None) as u32;
        if count <= 1 {
            return None;
        }
        let mut s = String::new();
        let flags = [
            (self.ignore == Ignore::NonDictionary, 'd'),
            (self.fold, 'f'),
            (self.general, 'g'),
            (self.human, 'h'),
            (self.ignore == Ignore::NonPrinting, 'i'),
            (self.month, 'M'),
            (self.numeric, 'n'),
            (self.random, 'R'),
            (self.version, 'V'),
        ];
        for (on, c) in flags.iter() {
            if *on {
                s.push(*c);
            }
        }
        Some(s)
    }
}

/// Parses a decimal count; `None` for no digits. Huge values saturate like GNU's SIZE_MAX.
fn count(s: &[u8]) -> (Option<usize>, &[u8]) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return (None, s);
    }
    let mut v: usize = 0;
    for d in &s[..n] {
        v = v.saturating_mul(10).saturating_add((d - b'0') as usize);
    }
    (Some(v), &s[n..])
}

/// Parses a `-k` KEYDEF; the error is GNU's message.
pub fn parse_keydef(spec: &str) -> Result<Key, String> {
    let bad = |why: &str| format!("{}: invalid field specification '{}'", why, spec);
    let mut key = Key::whole_line();
    let (n, mut s) = count(spec.as_bytes());
    let n = n.ok_or_else(|| format!("invalid number at field start: invalid count at start of '{}'", spec))?;
    if n == 0 {
        return Err(bad("field number is zero"));
    }
    key.sword = n - 1;
    if s.first() == Some(&b'.') {
        let (c, rest) = count(&s[1..]);
        let c = c.ok_or_else(|| format!("invalid number after '.': invalid count at start of '{}'", String::from_utf8_lossy(&s[1..])))?;
        if c == 0 {
            return Err(bad("character offset is zero"));
        }
        key.schar = c - 1;
        s = rest;
    }
    while let Some(&c) = s.first() {
        if !key.set_option(c, false) {
            break;
        }
        s = &s[1..];
    }
    if s.first() == Some(&b',') {
        let (e, rest) = count(&s[1..]);
        let e = e.ok_or_else(|| format!("invalid number after ',': invalid count at start of '{}'", String::from_utf8_lossy(&s[1..])))?;
        if e == 0 {
            return Err(bad("field number is zero"));
        }
        key.eword = Some(e - 1);
        s = rest;
        if s.first() == Some(&b'.') {
            let (c, rest) = count(&s[1..]);
            key.echar = c.ok_or_else(|| format!("invalid number after '.': invalid count at start of '{}'", String::from_utf8_lossy(&s[1..])))?;
            s = rest;
        }
        while let Some(&c) = s.first() {
            if !key.set_option(c, true) {
                break;
            }
            s = &s[1..];
        }
    }
    if !s.is_empty() {
        return Err(bad("stray character in field spec"));
    }
    Ok(key)
}

/// The obsolete `+POS1 [-POS2]` form; None when `pos1` is not one (then it is a file).
pub fn parse_obsolete(pos1: &[u8], pos2: Option<&[u8]>) -> Option<Key> {
    let mut key = Key::whole_line();
    let (n, mut s) = count(pos1.get(1..)?);
    key.sword = n?;
    if s.first() == Some(&b'.') {
        let (c, rest) = count(&s[1..]);
        key.schar = c?;
        s = rest;
    }
    for &c in s {
        if !key.set_option(c, false) {
            return None;
        }
    }
    if let Some(p2) = pos2 {
        let (e, mut s) = count(&p2[1..]);
        let mut e = e?;
        if s.first() == Some(&b'.') {
            let (c, rest) = count(&s[1..]);
            key.echar = c?;
            s = rest;
        }
        if key.echar == 0 && e > 0 {
            e -= 1;
        }
        key.eword = Some(e);
        for &c in s {
            if !key.set_option(c, true) {
                return None;
            }
        }
    }
    Some(key)
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

/// Where the blanks at `p` end (or `lim`).
fn skip_blanks(line: &[u8], mut p: usize, lim: usize) -> usize {
    while p < lim && blank(line[p]) {
        p += 1;
    }
    p
}

/// The position past `fields` fields of `line`, GNU's way: with a tab character, to each
/// next tab, stepping over it except (when `past_last` is false) after the last field;
/// without one, over leading blanks and then a run of non-blanks per field.
fn skip_fields(line: &[u8], mut fields: usize, tab: Option<u8>, past_last: bool) -> usize {
    let lim = line.len();
    let mut p = 0;
    while p < lim && fields > 0 {
        fields -= 1;
        match tab {
            Some(t) => {
                p += memchr::memchr(t, &line[p..]).unwrap_or(lim - p);
                if p < lim && (fields > 0 || past_last) {
                    p += 1;
                }
            }
            None => {
                p = skip_blanks(line, p, lim);
                while p < lim && !blank(line[p]) {
                    p += 1;
                }
            }
        }
    }
    p
}

/// GNU's begfield: where the key starts in `line`.
fn begfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    let mut p = skip_fields(line, key.sword, tab, true);
    if key.skip_start_blanks {
        p = skip_blanks(line, p, lim);
    }
    p.saturating_add(key.schar).min(lim)
}

/// GNU's limfield: where the key ends in `line`.
fn limfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    let eword = match key.eword {
        Some(e) => e,
        None => return lim,
    };
    let echar = key.echar;
    // `.0` (echar 0) means the end of field `eword`, so one more field is skipped whole.
    let eword = if echar == 0 { eword.saturating_add(1) } else { eword };
    let mut p = skip_fields(line, eword, tab, echar > 0);
    if echar != 0 {
        if key.skip_end_blanks {
            p = skip_blanks(line, p, lim);
        }
        p = p.saturating_add(echar).min(lim);
    }
    p
}

/// The bytes of `key` in `line` (empty when the key would start after it ends).
pub fn key_slice<'a>(line: &'a [u8], key: &Key, tab: Option<u8>) -> &'a [u8] {
    let end = limfield(line, key, tab);
    let start = begfield(line, key, tab);
    if start >= end {
        &[]
    } else {
        &line[start..end]
    }
}

fn ignored(b: u8, ignore: Ignore) -> bool {
    match ignore {
        Ignore::None => false,
        Ignore::NonDictionary => !(b.is_ascii_alphanumeric() || blank(b)),
        Ignore::NonPrinting => !(0x20..0x7f).contains(&b),
    }
}

/// Text comparison with -d/-i (skipped bytes) and -f (folded to upper case).
fn compare_text(a: &[u8], b: &[u8], key: &Key) -> Ordering {
    if key.ignore == Ignore::None && !key.fold {
        return a.cmp(b);
    }
    let fold = |c: u8| if key.fold { c.to_ascii_uppercase() } else { c };
    let mut ia = a.iter().copied().filter(|c| !ignored(*c, key.ignore)).map(fold);
    let mut ib = b.iter().copied().filter(|c| !ignored(*c, key.ignore)).map(fold);
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
            }
        }
    }
}

/// The seed of -R: random per run, or from --random-source.
pub struct RandomSalt(pub Vec<u8>);

fn random_hash(s: &[u8], salt: &RandomSalt) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    salt.0.hash(&mut h);
    s.hash(&mut h);
    h.finish()
}

/// Compares one key of two lines, without its -r.
fn compare_key(a: &[u8], b: &[u8], key: &Key, salt: &RandomSalt) -> Ordering {
    if key.numeric || key.general || key.human {
        let (a, b) = if key.ignore != Ignore::None || key.fold { return compare_filtered(a, b, key, salt) } else { (a, b) };
        return if key.numeric {
            compare::numeric(a, b)
        } else if key.general {
            compare::general(a, b)
        } else {
            compare::human(a, b)
        };
    }
    if key.month {
        return compare::month(a, b);
    }
    if key.random {
        if key.ignore != Ignore::None || key.fold {
            return compare_filtered(a, b, key, salt);
        }
        return random_hash(a, salt).cmp(&random_hash(b, salt)).then_with(|| a.cmp(b));
    }
    if key.version {
        if key.ignore != Ignore::None || key.fold {
            return compare_filtered(a, b, key, salt);
        }
        return compare::version(a, b);
    }
    compare_text(a, b, key)
}

/// Applies -d/-i/-f to copies of both keys, then compares them (GNU's translated path).
fn compare_filtered(a: &[u8], b: &[u8], key: &Key, salt: &RandomSalt) -> Ordering {
    let filter = |s: &[u8]| -> Vec<u8> { s.iter().copied().filter(|c| !ignored(*c, key.ignore)).map(|c| if key.fold { c.to_ascii_uppercase() } else { c }).collect() };
    let (fa, fb) = (filter(a), filter(b));
    let mut plain = key.clone();
    plain.ignore = Ignore::None;
    plain.fold = false;
    compare_key(&fa, &fb, &plain, salt)
}

/// Compares two lines by every key in turn (each with its own -r).
/// `first` holds the first key of each line when the caller has found it already.
pub fn compare_keys(a: &[u8], b: &[u8], first: Option<(&[u8], &[u8])>, keys: &[Key], tab: Option<u8>, salt: &RandomSalt) -> Ordering {
    for (i, key) in keys.iter().enumerate() {
        let (ka, kb) = match first {
            Some(pair) if i == 0 => pair,
            _ => (key_slice(a, key, tab), key_slice(b, key, tab)),
        };
        let o = compare_key(ka, kb, key, salt);
        if o != Ordering::Equal {
            return if key.reverse { o.reverse() } else { o };
        }
    }
    Ordering::Equal
}
