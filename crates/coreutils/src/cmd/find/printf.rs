//! -printf formats (compiled once: directives with flags, width and precision, escapes,
//! strftime-style %Ak/%Ck/%Tk) and the -ls line, both as GNU find 4.9 writes them.

use common::cformat::parse_head;
use common::timefmt::{local_offset, Tm};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKind {
    Access,
    Change,
    Modify,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    Percent,
    Path,
    Base,
    Dir,
    Relative,
    Start,
    Depth,
    Size,
    Blocks,
    KiloBlocks,
    ModeOctal,
    ModeString,
    Type,
    TypeFollowed,
    LinkTarget,
    User,
    Group,
    Uid,
    Gid,
    Inode,
    Links,
    Device,
    FsType,
    Sparseness,
    /// %a %c %t: ctime-like text; `%Ak` etc: one strftime field.
    Time(TimeKind, Option<u8>),
}

#[derive(Clone, Debug)]
pub enum Piece {
    Text(Vec<u8>),
    Field { flags: Vec<u8>, width: Option<usize>, precision: Option<usize>, directive: Directive },
    /// `\c`: stop printing here (and flush).
    Stop,
}

pub type Format = Vec<Piece>;

/// Everything a directive may need about one file.
pub struct Facts<'a> {
    pub path: &'a [u8],
    pub start: &'a [u8],
    pub depth: usize,
    pub meta: Option<common::fsext::Meta>,
    pub type_followed: u8,
    pub link_target: Option<Vec<u8>>,
    pub user: String,
    pub group: String,
}

/// Compiles a -printf format. Unknown directives and escapes print as written, with a
/// warning added to `warnings`.
pub fn compile_with_warnings(f: &[u8], warnings: &mut Vec<String>) -> Result<Format, String> {
    let mut out: Format = Vec::new();
    let mut text: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < f.len() {
        let c = f[i];
        if c == b'\\' && i + 1 < f.len() {
            let e = f[i + 1];
            i += 2;
            match e {
                b'a' => text.push(7),
                b'b' => text.push(8),
                b'f' => text.push(12),
                b'n' => text.push(b'\n'),
                b'r' => text.push(b'\r'),
                b't' => text.push(b'\t'),
                b'v' => text.push(11),
                b'\\' => text.push(b'\\'),
                b'c' => {
                    if !text.is_empty() {
                        out.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    out.push(Piece::Stop);
                    return Ok(out);
                }
                b'0'..=b'7' => {
                    let mut v: u32 = (e - b'0') as u32;
                    let mut n = 1;
                    while n < 3 && i < f.len() && (b'0'..=b'7').contains(&f[i]) {
                        v = v * 8 + (f[i] - b'0') as u32;
                        i += 1;
                        n += 1;
                    }
                    text.push(v as u8);
                }
                _ => {
                    warnings.push(format!("warning: unrecognized escape `\\{}'", e as char));
                    text.push(b'\\');
                    text.push(e);
                }
            }
            continue;
        }
        if c != b'%' {
            text.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if i >= f.len() {
            return Err("error: % at end of format string".to_string());
        }
        let head = parse_head(&f[i..], b"-+ #0");
        let (flags, width, precision) = (head.flags.to_vec(), head.width, head.precision);
        i += head.length;
        if i >= f.len() {
            return Err("error: % at end of format string".to_string());
        }
        let d = f[i];
        i += 1;
        let time = |k: TimeKind, f: &[u8], i: &mut usize| -> Option<Directive> {
            let spec = *f.get(*i)?;
            *i += 1;
            if b"@aAbBcCdDeFgGhHIjklmMnprRsStTuUVwWxXyYzZ+".contains(&spec) {
                Some(Directive::Time(k, Some(spec)))
            } else {
                None
            }
        };
        let directive = match d {
            b'%' => Some(Directive::Percent),
            b'p' => Some(Directive::Path),
            b'f' => Some(Directive::Base),
            b'h' => Some(Directive::Dir),
            b'P' => Some(Directive::Relative),
            b'H' => Some(Directive::Start),
            b'd' => Some(Directive::Depth),
            b's' => Some(Directive::Size),
            b'b' => Some(Directive::Blocks),
            b'k' => Some(Directive::KiloBlocks),
            b'm' => Some(Directive::ModeOctal),
            b'M' => Some(Directive::ModeString),
            b'y' => Some(Directive::Type),
            b'Y' => Some(Directive::TypeFollowed),
            b'l' => Some(Directive::LinkTarget),
            b'u' => Some(Directive::User),
            b'g' => Some(Directive::Group),
            b'U' => Some(Directive::Uid),
            b'G' => Some(Directive::Gid),
            b'i' => Some(Directive::Inode),
            b'n' => Some(Directive::Links),
            b'D' => Some(Directive::Device),
            b'F' => Some(Directive::FsType),
            b'S' => Some(Directive::Sparseness),
            b'a' => Some(Directive::Time(TimeKind::Access, None)),
            b'c' => Some(Directive::Time(TimeKind::Change, None)),
            b't' => Some(Directive::Time(TimeKind::Modify, None)),
            b'A' => time(TimeKind::Access, f, &mut i),
            b'C' => time(TimeKind::Change, f, &mut i),
            b'T' => time(TimeKind::Modify, f, &mut i),
            _ => None,
        };
        match directive {
            Some(directive) => {
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Field { flags, width, precision, directive });
            }
            None => {
                warnings.push(format!("warning: unrecognized format directive `%{}'", String::from_utf8_lossy(&f[i - 1..i])));
                text.extend_from_slice(&f[start..i]);
            }
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// gnulib base_name: the last component, trailing slashes kept ("/" stays "/").
pub fn base_name(path: &[u8]) -> &[u8] {
    let mut end = path.len();
    while end > 1 && path[end - 1] == b'/' {
        end -= 1;
    }
    match path[..end].iter().rposition(|&c| c == b'/') {
        Some(p) if end > 1 || p != 0 => &path[p + 1..],
        _ => path,
    }
}

/// The 10-digit fraction GNU appends to seconds (nanoseconds and a trailing 0).
fn fraction(ns: u32) -> String {
    format!("{:09}0", ns)
}

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

fn weekday(days: i64) -> usize {
    (days + 4).rem_euclid(7) as usize
}

/// One strftime field (C locale) for find's %Tk, with GNU's fractions on S, T, X, + and @.
pub fn strftime_field(ns: i128, spec: u8) -> String {
    let (secs, nanos) = common::timefmt::split_ns(ns);
    let offset = local_offset();
    let tm = Tm::at(secs, nanos, offset);
    let days = (secs + offset).div_euclid(86400);
    let wday = weekday(days);
    let yday = days - common::timefmt::days_from_civil(tm.year, 1, 1);
    let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
    let month = MONTHS[(tm.month - 1) as usize];
    // ISO 8601 week-based year and week.
    let iso = || {
        let wd = ((wday + 6) % 7) as i64; // Monday = 0
        let thursday = days - wd + 3;
        let (y, _, _) = common::timefmt::civil_from_days(thursday);
        let week = (thursday - common::timefmt::days_from_civil(y, 1, 1)) / 7 + 1;
        (y, week)
    };
    match spec {
        b'@' => format!("{}.{}", secs, fraction(nanos)),
        b'a' => DAYS[wday][..3].to_string(),
        b'A' => DAYS[wday].to_string(),
        b'b' | b'h' => month[..3].to_string(),
        b'B' => month.to_string(),
        b'c' => format!("{} {} {:2} {:02}:{:02}:{:02} {}", &DAYS[wday][..3], &month[..3], tm.day, tm.hour, tm.minute, tm.second, tm.year),
        b'C' => format!("{:02}", tm.year.div_euclid(100)),
        b'd' => format!("{:02}", tm.day),
        b'D' | b'x' => format!("{:02}/{:02}/{:02}", tm.month, tm.day, tm.year.rem_euclid(100)),
        b'e' => format!("{:2}", tm.day),
        b'F' => format!("{:04}-{:02}-{:02}", tm.year, tm.month, tm.day),
        b'g' => format!("{:02}", iso().0.rem_euclid(100)),
        b'G' => format!("{}", iso().0),
        b'H' => format!("{:02}", tm.hour),
        b'I' => format!("{:02}", hour12),
        b'j' => format!("{:03}", yday + 1),
        b'k' => format!("{:2}", tm.hour),
        b'l' => format!("{:2}", hour12),
        b'm' => format!("{:02}", tm.month),
        b'M' => format!("{:02}", tm.minute),
        b'n' => "\n".to_string(),
        b'p' => (if tm.hour < 12 { "AM" } else { "PM" }).to_string(),
        b'r' => format!("{:02}:{:02}:{:02} {}", hour12, tm.minute, tm.second, if tm.hour < 12 { "AM" } else { "PM" }),
        b'R' => format!("{:02}:{:02}", tm.hour, tm.minute),
        b's' => format!("{}", secs),
        b'S' => format!("{:02}.{}", tm.second, fraction(nanos)),
        b't' => "\t".to_string(),
        b'T' | b'X' => format!("{:02}:{:02}:{:02}.{}", tm.hour, tm.minute, tm.second, fraction(nanos)),
        b'u' => format!("{}", if wday == 0 { 7 } else { wday }),
        b'U' => format!("{:02}", (yday + 7 - wday as i64) / 7),
        b'V' => format!("{:02}", iso().1),
        b'w' => format!("{}", wday),
        b'W' => format!("{:02}", (yday + 7 - ((wday as i64 + 6) % 7)) / 7),
        b'y' => format!("{:02}", tm.year.rem_euclid(100)),
        b'Y' => format!("{}", tm.year),
        b'z' => tm.offset_text(),
        b'Z' => {
            let tz = std::env::var("TZ").unwrap_or_default();
            let name: String = tz.trim_start_matches(':').chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            if name.is_empty() {
                "UTC".to_string()
            } else {
                name
            }
        }
        b'+' => format!("{:04}-{:02}-{:02}+{:02}:{:02}:{:02}.{}", tm.year, tm.month, tm.day, tm.hour, tm.minute, tm.second, fraction(nanos)),
        _ => String::new(),
    }
}

/// ctime's layout with GNU's fraction: `Thu Jan  2 03:04:05.1234567890 2020`.
fn ctime(ns: i128) -> String {
    let (secs, nanos) = common::timefmt::split_ns(ns);
    let offset = local_offset();
    let tm = Tm::at(secs, nanos, offset);
    let wday = weekday((secs + offset).div_euclid(86400));
    format!("{} {} {:2} {:02}:{:02}:{:02}.{} {}", &DAYS[wday][..3], &MONTHS[(tm.month - 1) as usize][..3], tm.day, tm.hour, tm.minute, tm.second, fraction(nanos), tm.year)
}

fn pad(value: Vec<u8>, flags: &[u8], width: Option<usize>, precision: Option<usize>, numeric: bool) -> Vec<u8> {
    let mut value = value;
    if let (Some(p), false) = (precision, numeric) {
        value.truncate(p);
    }
    let width = width.unwrap_or(0);
    if value.len() >= width {
        return value;
    }
    let fill = width - value.len();
    if flags.contains(&b'-') {
        value.extend(std::iter::repeat(b' ').take(fill));
        value
    } else if numeric && flags.contains(&b'0') {
        let sign = if value.first().map_or(false, |c| *c == b'+' || *c == b'-') { 1 } else { 0 };
        let mut out = value[..sign].to_vec();
        out.extend(std::iter::repeat(b'0').take(fill));
        out.extend_from_slice(&value[sign..]);
        out
    } else {
        let mut out = vec![b' '; fill];
        out.extend_from_slice(&value);
        out
    }
}

/// Renders one file; returns false when `\c` asked to stop.
pub fn render(format: &Format, facts: &Facts, out: &mut Vec<u8>) -> bool {
    for piece in format {
        let (flags, width, precision, directive) = match piece {
            Piece::Text(t) => {
                out.extend_from_slice(t);
                continue;
            }
            Piece::Stop => return false,
            Piece::Field { flags, width, precision, directive } => (flags, *width, *precision, directive),
        };
        let m = facts.meta;
        let num = |v: i64| -> Vec<u8> {
            let mut s = v.to_string();
            if v >= 0 && flags.contains(&b'+') {
                s.insert(0, '+');
            } else if v >= 0 && flags.contains(&b' ') {
                s.insert(0, ' ');
            }
            s.into_bytes()
        };
        let (value, numeric): (Vec<u8>, bool) = match directive {
            Directive::Percent => (b"%".to_vec(), false),
            Directive::Path => (facts.path.to_vec(), false),
            Directive::Base => (base_name(facts.path).to_vec(), false),
            Directive::Dir => match facts.path.iter().rposition(|&c| c == b'/') {
                Some(p) => (facts.path[..p].to_vec(), false),
                None => (b".".to_vec(), false),
            },
            Directive::Relative => {
                let rest = facts.path.strip_prefix(facts.start).unwrap_or(facts.path);
                let rest = rest.strip_prefix(b"/").unwrap_or(rest);
                (if facts.depth == 0 { Vec::new() } else { rest.to_vec() }, false)
            }
            Directive::Start => (facts.start.to_vec(), false),
            Directive::Depth => (num(facts.depth as i64), true),
            Directive::Size => (m.map_or(0, |m| m.size).to_string().into_bytes(), false),
            Directive::Blocks => (m.map_or(0, |m| m.blocks()).to_string().into_bytes(), false),
            Directive::KiloBlocks => (m.map_or(0, |m| (m.blocks() + 1) / 2).to_string().into_bytes(), false),
            Directive::ModeOctal => {
                let v = m.map_or(0, |m| m.permissions());
                let s = if flags.contains(&b'#') { format!("{:#o}", v).replace("0o", "0") } else { format!("{:o}", v) };
                (s.into_bytes(), true)
            }
            Directive::ModeString => (common::modes::mode_string(m.map_or(0, |m| m.mode)).into_bytes(), false),
            Directive::Type => (vec![m.map_or(b'U', |m| type_letter(m.mode))], false),
            Directive::TypeFollowed => (vec![facts.type_followed], false),
            Directive::LinkTarget => (facts.link_target.clone().unwrap_or_default(), false),
            Directive::User => (facts.user.clone().into_bytes(), false),
            Directive::Group => (facts.group.clone().into_bytes(), false),
            Directive::Uid => (num(m.map_or(0, |m| m.uid) as i64), true),
            Directive::Gid => (num(m.map_or(0, |m| m.gid) as i64), true),
            Directive::Inode => (m.map_or(0, |m| m.ino).to_string().into_bytes(), false),
            Directive::Links => (m.map_or(0, |m| m.nlink).to_string().into_bytes(), false),
            Directive::Device => (m.map_or(0, |m| m.dev).to_string().into_bytes(), false),
            Directive::FsType => ((if cfg!(target_os = "wasi") { "airlock" } else { "ext4" }).as_bytes().to_vec(), false),
            Directive::Sparseness => {
                let v = m.map_or(1.0, |m| if m.size == 0 { 1.0 } else { m.blocks() as f64 * 512.0 / m.size as f64 });
                (format!("{}", v).into_bytes(), false)
            }
            Directive::Time(kind, spec) => {
                let ns = m.map_or(0, |m| match kind {
                    TimeKind::Access => m.atime_ns,
                    TimeKind::Change => m.ctime_ns,
                    TimeKind::Modify => m.mtime_ns,
                });
                let text = match spec {
                    None => ctime(ns),
                    Some(s) => strftime_field(ns, *s),
                };
                (text.into_bytes(), false)
            }
        };
        out.extend_from_slice(&pad(value, flags, width, precision, numeric));
    }
    true
}

/// `ls -l`'s type letter, as find's %y shows it.
pub fn type_letter(mode: u32) -> u8 {
    use common::fsext::*;
    match mode & S_IFMT {
        S_IFREG => b'f',
        S_IFDIR => b'd',
        S_IFLNK => b'l',
        S_IFIFO => b'p',
        S_IFSOCK => b's',
        S_IFCHR => b'c',
        S_IFBLK => b'b',
        _ => b'U',
    }
}

/// Column widths of -ls lines; like GNU they only ever grow during a run.
pub struct LsWidths {
    inode: usize,
    blocks: usize,
    links: usize,
    owner: usize,
    group: usize,
    size: usize,
}

impl Default for LsWidths {
    fn default() -> LsWidths {
        LsWidths { inode: 9, blocks: 6, links: 3, owner: 8, group: 8, size: 8 }
    }
}

/// One -ls line (GNU's list_file): inode, 1K blocks, mode, links, owner, group, size,
/// time (with the year instead of the clock when not within the last six months), name.
pub fn ls_line(w: &mut LsWidths, facts: &Facts, now_secs: i64, out: &mut Vec<u8>) {
    let m = match facts.meta {
        Some(m) => m,
        None => return,
    };
    let field = |width: &mut usize, text: String, left: bool| -> String {
        if text.len() > *width {
            *width = text.len();
        }
        if left {
            format!("{:<w$}", text, w = *width)
        } else {
            format!("{:>w$}", text, w = *width)
        }
    };
    let inode = field(&mut w.inode, m.ino.to_string(), false);
    let blocks = field(&mut w.blocks, ((m.blocks() + 1) / 2).to_string(), false);
    let links = field(&mut w.links, m.nlink.to_string(), false);
    let owner = field(&mut w.owner, facts.user.clone(), true);
    let group = field(&mut w.group, facts.group.clone(), true);
    let size = field(&mut w.size, m.size.to_string(), false);
    let (secs, _) = common::timefmt::split_ns(m.mtime_ns);
    let recent = now_secs - 31_556_952 / 2 <= secs && secs <= now_secs;
    let when = if recent {
        format!("{} {} {}", strftime_field(m.mtime_ns, b'b'), strftime_field(m.mtime_ns, b'e'), strftime_field(m.mtime_ns, b'R'))
    } else {
        format!("{} {}  {}", strftime_field(m.mtime_ns, b'b'), strftime_field(m.mtime_ns, b'e'), strftime_field(m.mtime_ns, b'Y'))
    };
    let line = format!("{} {} {} {} {} {} {} {} ", inode, blocks, common::modes::mode_string(m.mode), links, owner, group, size, when);
    out.extend_from_slice(line.as_bytes());
    out.extend_from_slice(facts.path);
    if let Some(target) = &facts.link_target {
        out.extend_from_slice(b" -> ");
        out.extend_from_slice(target);
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names() {
        assert_eq!(base_name(b"a/b"), b"b");
        assert_eq!(base_name(b"d/"), b"d/");
        assert_eq!(base_name(b"/"), b"/");
        assert_eq!(base_name(b"."), b".");
    }

    #[test]
    fn formats_compile() {
        let f = compile_with_warnings(b"%-5f|%10s\\n", &mut Vec::new()).unwrap();
        assert_eq!(f.len(), 4);
        assert!(compile_with_warnings(b"abc%", &mut Vec::new()).is_err());
        let mut w = Vec::new();
        let f = compile_with_warnings(b"%Q\\q", &mut w).unwrap();
        assert_eq!(w.len(), 2);
        assert!(matches!(&f[0], Piece::Text(t) if t == b"%Q\\q"));
    }

    #[test]
    fn time_fields() {
        std::env::remove_var("TZ");
        let ns: i128 = 1_577_934_245_123_456_789;
        assert_eq!(strftime_field(ns, b'@'), "1577934245.1234567890");
        assert_eq!(strftime_field(ns, b'+'), "2020-01-02+03:04:05.1234567890");
        assert_eq!(strftime_field(ns, b'j'), "002");
        assert_eq!(strftime_field(ns, b'A'), "Thursday");
        assert_eq!(ctime(ns), "Thu Jan  2 03:04:05.1234567890 2020");
    }
}
