//! How `ls` orders and prints entries: GNU's sort keys, the long format's columns and date
//! styles, and the multi-column layouts (`-C`, `-x`, `-m`) with GNU's column fitting.

use std::cmp::Ordering;
use std::io;
use std::path::PathBuf;

use common::fsext::{Meta, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFSOCK};
use common::human::human_size;
use common::modes::mode_string;
use common::timefmt::{local_offset, now, split_ns, Tm, MONTHS};
use common::users::Names;
use common::Io;

use super::colors::Colors;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    One,
    Long,
    Columns,
    Across,
    Commas,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Name,
    None,
    Size,
    Time,
    Version,
    Extension,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TimeField {
    Mtime,
    Atime,
    Ctime,
}

#[derive(Clone, PartialEq, Eq)]
pub enum TimeStyle {
    Locale,
    FullIso,
    LongIso,
    Iso,
    Format(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Indicator {
    None,
    Slash,
    FileType,
    Classify,
}

pub struct Options {
    pub layout: Layout,
    pub sort: Sort,
    pub reverse: bool,
    pub time: TimeField,
    pub time_style: TimeStyle,
    pub indicator: Indicator,
    pub human: Option<u64>,
    pub inode: bool,
    pub blocks: bool,
    pub numeric: bool,
    pub show_owner: bool,
    pub show_group: bool,
    pub dirs_first: bool,
    pub dereference: bool,
    pub quote_all: bool,
    pub tty: bool,
    pub width: usize,
    /// `--color`: names coloured by type (None: no colour).
    pub colors: Option<Colors>,
}

impl Options {
    pub fn new(tty: bool) -> Options {
        let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse::<usize>().ok()).filter(|w| *w > 0).unwrap_or(80);
        Options {
            layout: if tty { Layout::Columns } else { Layout::One },
            sort: Sort::Name,
            reverse: false,
            time: TimeField::Mtime,
            time_style: TimeStyle::Locale,
            indicator: Indicator::None,
            human: None,
            inode: false,
            blocks: false,
            numeric: false,
            show_owner: true,
            show_group: true,
            dirs_first: false,
            dereference: false,
            quote_all: false,
            tty,
            width,
            colors: None,
        }
    }
}

pub struct Entry {
    pub name: Vec<u8>,
    pub path: PathBuf,
    pub meta: Meta,
    pub link_target: Option<Vec<u8>>,
    pub target_meta: Option<Meta>,
}

fn time_of(meta: &Meta, field: TimeField) -> i128 {
    match field {
        TimeField::Mtime => meta.mtime_ns,
        TimeField::Atime => meta.atime_ns,
        TimeField::Ctime => meta.ctime_ns,
    }
}

fn extension(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|b| *b == b'.') {
        Some(i) if i > 0 => &name[i..],
        _ => b"",
    }
}

/// Natural order: runs of digits compare by value (a simplified GNU filevercmp).
fn version_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let x = trim_zeros(&a[si..i]);
            let y = trim_zeros(&b[sj..j]);
            let ord = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
            if ord != Ordering::Equal {
                return ord;
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j)).then_with(|| a.cmp(b))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|c| **c == b'0').count();
    &d[n..]
}

pub fn sort(entries: &mut Vec<Entry>, o: &Options) {
    if o.sort != Sort::None {
        entries.sort_by(|a, b| {
            let ord = match o.sort {
                Sort::Size => b.meta.size.cmp(&a.meta.size).then_with(|| a.name.cmp(&b.name)),
                Sort::Time => time_of(&b.meta, o.time).cmp(&time_of(&a.meta, o.time)).then_with(|| a.name.cmp(&b.name)),
                Sort::Extension => extension(&a.name).cmp(extension(&b.name)).then_with(|| a.name.cmp(&b.name)),
                Sort::Version => version_cmp(&a.name, &b.name),
                _ => a.name.cmp(&b.name),
            };
            if o.reverse {
                ord.reverse()
            } else {
                ord
            }
        });
    } else if o.reverse {
        entries.reverse();
    }
    if o.dirs_first {
        // A stable partition keeps the chosen order within each group.
        entries.sort_by_key(|e| !is_dir_like(e));
    }
}

fn is_dir_like(e: &Entry) -> bool {
    e.meta.is_dir() || e.target_meta.map_or(false, |t| t.is_dir())
}

fn indicator(meta: &Meta, style: Indicator) -> Option<u8> {
    let t = meta.mode & S_IFMT;
    match style {
        Indicator::None => None,
        Indicator::Slash => if t == S_IFDIR { Some(b'/') } else { None },
        _ => match t {
            S_IFDIR => Some(b'/'),
            S_IFLNK => Some(b'@'),
            S_IFIFO => Some(b'|'),
            S_IFSOCK => Some(b'='),
            _ if style == Indicator::Classify && meta.is_file() && meta.mode & 0o111 != 0 => Some(b'*'),
            _ => None,
        },
    }
}

/// The name as shown: raw when not a terminal, shell-quoted when needed on a terminal.
fn shown_name(name: &[u8], o: &Options) -> Vec<u8> {
    if o.quote_all {
        let mut out = vec![b'"'];
        for c in name {
            if *c == b'"' || *c == b'\\' {
                out.push(b'\\');
            }
            out.push(*c);
        }
        out.push(b'"');
        return out;
    }
    if !o.tty {
        return name.to_vec();
    }
    let safe = name.iter().all(|c| c.is_ascii_alphanumeric() || b"%+,-./:=@_^~#".contains(c) || *c >= 0x80);
    if safe {
        return name.to_vec();
    }
    common::quotearg::quote_name(name)
}

/// The name painted in its colour under `--color` (the width is the unpainted name's).
fn painted(name: Vec<u8>, e_name: &[u8], meta: &Meta, orphan: bool, o: &Options) -> Vec<u8> {
    match &o.colors {
        Some(colors) => colors.paint(&name, colors.code(meta, orphan, e_name)),
        None => name,
    }
}

fn display_width(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(s) => unicode_width::UnicodeWidthStr::width(s),
        Err(_) => bytes.len(),
    }
}

fn size_text(bytes: u64, o: &Options) -> String {
    match o.human {
        Some(base) => human_size(bytes, base),
        None => bytes.to_string(),
    }
}

fn blocks_text(meta: &Meta, o: &Options) -> String {
    let bytes = meta.blocks() * 512;
    match o.human {
        Some(base) => human_size(bytes, base),
        None => ((bytes + 1023) / 1024).to_string(),
    }
}

fn date_text(ns: i128, o: &Options, current: i64) -> String {
    let (secs, nanos) = split_ns(ns);
    let tm = Tm::at(secs, nanos, local_offset());
    let six_months = 31_556_952 / 2;
    let recent = secs > current - six_months && secs <= current;
    match &o.time_style {
        TimeStyle::FullIso => tm.full_iso(),
        TimeStyle::LongIso => format!("{:04}-{:02}-{:02} {:02}:{:02}", tm.year, tm.month, tm.day, tm.hour, tm.minute),
        TimeStyle::Iso if recent => format!("{:02}-{:02} {:02}:{:02}", tm.month, tm.day, tm.hour, tm.minute),
        TimeStyle::Iso => format!("{:04}-{:02}-{:02} ", tm.year, tm.month, tm.day),
        TimeStyle::Format(f) => strftime(f.split('\n').nth(if recent { 1 } else { 0 }).or_else(|| f.split('\n').next()).unwrap_or(""), &tm),
        TimeStyle::Locale => {
            let month = MONTHS[(tm.month as usize).saturating_sub(1) % 12];
            if recent {
                format!("{} {:>2} {:02}:{:02}", month, tm.day, tm.hour, tm.minute)
            } else {
                format!("{} {:>2}  {}", month, tm.day, tm.year)
            }
        }
    }
}

/// The strftime conversions `--time-style=+FORMAT` commonly uses.
fn strftime(format: &str, tm: &Tm) -> String {
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&format!("{:04}", tm.year)),
            Some('m') => out.push_str(&format!("{:02}", tm.month)),
            Some('d') => out.push_str(&format!("{:02}", tm.day)),
            Some('e') => out.push_str(&format!("{:>2}", tm.day)),
            Some('H') => out.push_str(&format!("{:02}", tm.hour)),
            Some('M') => out.push_str(&format!("{:02}", tm.minute)),
            Some('S') => out.push_str(&format!("{:02}", tm.second)),
            Some('N') => out.push_str(&format!("{:09}", tm.nanos)),
            Some('b') => out.push_str(MONTHS[(tm.month as usize).saturating_sub(1) % 12]),
            Some('y') => out.push_str(&format!("{:02}", tm.year.rem_euclid(100))),
            Some('z') => out.push_str(&tm.offset_text()),
            Some('F') => out.push_str(&format!("{:04}-{:02}-{:02}", tm.year, tm.month, tm.day)),
            Some('T') => out.push_str(&format!("{:02}:{:02}:{:02}", tm.hour, tm.minute, tm.second)),
            Some('R') => out.push_str(&format!("{:02}:{:02}", tm.hour, tm.minute)),
            Some('s') => {
                let days = common::timefmt::days_from_civil(tm.year, tm.month, tm.day);
                out.push_str(&(days * 86400 + (tm.hour * 3600 + tm.minute * 60 + tm.second) as i64 - tm.offset).to_string());
            }
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// Prints a listing: `total` first for directory contents in long/-s formats.
pub fn print(io: &mut Io, entries: &[Entry], o: &Options, names: &Names, is_dir_listing: bool) -> io::Result<()> {
    if is_dir_listing && (o.layout == Layout::Long || o.blocks) {
        let total: u64 = entries.iter().map(|e| e.meta.blocks()).sum();
        let text = match o.human {
            Some(base) => human_size(total * 512, base),
            None => ((total * 512 + 1023) / 1024).to_string(),
        };
        io.out(format!("total {}\n", text).as_bytes())?;
    }
    let inode_width = if o.inode { entries.iter().map(|e| e.meta.ino.to_string().len()).max().unwrap_or(0) } else { 0 };
    let block_width = if o.blocks { entries.iter().map(|e| blocks_text(&e.meta, o).len()).max().unwrap_or(0) } else { 0 };
    let prefix = |e: &Entry, pad: bool| -> Vec<u8> {
        let mut p = String::new();
        if o.inode {
            p.push_str(&format!("{:>w$} ", e.meta.ino, w = if pad { inode_width } else { 0 }));
        }
        if o.blocks {
            p.push_str(&format!("{:>w$} ", blocks_text(&e.meta, o), w = if pad { block_width } else { 0 }));
        }
        p.into_bytes()
    };
    let decorated = |e: &Entry| -> (Vec<u8>, usize) {
        let name = shown_name(&e.name, o);
        let width = display_width(&name);
        let mut name = painted(name, &e.name, &e.meta, e.link_target.is_some() && e.target_meta.is_none(), o);
        let mut extra = 0;
        if let Some(c) = indicator(&e.meta, o.indicator) {
            name.push(c);
            extra = 1;
        }
        (name, width + extra)
    };
    match o.layout {
        Layout::Long => print_long(io, entries, o, names, &prefix),
        Layout::One => {
            let mut out = Vec::new();
            for e in entries {
                out.extend_from_slice(&prefix(e, true));
                out.extend_from_slice(&decorated(e).0);
                out.push(b'\n');
            }
            io.out(&out)
        }
        Layout::Commas => {
            let mut out = Vec::new();
            let mut pos = 0;
            for (i, e) in entries.iter().enumerate() {
                let mut item = prefix(e, false);
                let (name, w) = decorated(e);
                let len = item.len() + w;
                item.extend_from_slice(&name);
                if i > 0 {
                    if o.width == 0 || pos + len + 2 < o.width {
                        out.extend_from_slice(b", ");
                        pos += 2;
                    } else {
                        out.extend_from_slice(b",\n");
                        pos = 0;
                    }
                }
                out.extend_from_slice(&item);
                pos += len;
            }
            if !entries.is_empty() {
                out.push(b'\n');
            }
            io.out(&out)
        }
        Layout::Columns | Layout::Across => {
            let items: Vec<(Vec<u8>, usize)> = entries
                .iter()
                .map(|e| {
                    let mut p = prefix(e, true);
                    let (name, w) = decorated(e);
                    let len = p.len() + w;
                    p.extend_from_slice(&name);
                    (p, len)
                })
                .collect();
            io.out(&columns(&items, o.width, o.layout == Layout::Columns))
        }
    }
}

/// GNU's column fitting: the most columns whose total width stays under the line width.
fn columns(items: &[(Vec<u8>, usize)], line_length: usize, by_columns: bool) -> Vec<u8> {
    let n = items.len();
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    let max_idx = if line_length == 0 { n } else { (line_length / 3).max(1) };
    let max_cols = if max_idx < n { max_idx } else { n };
    let mut widths: Vec<Vec<usize>> = (1..=max_cols).map(|c| vec![0; c]).collect();
    let mut line_len: Vec<usize> = (1..=max_cols).map(|c| c * 3).collect();
    let mut valid = vec![true; max_cols];
    // GNU starts each column at the minimum width of 3 (a 1-char name plus separator).
    for (c, w) in widths.iter_mut().enumerate() {
        for (idx, slot) in w.iter_mut().enumerate() {
            *slot = if idx == c { 1 } else { 3 };
        }
        line_len[c] = 3 * c + 1;
    }
    for (fileno, (_, len)) in items.iter().enumerate() {
        for i in 0..max_cols {
            if !valid[i] {
                continue;
            }
            let idx = if by_columns { fileno / ((n + i) / (i + 1)) } else { fileno % (i + 1) };
            let real = len + if idx == i { 0 } else { 2 };
            if widths[i][idx] < real {
                line_len[i] += real - widths[i][idx];
                widths[i][idx] = real;
                valid[i] = line_length == 0 || line_len[i] < line_length;
            }
        }
    }
    let mut cols = max_cols;
    while cols > 1 && !valid[cols - 1] {
        cols -= 1;
    }
    let w = &widths[cols - 1];
    if by_columns {
        let rows = (n + cols - 1) / cols;
        for row in 0..rows {
            let (mut col, mut fileno, mut pos) = (0, row, 0);
            loop {
                let (text, len) = &items[fileno];
                out.extend_from_slice(text);
                let max = w[col];
                col += 1;
                fileno += rows;
                if fileno >= n {
                    break;
                }
                indent(&mut out, pos + len, pos + max);
                pos += max;
            }
            out.push(b'\n');
        }
    } else {
        let mut pos = 0;
        out.extend_from_slice(&items[0].0);
        let (mut len, mut max) = (items[0].1, w[0]);
        for fileno in 1..n {
            let col = fileno % cols;
            if col == 0 {
                out.push(b'\n');
                pos = 0;
            } else {
                indent(&mut out, pos + len, pos + max);
                pos += max;
            }
            out.extend_from_slice(&items[fileno].0);
            len = items[fileno].1;
            max = w[col];
        }
        out.push(b'\n');
    }
    out
}

/// Moves from column `from` to `to` with tabs (stops every 8) and spaces, as GNU ls does.
fn indent(out: &mut Vec<u8>, mut from: usize, to: usize) {
    while from < to {
        if to / 8 > (from + 1) / 8 {
            out.push(b'\t');
            from += 8 - from % 8;
        } else {
            out.push(b' ');
            from += 1;
        }
    }
}

fn print_long(io: &mut Io, entries: &[Entry], o: &Options, names: &Names, prefix: &dyn Fn(&Entry, bool) -> Vec<u8>) -> io::Result<()> {
    let current = now().0;
    let owner = |e: &Entry| if o.numeric { e.meta.uid.to_string() } else { names.user(e.meta.uid) };
    let group = |e: &Entry| if o.numeric { e.meta.gid.to_string() } else { names.group(e.meta.gid) };
    let rows: Vec<(String, String, String, String)> = entries.iter().map(|e| (e.meta.nlink.to_string(), owner(e), group(e), size_text(e.meta.size, o))).collect();
    let wl = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let wo = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let wg = rows.iter().map(|r| r.2.len()).max().unwrap_or(0);
    let ws = rows.iter().map(|r| r.3.len()).max().unwrap_or(0);
    let mut out = Vec::new();
    for (e, (links, user, grp, size)) in entries.iter().zip(rows.iter()) {
        out.extend_from_slice(&prefix(e, true));
        let mut line = format!("{} {:>wl$} ", mode_string(e.meta.mode), links, wl = wl);
        if o.show_owner {
            line.push_str(&format!("{:<wo$} ", user, wo = wo));
        }
        if o.show_group {
            line.push_str(&format!("{:<wg$} ", grp, wg = wg));
        }
        line.push_str(&format!("{:>ws$} {} ", size, date_text(time_of(&e.meta, o.time), o, current), ws = ws));
        out.extend_from_slice(line.as_bytes());
        let orphan = e.link_target.is_some() && e.target_meta.is_none();
        out.extend_from_slice(&painted(shown_name(&e.name, o), &e.name, &e.meta, orphan, o));
        if let Some(target) = &e.link_target {
            out.extend_from_slice(b" -> ");
            // The target in its own colour; a missing one as GNU's `mi` (uncoloured by default).
            let shown = shown_name(target, o);
            match &e.target_meta {
                Some(t) => out.extend_from_slice(&painted(shown, target, t, false, o)),
                None => out.extend_from_slice(&shown),
            }
            if let (Some(t), Indicator::Classify | Indicator::FileType) = (&e.target_meta, o.indicator) {
                if let Some(c) = indicator(t, o.indicator) {
                    out.push(c);
                }
            }
        } else if let Some(c) = indicator(&e.meta, o.indicator) {
            out.push(c);
        }
        out.push(b'\n');
    }
    io.out(&out)
}
