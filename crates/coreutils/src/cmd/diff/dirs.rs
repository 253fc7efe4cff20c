//! Deciding what to compare: two files, a file and a directory (the file's namesake inside
//! it), or two directories entry by entry ("Only in", "Common subdirectories", -r, -N,
//! -x, -S), and reading the inputs (stdin once, binary detection, --brief shortcuts).

use std::io;
use std::path::PathBuf;

use common::args::bytes_os;
use common::fsext::{self, Meta};
use common::fnmatch::{fnmatch, FnFlags};
use common::{strerror, Io};

use super::analyze::{self, Settings, Text, WhiteSpace};
use super::format::{Pair, Style};
use super::Config;

/// What one operand turned out to be.
#[derive(Clone, Copy)]
enum Input {
    Missing,
    Stdin,
    File(Meta),
}

pub struct Session<'c, 'i, 'a> {
    cfg: &'c Config,
    io: &'i mut Io<'a>,
    stdin: Option<Vec<u8>>,
    write_error: Option<io::Error>,
}

fn path_of(p: &[u8]) -> PathBuf {
    PathBuf::from(bytes_os(p))
}

/// `dir/name`, without doubling slashes at the end of `dir`.
fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut end = dir.len();
    while end > 1 && dir[end - 1] == b'/' {
        end -= 1;
    }
    let mut out = dir[..end].to_vec();
    if out.last() != Some(&b'/') {
        out.push(b'/');
    }
    out.extend_from_slice(name);
    out
}

fn base_name(p: &[u8]) -> &[u8] {
    let mut end = p.len();
    while end > 1 && p[end - 1] == b'/' {
        end -= 1;
    }
    let trimmed = &p[..end];
    match trimmed.iter().rposition(|b| *b == b'/') {
        Some(i) if i + 1 < trimmed.len() => &trimmed[i + 1..],
        _ => trimmed,
    }
}

/// File names in headers are written as C strings when they hold spaces, quotes,
/// backslashes or bytes that are not printable ASCII (GNU 3.8).
pub fn c_quote(name: &[u8]) -> Vec<u8> {
    if name.iter().all(|&c| (0x21..0x7f).contains(&c) && c != b'"' && c != b'\\') {
        return name.to_vec();
    }
    let mut out = vec![b'"'];
    for &c in name {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\x07' => out.extend_from_slice(b"\\a"),
            b'\x08' => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\x0b' => out.extend_from_slice(b"\\v"),
            b'\x0c' => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x20..=0x7e => out.push(c),
            _ => out.extend_from_slice(format!("\\{:03o}", c).as_bytes()),
        }
    }
    out.push(b'"');
    out
}

fn type_name(m: &Meta) -> &'static str {
    match m.file_type() {
        fsext::S_IFREG if m.size == 0 => "regular empty file",
        fsext::S_IFREG => "regular file",
        fsext::S_IFDIR => "directory",
        fsext::S_IFLNK => "symbolic link",
        fsext::S_IFIFO => "fifo",
        fsext::S_IFSOCK => "socket",
        fsext::S_IFCHR => "character special file",
        fsext::S_IFBLK => "block special file",
        _ => "weird file",
    }
}

fn is_enoent(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound
}

impl<'c, 'i, 'a> Session<'c, 'i, 'a> {
    pub fn new(cfg: &'c Config, io: &'i mut Io<'a>) -> Session<'c, 'i, 'a> {
        Session { cfg, io, stdin: None, write_error: None }
    }

    /// Final status, reporting a failed write the way GNU does.
    pub fn finish(self, status: i32) -> i32 {
        match self.write_error {
            Some(e) if !common::error::is_broken_pipe(&e) => {
                let _ = writeln!(self.io.stderr, "{}: write error: {}", self.io.name, strerror(&e));
                2
            }
            _ => status,
        }
    }

    fn out(&mut self, bytes: &[u8]) {
        if self.write_error.is_none() {
            if let Err(e) = self.io.stdout.write_all(bytes) {
                self.write_error = Some(e);
            }
        }
    }

    fn message(&mut self, text: Vec<u8>) {
        self.out(&text);
    }

    /// `LEAD A and B TAIL`: diff's one-line reports about a pair of files.
    fn pair(&mut self, lead: &[u8], a: &[u8], b: &[u8], tail: &[u8]) {
        let mut text = lead.to_vec();
        text.extend_from_slice(a);
        text.extend_from_slice(b" and ");
        text.extend_from_slice(b);
        text.extend_from_slice(tail);
        self.message(text);
    }

    fn error(&mut self, subject: &[u8], e: &io::Error) -> i32 {
        let _ = self.io.stdout.flush();
        let _ = writeln!(self.io.stderr, "{}: {}: {}", self.io.name, String::from_utf8_lossy(subject), strerror(e));
        2
    }

    pub fn compare_top(&mut self, a: &[u8], b: &[u8]) -> i32 {
        self.compare(a, b, 0)
    }

    fn stat(&self, p: &[u8]) -> io::Result<Meta> {
        fsext::metadata(&path_of(p), !self.cfg.no_dereference)
    }

    fn compare(&mut self, p0: &[u8], p1: &[u8], depth: usize) -> i32 {
        if self.write_error.is_some() {
            return 2;
        }
        let mut inputs = [Input::Missing, Input::Missing];
        let mut failed = false;
        for (f, p) in [p0, p1].iter().enumerate() {
            if depth == 0 && *p == b"-" {
                inputs[f] = Input::Stdin;
                continue;
            }
            match self.stat(p) {
                Ok(m) => inputs[f] = Input::File(m),
                Err(e) if is_enoent(&e) && (self.cfg.new_file || (self.cfg.unidirectional && f == 0)) => {}
                Err(e) => {
                    self.error(p, &e);
                    failed = true;
                }
            }
        }
        if failed {
            return 2;
        }
        if let [Input::Missing, Input::Missing] = inputs {
            let e = io::Error::from(io::ErrorKind::NotFound);
            self.error(p0, &e);
            return 2;
        }
        let is_dir = |i: &Input| matches!(i, Input::File(m) if m.is_dir());
        let dirs = [is_dir(&inputs[0]), is_dir(&inputs[1])];
        if dirs[0] && dirs[1] {
            if depth > 0 && !self.cfg.recursive {
                self.pair(b"Common subdirectories: ", p0, p1, b"\n");
                return 0;
            }
            return self.compare_dirs(p0, p1, depth, [false, false]);
        }
        if (dirs[0] || dirs[1]) && (matches!(inputs[0], Input::Missing) || matches!(inputs[1], Input::Missing)) {
            if depth > 0 && !self.cfg.recursive {
                return 0;
            }
            let missing = [matches!(inputs[0], Input::Missing), matches!(inputs[1], Input::Missing)];
            return self.compare_dirs(p0, p1, depth, missing);
        }
        if dirs[0] || dirs[1] {
            let d = if dirs[0] { 0 } else { 1 };
            if depth == 0 {
                if let Input::Stdin = inputs[1 - d] {
                    let _ = writeln!(self.io.stderr, "{}: cannot compare '-' to a directory", self.io.name);
                    return 2;
                }
                let other = if d == 0 { p1 } else { p0 };
                let inside = join(if d == 0 { p0 } else { p1 }, base_name(other));
                let (a, b) = if d == 0 { (inside, p1.to_vec()) } else { (p0.to_vec(), inside) };
                if self.is_dir_path(if d == 0 { &a } else { &b }) {
                    let inner = [self.stat(&a).map(Input::File).unwrap_or(Input::Missing), self.stat(&b).map(Input::File).unwrap_or(Input::Missing)];
                    return self.type_mismatch(&a, &b, &inner);
                }
                return self.compare(&a, &b, 0);
            }
            return self.type_mismatch(p0, p1, &inputs);
        }
        if self.cfg.no_dereference {
            let links = [matches!(inputs[0], Input::File(m) if m.is_symlink()), matches!(inputs[1], Input::File(m) if m.is_symlink())];
            if links[0] && links[1] {
                let (t0, t1) = (std::fs::read_link(path_of(p0)), std::fs::read_link(path_of(p1)));
                match (t0, t1) {
                    (Ok(a), Ok(b)) if a == b => return 0,
                    (Ok(_), Ok(_)) => {
                        self.pair(b"Symbolic links ", p0, p1, b" differ\n");
                        return 1;
                    }
                    (Err(e), _) => return self.error(p0, &e),
                    (_, Err(e)) => return self.error(p1, &e),
                }
            }
            if links[0] != links[1] && depth > 0 {
                return self.type_mismatch(p0, p1, &inputs);
            }
        }
        // The same file needs no reading, unless -y is to show it anyway.
        let shows_common = self.cfg.format.style == Style::SideBySide && !self.cfg.format.suppress_common;
        if let [Input::File(a), Input::File(b)] = inputs {
            if a.dev == b.dev && a.ino == b.ino && a.ino != 0 && !shows_common {
                return self.identical(p0, p1);
            }
        }
        if let ([Input::Stdin, Input::Stdin], false) = (inputs, shows_common) {
            return self.identical(p0, p1);
        }
        let mut data = [Vec::new(), Vec::new()];
        let mut mtimes = [0i128, 0i128];
        for f in 0..2 {
            let p = if f == 0 { p0 } else { p1 };
            match inputs[f] {
                Input::Missing => {}
                Input::Stdin => {
                    if self.stdin.is_none() {
                        let mut buf = Vec::new();
                        if let Err(e) = self.io.stdin.read_to_end(&mut buf) {
                            return self.error(b"-", &e);
                        }
                        self.stdin = Some(buf);
                    }
                    data[f] = self.stdin.clone().unwrap_or_default();
                    mtimes[f] = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0);
                }
                Input::File(m) => {
                    mtimes[f] = m.mtime_ns;
                    match std::fs::read(path_of(p)) {
                        Ok(d) => data[f] = d,
                        Err(e) => return self.error(p, &e),
                    }
                }
            }
        }
        self.compare_texts([p0, p1], data, mtimes, depth)
    }

    fn is_dir_path(&self, p: &[u8]) -> bool {
        self.stat(p).map(|m| m.is_dir()).unwrap_or(false)
    }

    fn type_mismatch(&mut self, p0: &[u8], p1: &[u8], inputs: &[Input; 2]) -> i32 {
        let kind = |i: &Input| match i {
            Input::File(m) => type_name(m),
            _ => "regular file",
        };
        let text = format!("File {} is a {} while file {} is a {}\n", String::from_utf8_lossy(p0), kind(&inputs[0]), String::from_utf8_lossy(p1), kind(&inputs[1]));
        self.message(text.into_bytes());
        1
    }

    fn label(&self, f: usize, name: &[u8]) -> Vec<u8> {
        self.cfg.format.labels[f].clone().unwrap_or_else(|| name.to_vec())
    }

    fn identical(&mut self, p0: &[u8], p1: &[u8]) -> i32 {
        if self.cfg.report_identical {
            let (a, b) = (self.label(0, p0), self.label(1, p1));
            self.pair(b"Files ", &a, &b, b" are identical\n");
        }
        0
    }

    fn differ(&mut self, p0: &[u8], p1: &[u8], binary: bool) -> i32 {
        let lead: &[u8] = if binary && !self.cfg.brief { b"Binary files " } else { b"Files " };
        let (a, b) = (self.label(0, p0), self.label(1, p1));
        self.pair(lead, &a, &b, b" differ\n");
        1
    }

    fn compare_texts(&mut self, names: [&[u8]; 2], data: [Vec<u8>; 2], mtimes: [i128; 2], depth: usize) -> i32 {
        let cfg = self.cfg;
        let fmt = &cfg.format;
        let ignoring = cfg.compare.ignore_case || cfg.compare.white != WhiteSpace::Exact || fmt.ignore_blank_lines || fmt.ignore_regex.is_some() || cfg.strip_cr;
        let looks_binary = |d: &[u8]| memchr::memchr(0, &d[..d.len().min(4096)]).is_some();
        let binary = !cfg.text && (looks_binary(&data[0]) || looks_binary(&data[1]));
        if binary || (cfg.brief && !ignoring) {
            return if data[0] == data[1] { self.identical(names[0], names[1]) } else { self.differ(names[0], names[1], binary) };
        }
        let [d0, d1] = data;
        let texts = [Text::new(d0, cfg.strip_cr), Text::new(d1, cfg.strip_cr)];
        let context_style = matches!(fmt.style, Style::Context | Style::Unified);
        let settings = Settings {
            compare: cfg.compare,
            horizon: cfg.horizon.unwrap_or(0).max(if context_style { fmt.context } else { 0 }),
            robust: fmt.style != Style::Ed,
            minimal: cfg.minimal,
            heuristic: cfg.heuristic,
        };
        let changes = analyze::diff(&texts[0], &texts[1], &settings);
        let pair = Pair {
            texts: [&texts[0], &texts[1]],
            names: [c_quote(names[0]), c_quote(names[1])],
            mtimes,
            header_line: if depth > 0 {
                let mut line = b"diff".to_vec();
                line.extend_from_slice(&cfg.switches);
                for f in 0..2 {
                    line.push(b' ');
                    match &fmt.labels[f] {
                        Some(l) => line.extend_from_slice(l),
                        None => line.extend_from_slice(&c_quote(names[f])),
                    }
                }
                Some(line)
            } else {
                None
            },
        };
        let mut status = if changes.is_empty() { 0 } else { 1 };
        if status == 1 && !fmt.has_visible(&pair, &changes) {
            status = 0;
        }
        if cfg.brief {
            return if status == 1 { self.differ(names[0], names[1], false) } else { self.identical(names[0], names[1]) };
        }
        let show_anyway = fmt.style == Style::SideBySide && !fmt.suppress_common;
        if status == 1 || show_anyway {
            let mut buf = Vec::new();
            let result = fmt.print(&pair, &changes, &mut buf);
            if let Err(e) = result {
                self.write_error = Some(e);
                return 2;
            }
            self.out(&buf);
        }
        if fmt.style == Style::Ed {
            for f in 0..2 {
                if texts[f].missing_newline {
                    let _ = self.io.stdout.flush();
                    let _ = writeln!(self.io.stderr, "{}: {}: No newline at end of file", self.io.name, String::from_utf8_lossy(&self.label(f, names[f])));
                    status = 2;
                }
            }
        }
        if status == 0 {
            self.identical(names[0], names[1]);
        }
        status
    }

    fn list(&mut self, dir: &[u8]) -> Result<Vec<Vec<u8>>, i32> {
        let entries = match std::fs::read_dir(path_of(dir)) {
            Ok(e) => e,
            Err(e) => return Err(self.error(dir, &e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            match entry {
                Ok(e) => {
                    let name = common::args::os_bytes(&e.file_name()).to_vec();
                    let excluded = self.cfg.excludes.iter().any(|p| fnmatch(p, &name, FnFlags::default()));
                    if !excluded {
                        names.push(name);
                    }
                }
                Err(e) => return Err(self.error(dir, &e)),
            }
        }
        names.sort();
        Ok(names)
    }

    fn compare_dirs(&mut self, d0: &[u8], d1: &[u8], depth: usize, missing: [bool; 2]) -> i32 {
        let mut lists = [Vec::new(), Vec::new()];
        for f in 0..2 {
            if !missing[f] {
                match self.list(if f == 0 { d0 } else { d1 }) {
                    Ok(l) => lists[f] = l,
                    Err(status) => return status,
                }
            }
        }
        if depth == 0 {
            if let Some(start) = &self.cfg.starting_file {
                for list in lists.iter_mut() {
                    list.retain(|n| n.as_slice() >= start.as_slice());
                }
            }
        }
        let mut status = 0;
        let (mut i, mut j) = (0, 0);
        while i < lists[0].len() || j < lists[1].len() {
            let order = match (lists[0].get(i), lists[1].get(j)) {
                (Some(a), Some(b)) => a.cmp(b),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (name, side) = match order {
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                    (lists[0][i - 1].clone(), None)
                }
                std::cmp::Ordering::Less => {
                    i += 1;
                    (lists[0][i - 1].clone(), Some(0))
                }
                std::cmp::Ordering::Greater => {
                    j += 1;
                    (lists[1][j - 1].clone(), Some(1))
                }
            };
            let (p0, p1) = (join(d0, &name), join(d1, &name));
            let result = match side {
                Some(f) if !(self.cfg.new_file || (self.cfg.unidirectional && f == 1)) => {
                    let mut text = b"Only in ".to_vec();
                    text.extend_from_slice(if f == 0 { d0 } else { d1 });
                    text.extend_from_slice(b": ");
                    text.extend_from_slice(&name);
                    text.push(b'\n');
                    self.message(text);
                    1
                }
                _ => self.compare(&p0, &p1, depth + 1),
            };
            status = status.max(result);
            if self.write_error.is_some() {
                break;
            }
        }
        status
    }
}
