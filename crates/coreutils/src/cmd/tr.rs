//! `tr`: translates, deletes (-d) or squeezes (-s) bytes. SETs are parsed into byte lists
//! (escapes, ranges, [:class:], [=c=], [c*n] and the [c*] fill of SET2), then turned into
//! 256-entry tables applied to 64 KiB blocks. Like GNU tr, it works on bytes, not
//! multibyte characters.

use std::ffi::OsString;
use std::io::{self, BufRead, Write};

use common::UError;
use common::args::{os_bytes, Command};
use common::io::quote;
use common::Io;

const SPEC: &str = "c,complement C d,delete s,squeeze-repeats t,truncate-set1";

const TR: Command = Command::compact("tr", SPEC, HELP);

const HELP: &str = "Usage: tr [OPTION]... STRING1 [STRING2]
Translate, squeeze, and/or delete characters from standard input,
writing to standard output.  STRING1 and STRING2 specify arrays of
characters ARRAY1 and ARRAY2 that control the action.

  -c, -C, --complement    use the complement of ARRAY1
  -d, --delete            delete characters in ARRAY1, do not translate
  -s, --squeeze-repeats   replace each sequence of a repeated character
                            that is listed in the last specified ARRAY,
                            with a single occurrence of that character
  -t, --truncate-set1     first truncate ARRAY1 to length of ARRAY2
{standard}
ARRAYs are specified as strings of characters.  Most represent themselves.
Interpreted sequences are:

  \\NNN            character with octal value NNN (1 to 3 octal digits)
  \\\\              backslash
  \\a              audible BEL
  \\b              backspace
  \\f              form feed
  \\n              new line
  \\r              return
  \\t              horizontal tab
  \\v              vertical tab
  CHAR1-CHAR2     all characters from CHAR1 to CHAR2 in ascending order
  [CHAR*]         in ARRAY2, copies of CHAR until length of ARRAY1
  [CHAR*REPEAT]   REPEAT copies of CHAR, REPEAT octal if starting with 0
  [:alnum:]       all letters and digits
  [:alpha:]       all letters
  [:blank:]       all horizontal whitespace
  [:cntrl:]       all control characters
  [:digit:]       all digits
  [:graph:]       all printable characters, not including space
  [:lower:]       all lower case letters
  [:print:]       all printable characters, including space
  [:punct:]       all punctuation characters
  [:space:]       all horizontal or vertical whitespace
  [:upper:]       all upper case letters
  [:xdigit:]      all hexadecimal digits
  [=CHAR=]        all characters which are equivalent to CHAR
";

/// One parsed element of a SET.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Bytes(Vec<u8>),
    /// A [:class:]; `bool` marks upper/lower (allowed in SET2).
    Class(&'static str, Vec<u8>),
    /// [c*] in SET2: as many copies as needed.
    Fill(u8),
}

fn class_bytes(name: &str) -> Option<(&'static str, Vec<u8>)> {
    let (n, f): (&'static str, fn(u8) -> bool) = match name {
        "alnum" => ("alnum", |b| b.is_ascii_alphanumeric()),
        "alpha" => ("alpha", |b| b.is_ascii_alphabetic()),
        "blank" => ("blank", |b| b == b' ' || b == b'\t'),
        "cntrl" => ("cntrl", |b| b.is_ascii_control()),
        "digit" => ("digit", |b| b.is_ascii_digit()),
        "graph" => ("graph", |b| b.is_ascii_graphic()),
        "lower" => ("lower", |b| b.is_ascii_lowercase()),
        "print" => ("print", |b| b.is_ascii_graphic() || b == b' '),
        "punct" => ("punct", |b| b.is_ascii_punctuation()),
        "space" => ("space", |b| b == b' ' || (9..=13).contains(&b)),
        "upper" => ("upper", |b| b.is_ascii_uppercase()),
        "xdigit" => ("xdigit", |b| b.is_ascii_hexdigit()),
        _ => return None,
    };
    Some((n, (0u8..=255).filter(|b| f(*b)).collect()))
}

/// Reads one possibly escaped byte at `s[*i]`.
fn unescape(s: &[u8], i: &mut usize) -> u8 {
    let c = s[*i];
    *i += 1;
    if c != b'\\' || *i >= s.len() {
        return c;
    }
    let e = s[*i];
    *i += 1;
    match e {
        b'a' => 7,
        b'b' => 8,
        b'f' => 12,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'v' => 11,
        b'0'..=b'7' => {
            let mut v = u32::from(e - b'0');
            let mut n = 1;
            while n < 3 && *i < s.len() && (b'0'..=b'7').contains(&s[*i]) && v * 8 + u32::from(s[*i] - b'0') <= 255 {
                v = v * 8 + u32::from(s[*i] - b'0');
                *i += 1;
                n += 1;
            }
            v as u8
        }
        other => other,
    }
}

fn parse_set(s: &[u8]) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'[' && i + 1 < s.len() {
            // [:class:] and [=c=]
            if s[i + 1] == b':' || s[i + 1] == b'=' {
                let kind = s[i + 1];
                if let Some(end) = s[i + 2..].windows(2).position(|w| w[0] == kind && w[1] == b']') {
                    let body = &s[i + 2..i + 2 + end];
                    if kind == b':' {
                        let name = String::from_utf8_lossy(body).into_owned();
                        match class_bytes(&name) {
                            Some((n, bytes)) => items.push(Item::Class(n, bytes)),
                            None => return Err(format!("invalid character class {}", quote(OsString::from(&name).as_os_str()))),
                        }
                        i += end + 4;
                        continue;
                    }
                    let mut j = 0;
                    if !body.is_empty() {
                        let c = unescape(body, &mut j);
                        if j == body.len() {
                            items.push(Item::Bytes(vec![c]));
                            i += end + 4;
                            continue;
                        }
                    }
                    return Err(format!("{}: equivalence class operand must be a single character", String::from_utf8_lossy(body)));
                }
            }
            // [c*n] and [c*]
            let mut j = i + 1;
            let c = unescape(s, &mut j);
            if j < s.len() && s[j] == b'*' {
                if let Some(close) = s[j + 1..].iter().position(|b| *b == b']') {
                    let count = &s[j + 1..j + 1 + close];
                    if count.iter().all(|b| b.is_ascii_digit()) {
                        let text = String::from_utf8_lossy(count);
                        let n = if count.is_empty() {
                            0
                        } else if count[0] == b'0' {
                            u64::from_str_radix(&text, 8).map_err(|_| format!("invalid repeat count {} in [c*n] construct", quote(OsString::from(text.as_ref()).as_os_str())))?
                        } else {
                            text.parse::<u64>().map_err(|_| format!("invalid repeat count {} in [c*n] construct", quote(OsString::from(text.as_ref()).as_os_str())))?
                        };
                        items.push(if n == 0 { Item::Fill(c) } else { Item::Bytes(vec![c; n.min(1 << 20) as usize]) });
                        i = j + 2 + close;
                        continue;
                    }
                }
            }
        }
        let start = i;
        let c = unescape(s, &mut i);
        if i < s.len() && s[i] == b'-' && i + 1 < s.len() {
            let mut j = i + 1;
            let hi = unescape(s, &mut j);
            if hi < c {
                return Err(format!("range-endpoints of '{}' are in reverse collating sequence order", String::from_utf8_lossy(&s[start..j])));
            }
            items.push(Item::Bytes((c..=hi).collect()));
            i = j;
            continue;
        }
        items.push(Item::Bytes(vec![c]));
    }
    Ok(items)
}

fn flatten(items: &[Item]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Bytes(b) | Item::Class(_, b) => out.extend_from_slice(b),
            Item::Fill(c) => out.push(*c),
        }
    }
    out
}

fn complement(set: &[u8]) -> Vec<u8> {
    let mut member = [false; 256];
    for &b in set {
        member[b as usize] = true;
    }
    (0u8..=255).filter(|b| !member[*b as usize]).collect()
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = TR.seen(&args, io)?;
    let (comp, delete, squeeze, truncate) = (seen.flag("c") || seen.flag("C"), seen.flag("d"), seen.flag("s"), seen.flag("t"));
    let sets = seen.operands;
    let translating = !delete && sets.len() >= 2;
    let needed = if delete && squeeze || translating || (!delete && !squeeze) { 2 } else { 1 };
    if sets.is_empty() {
        return Err(UError::usage(1, "missing operand".to_string()));
    }
    if sets.len() < needed {
        let why = if delete && squeeze { "Two strings must be given when both deleting and squeezing repeats." } else { "Two strings must be given when translating." };
        return Err(UError::usage(1, format!("missing operand after {}\n{}", quote(&sets[sets.len() - 1]), why)));
    }
    if sets.len() > needed {
        let mut message = format!("extra operand {}", quote(&sets[needed]));
        if delete && !squeeze && needed == 1 {
            message.push_str("\nOnly one string may be given when deleting without squeezing repeats.");
        }
        return Err(UError::usage(1, message));
    }
    let items1 = match parse_set(os_bytes(&sets[0])) {
        Ok(i) => i,
        Err(m) => return Err(UError::new(1, m)),
    };
    if items1.iter().any(|i| matches!(i, Item::Fill(_))) {
        return Err(UError::new(1, "the [c*] repeat construct may not appear in string1".to_string()));
    }
    let mut set1 = flatten(&items1);
    if comp {
        set1 = complement(&set1);
    }
    let set2 = if sets.len() > 1 {
        let items2 = match parse_set(os_bytes(&sets[1])) {
            Ok(i) => i,
            Err(m) => return Err(UError::new(1, m)),
        };
        if translating {
            if items2.iter().any(|i| matches!(i, Item::Class(n, _) if *n != "upper" && *n != "lower")) {
                return Err(UError::new(1, "when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'".to_string()));
            }
            if !case_classes_align(&items1, &items2) {
                return Err(UError::new(1, "misaligned [:upper:] and/or [:lower:] construct".to_string()));
            }
            match fill(&items2, set1.len()) {
                Ok(s) => s,
                Err(m) => return Err(UError::new(1, m)),
            }
        } else {
            flatten(&items2)
        }
    } else {
        Vec::new()
    };
    let mut table: [u8; 256] = [0; 256];
    for (i, t) in table.iter_mut().enumerate() {
        *t = i as u8;
    }
    let mut deleted = [false; 256];
    let mut squeezed = [false; 256];
    if translating {
        if set2.is_empty() && !set1.is_empty() && !truncate {
            return Err(UError::new(1, "when not truncating set1, string2 must be non-empty".to_string()));
        }
        let mut set2 = set2.clone();
        if !truncate {
            if let Some(&last) = set2.last() {
                while set2.len() < set1.len() {
                    set2.push(last);
                }
            }
        }
        for (a, b) in set1.iter().zip(set2.iter()) {
            table[*a as usize] = *b;
        }
        if squeeze {
            for &b in &set2 {
                squeezed[b as usize] = true;
            }
        }
    } else if delete {
        for &b in &set1 {
            deleted[b as usize] = true;
        }
        for &b in &set2 {
            squeezed[b as usize] = true;
        }
    } else {
        for &b in &set1 {
            squeezed[b as usize] = true;
        }
    }
    match transform(&mut *io.stdin, io.stdout, &table, &deleted, &squeezed) {
        Ok(()) => Ok(0),
        Err(Failure::Write(e)) => Err(UError::write(&e)),
        Err(Failure::Read(e)) => Err(UError::new(1, format!("read error: {}", common::strerror(&e)))),
    }
}

/// Each [:upper:]/[:lower:] of SET2 must face a [:lower:]/[:upper:] of SET1.
fn case_classes_align(items1: &[Item], items2: &[Item]) -> bool {
    let offsets = |items: &[Item]| -> Vec<(usize, &'static str)> {
        let mut at = 0;
        let mut out = Vec::new();
        for item in items {
            match item {
                Item::Class(n, b) => {
                    out.push((at, *n));
                    at += b.len();
                }
                Item::Bytes(b) => at += b.len(),
                Item::Fill(_) => at += 1,
            }
        }
        out
    };
    let in1 = offsets(items1);
    offsets(items2).iter().filter(|(_, n)| *n == "upper" || *n == "lower").all(|(at, _)| in1.iter().any(|(a, n)| a == at && (*n == "upper" || *n == "lower")))
}

/// SET2 as a list, with a [c*] fill expanded to make it as long as SET1.
fn fill(items: &[Item], target: usize) -> Result<Vec<u8>, String> {
    let fills = items.iter().filter(|i| matches!(i, Item::Fill(_))).count();
    if fills > 1 {
        return Err("only one [c*] repeat construct may appear in string2".to_string());
    }
    let fixed: usize = items.iter().map(|i| if let Item::Bytes(b) | Item::Class(_, b) = i { b.len() } else { 0 }).sum();
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Bytes(b) | Item::Class(_, b) => out.extend_from_slice(b),
            Item::Fill(c) => out.extend(std::iter::repeat(*c).take(target.saturating_sub(fixed))),
        }
    }
    Ok(out)
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
}

fn transform(reader: &mut dyn BufRead, out: &mut dyn Write, table: &[u8; 256], deleted: &[bool; 256], squeezed: &[bool; 256]) -> Result<(), Failure> {
    let any_delete = deleted.iter().any(|d| *d);
    let any_squeeze = squeezed.iter().any(|s| *s);
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut last: Option<u8> = None;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        if chunk.is_empty() {
            return Ok(());
        }
        buf.clear();
        if !any_delete && !any_squeeze {
            buf.extend(chunk.iter().map(|b| table[*b as usize]));
        } else {
            for &b in chunk {
                if deleted[b as usize] {
                    continue;
                }
                let t = table[b as usize];
                if squeezed[t as usize] && last == Some(t) {
                    continue;
                }
                last = Some(t);
                buf.push(t);
            }
        }
        let n = chunk.len();
        reader.consume(n);
        out.write_all(&buf).map_err(Failure::Write)?;
    }
}
