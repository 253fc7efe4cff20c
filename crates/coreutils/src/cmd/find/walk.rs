//! Walking the trees and evaluating the expression on each file: pre-order, or
//! post-order with -depth/-delete; -maxdepth/-mindepth/-prune/-xdev/-quit; symlinks
//! followed per -P/-H/-L with loop detection; tests stat lazily; -exec/-execdir run
//! through common::spawn, `+` batches flushed when full, per directory, and at the end.

use std::io::Write;
use std::path::PathBuf;

use common::args::bytes_os;
use common::fnmatch::{fnmatch, FnFlags};
use common::fsext::{self, Meta};
use common::spawn::{Command, Exit};
use common::strerror;

use super::expr::{q, Access, Cmp, ExecSpec, Expr, Follow, Options, PermKind, Stamp};
use super::printf::{self, base_name, Facts, LsWidths};

/// Total argv bytes (each word + NUL) one batched command may take, as xargs uses.
const BATCH_LIMIT: usize = 131_072;

struct Batch {
    dir: Option<Vec<u8>>,
    paths: Vec<Vec<u8>>,
    size: usize,
}

pub struct Walker<'a> {
    pub opts: &'a Options,
    pub out: Vec<u8>,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    pub files: Vec<std::fs::File>,
    pub status: i32,
    pub quit: bool,
    prune: bool,
    batches: Vec<Batch>,
    now_secs: i64,
    ids: (u32, u32),
    names: Option<common::users::Names>,
    ls: LsWidths,
    write_failed: bool,
}

/// The directories above the current one: (dev, ino, path), for loop detection.
type Ancestors = Vec<(u64, u64, Vec<u8>)>;

/// One file as the expression sees it.
struct Entry<'p> {
    path: &'p [u8],
    start: &'p [u8],
    depth: usize,
    /// lstat.
    lmeta: Meta,
    /// stat or lstat, following the -P/-H/-L rule.
    meta: Meta,
    followed: bool,
}

fn path_of(p: &[u8]) -> PathBuf {
    PathBuf::from(bytes_os(p))
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(dir.len() + name.len() + 1);
    out.extend_from_slice(dir);
    if out.last() != Some(&b'/') {
        out.push(b'/');
    }
    out.extend_from_slice(name);
    out
}

/// The running process's effective uid and gid (from /proc, which both Linux and the
/// sandbox provide).
fn current_ids() -> (u32, u32) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| -> Option<u32> { text.lines().find(|l| l.starts_with(key))?.split_whitespace().nth(2)?.parse().ok() };
    (field("Uid:").unwrap_or(1000), field("Gid:").unwrap_or(1000))
}

fn stamp(m: &Meta, s: Stamp) -> i128 {
    match s {
        Stamp::Access => m.atime_ns,
        Stamp::Change => m.ctime_ns,
        Stamp::Modify => m.mtime_ns,
        Stamp::Used => m.ctime_ns - m.atime_ns,
    }
}

impl<'a> Walker<'a> {
    pub fn new(opts: &'a Options, stdout: &'a mut dyn Write, stderr: &'a mut dyn Write, files: Vec<std::fs::File>, now_ns: i128) -> Walker<'a> {
        Walker {
            opts,
            out: Vec::with_capacity(1 << 16),
            stdout,
            stderr,
            files,
            status: 0,
            quit: false,
            prune: false,
            batches: opts.execs.iter().map(|_| Batch { dir: None, paths: Vec::new(), size: 0 }).collect(),
            now_secs: common::timefmt::split_ns(now_ns).0,
            ids: current_ids(),
            names: None,
            ls: LsWidths::default(),
            write_failed: false,
        }
    }

    fn error(&mut self, text: String) {
        self.flush();
        let _ = writeln!(self.stderr, "find: {}", text);
        self.status = 1;
    }

    pub fn flush(&mut self) {
        if !self.out.is_empty() && !self.write_failed {
            if self.stdout.write_all(&self.out).is_err() {
                self.write_failed = true;
                self.quit = true;
            }
        }
        self.out.clear();
        let _ = self.stdout.flush();
    }

    fn emit(&mut self, file: Option<usize>, bytes: &[u8]) {
        match file {
            None => {
                self.out.extend_from_slice(bytes);
                if self.out.len() >= 1 << 16 {
                    self.flush();
                }
            }
            Some(i) => {
                if let Some(f) = self.files.get_mut(i) {
                    let _ = f.write_all(bytes);
                }
            }
        }
    }

    /// Walks one starting point.
    pub fn start(&mut self, expr: &Expr, start: &[u8]) {
        let mut ancestors = Vec::new();
        self.visit(expr, start, start, 0, &mut ancestors, None);
    }

    fn stat(&mut self, path: &[u8], depth: usize) -> Option<(Meta, Meta, bool)> {
        let p = path_of(path);
        let lmeta = match fsext::metadata(&p, false) {
            Ok(m) => m,
            Err(e) => {
                self.error(format!("{}: {}", q(path), strerror(&e)));
                return None;
            }
        };
        let follow = match self.opts.follow {
            Follow::Always => true,
            Follow::CommandLine => depth == 0,
            Follow::Never => false,
        };
        if follow && lmeta.is_symlink() {
            if let Ok(m) = fsext::metadata(&p, true) {
                return Some((lmeta, m, true));
            }
        }
        Some((lmeta, lmeta, false))
    }

    fn visit(&mut self, expr: &Expr, path: &[u8], start: &[u8], depth: usize, ancestors: &mut Ancestors, root_dev: Option<u64>) {
        if self.quit {
            return;
        }
        let (lmeta, meta, followed) = match self.stat(path, depth) {
            Some(v) => v,
            None => return,
        };
        // A directory reached again through a followed link is a loop: GNU reports it
        // instead of visiting it.
        if meta.is_dir() && (followed || self.opts.follow == Follow::Always) {
            if let Some((_, _, first)) = ancestors.iter().find(|a| (a.0, a.1) == (meta.dev, meta.ino)) {
                let text = format!("File system loop detected; {} is part of the same file system loop as {}.", q(path), q(first));
                self.error(text);
                return;
            }
        }
        let entry = Entry { path, start, depth, lmeta, meta, followed };
        let evaluate = depth >= self.opts.min_depth;
        self.prune = false;
        if !self.opts.depth_first && evaluate {
            self.eval(expr, &entry);
        }
        let descend = meta.is_dir() && self.opts.max_depth.map_or(true, |m| depth < m) && !(self.prune && !self.opts.depth_first) && !self.quit;
        let root_dev = root_dev.unwrap_or(meta.dev);
        if descend && !(self.opts.same_fs && meta.dev != root_dev) {
            ancestors.push((meta.dev, meta.ino, path.to_vec()));
            self.children(expr, path, start, depth, ancestors, root_dev);
            ancestors.pop();
        }
        if self.opts.depth_first && evaluate && !self.quit {
            self.prune = false;
            self.eval(expr, &entry);
        }
    }

    fn children(&mut self, expr: &Expr, path: &[u8], start: &[u8], depth: usize, ancestors: &mut Ancestors, root_dev: u64) {
        let entries = match std::fs::read_dir(path_of(path)) {
            Ok(e) => e,
            Err(e) => {
                self.error(format!("{}: {}", q(path), strerror(&e)));
                return;
            }
        };
        let mut names = Vec::new();
        for entry in entries {
            match entry {
                Ok(e) => names.push(common::args::os_bytes(&e.file_name()).to_vec()),
                Err(e) => {
                    self.error(format!("{}: {}", q(path), strerror(&e)));
                    break;
                }
            }
        }
        for name in names {
            if self.quit {
                return;
            }
            let child = join(path, &name);
            self.visit(expr, &child, start, depth + 1, ancestors, Some(root_dev));
        }
    }

    fn eval(&mut self, e: &Expr, x: &Entry) -> bool {
        match e {
            // -quit ends everything at once: nothing after it is evaluated.
            Expr::And(a, b) => self.eval(a, x) && !self.quit && self.eval(b, x),
            Expr::Or(a, b) => (self.eval(a, x) || (!self.quit && self.eval(b, x))) && !self.quit,
            Expr::Not(a) => !self.eval(a, x),
            Expr::Comma(a, b) => {
                self.eval(a, x);
                !self.quit && self.eval(b, x)
            }
            Expr::True => true,
            Expr::False => false,
            Expr::Name { pattern, icase } => {
                let mut name = base_name(x.path);
                while name.len() > 1 && name.last() == Some(&b'/') {
                    name = &name[..name.len() - 1];
                }
                fnmatch(pattern, name, FnFlags { casefold: *icase, ..FnFlags::default() })
            }
            Expr::Path { pattern, icase } => fnmatch(pattern, x.path, FnFlags { casefold: *icase, ..FnFlags::default() }),
            Expr::LinkName { pattern, icase } => match (x.lmeta.is_symlink(), std::fs::read_link(path_of(x.path))) {
                (true, Ok(target)) => fnmatch(pattern, common::args::os_bytes(target.as_os_str()), FnFlags { casefold: *icase, ..FnFlags::default() }),
                _ => false,
            },
            Expr::Regex(re) => re.is_match(x.path),
            Expr::Type { types, xtype } => {
                let m = if !*xtype {
                    x.meta
                } else if x.followed || self.opts.follow == Follow::Always {
                    x.lmeta
                } else {
                    fsext::metadata(&path_of(x.path), true).unwrap_or(x.lmeta)
                };
                types.contains(&printf::type_letter(m.mode))
            }
            Expr::Size { cmp, n, unit } => {
                let units = (x.meta.size + unit - 1) / unit;
                cmp.test(units, *n)
            }
            Expr::Empty => {
                if x.meta.is_dir() {
                    std::fs::read_dir(path_of(x.path)).map(|mut d| d.next().is_none()).unwrap_or(false)
                } else {
                    x.meta.is_file() && x.meta.size == 0
                }
            }
            Expr::Time { stamp: s, cmp, reference, window } => {
                let t = stamp(&x.meta, *s);
                match cmp {
                    Cmp::Greater => t < *reference,
                    Cmp::Less => t > *reference,
                    Cmp::Equal => {
                        let delta = t - reference;
                        delta > 0 && delta <= *window
                    }
                }
            }
            Expr::Newer { stamp: s, reference } => stamp(&x.meta, *s) > *reference,
            Expr::Perm { kind, mode } => {
                let want = mode[x.meta.is_dir() as usize];
                let have = x.meta.permissions();
                match kind {
                    PermKind::Exact => have == want,
                    PermKind::All => have & want == want,
                    PermKind::Any => want == 0 || have & want != 0,
                }
            }
            Expr::Uid(c, n) => c.test(x.meta.uid as u64, *n),
            Expr::Gid(c, n) => c.test(x.meta.gid as u64, *n),
            Expr::NoUser => self.names().user_name(x.meta.uid).is_none(),
            Expr::NoGroup => self.names().group_name(x.meta.gid).is_none(),
            Expr::Links(c, n) => c.test(x.meta.nlink, *n),
            Expr::Inum(c, n) => c.test(x.meta.ino, *n),
            Expr::SameFile { dev, ino } => x.meta.dev == *dev && x.meta.ino == *ino,
            Expr::Access(a) => self.access(&x.meta, *a),
            Expr::Print { zero, file } => {
                let mut line = x.path.to_vec();
                line.push(if *zero { 0 } else { b'\n' });
                self.emit(*file, &line);
                true
            }
            Expr::Printf { format, file } => {
                let facts = self.facts(x);
                let mut buf = Vec::new();
                let go_on = printf::render(format, &facts, &mut buf);
                self.emit(*file, &buf);
                if !go_on {
                    self.flush();
                }
                true
            }
            Expr::Ls { file } => {
                let facts = self.facts(x);
                let mut buf = Vec::new();
                let mut widths = std::mem::take(&mut self.ls);
                printf::ls_line(&mut widths, &facts, self.now_secs, &mut buf);
                self.ls = widths;
                self.emit(*file, &buf);
                true
            }
            Expr::Delete => self.delete(x),
            Expr::Exec(spec) => self.exec(spec, x),
            Expr::Prune => {
                self.prune = true;
                true
            }
            Expr::Quit => {
                self.quit = true;
                true
            }
        }
    }

    fn names(&mut self) -> &common::users::Names {
        self.names.get_or_insert_with(common::users::Names::load)
    }

    fn facts<'e>(&mut self, x: &'e Entry) -> Facts<'e> {
        let link_target = if x.lmeta.is_symlink() { std::fs::read_link(path_of(x.path)).ok().map(|t| common::args::os_bytes(t.as_os_str()).to_vec()) } else { None };
        let type_followed = if x.lmeta.is_symlink() {
            match fsext::metadata(&path_of(x.path), true) {
                Ok(m) => printf::type_letter(m.mode),
                Err(e) if e.raw_os_error() == Some(airlock_sys::errno::os::LOOP) => b'L',
                Err(_) => b'N',
            }
        } else {
            printf::type_letter(x.meta.mode)
        };
        let (uid, gid) = (x.meta.uid, x.meta.gid);
        let names = self.names();
        Facts { path: x.path, start: x.start, depth: x.depth, meta: Some(x.meta), type_followed, link_target, user: names.user(uid), group: names.group(gid) }
    }

    /// access(2) from the mode bits: root may read and write anything and execute what
    /// has an x bit; others get the owner, group or other bits that apply.
    fn access(&self, m: &Meta, a: Access) -> bool {
        let (uid, gid) = self.ids;
        let bit = match a {
            Access::Read => 4,
            Access::Write => 2,
            Access::Execute => 1,
        };
        if uid == 0 {
            return a != Access::Execute || m.is_dir() || m.permissions() & 0o111 != 0;
        }
        let shift = if m.uid == uid {
            6
        } else if m.gid == gid {
            3
        } else {
            0
        };
        (m.permissions() >> shift) & bit != 0
    }

    fn delete(&mut self, x: &Entry) -> bool {
        if x.path == b"." {
            return true;
        }
        let p = path_of(x.path);
        let result = if x.lmeta.is_dir() { std::fs::remove_dir(&p) } else { std::fs::remove_file(&p) };
        match result {
            Ok(()) => true,
            Err(e) => {
                self.error(format!("cannot delete {}: {}", q(x.path), strerror(&e)));
                false
            }
        }
    }

    /// The command for `spec` with `{}` replaced by `arg` (-exec ;).
    fn substitute(spec: &ExecSpec, arg: &[u8]) -> Vec<Vec<u8>> {
        spec.argv
            .iter()
            .map(|word| {
                let mut out = Vec::with_capacity(word.len());
                let mut i = 0;
                while i < word.len() {
                    if word[i..].starts_with(b"{}") {
                        out.extend_from_slice(arg);
                        i += 2;
                    } else {
                        out.push(word[i]);
                        i += 1;
                    }
                }
                out
            })
            .collect()
    }

    /// For -execdir: the file's directory and `./name`.
    fn dir_and_name(path: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let mut end = path.len();
        while end > 1 && path[end - 1] == b'/' {
            end -= 1;
        }
        match path[..end].iter().rposition(|&c| c == b'/') {
            Some(0) => (b"/".to_vec(), join(b".", &path[1..end])),
            Some(p) => (path[..p].to_vec(), join(b".", &path[p + 1..end])),
            None => (b".".to_vec(), join(b".", &path[..end])),
        }
    }

    fn run(&mut self, argv: Vec<Vec<u8>>, dir: Option<&[u8]>) -> bool {
        self.flush();
        let program = argv[0].clone();
        let mut cmd = Command::new(argv.iter().map(|a| bytes_os(a)).collect());
        if let Some(d) = dir {
            cmd = cmd.cwd(path_of(d));
        }
        match cmd.run() {
            Ok(Exit::Code(0)) => true,
            Ok(_) => false,
            Err(e) => {
                // GNU reports this from the child, which then fails: the action is false
                // but find's own status is unchanged.
                self.flush();
                let _ = writeln!(self.stderr, "find: {}: {}", q(&program), strerror(&e));
                false
            }
        }
    }

    fn exec(&mut self, spec: &ExecSpec, x: &Entry) -> bool {
        let (dir, arg) = if spec.in_dir { let (d, n) = Self::dir_and_name(x.path); (Some(d), n) } else { (None, x.path.to_vec()) };
        if !spec.batch {
            let argv = Self::substitute(spec, &arg);
            return self.run(argv, dir.as_deref());
        }
        let fixed: usize = spec.argv[..spec.argv.len() - 1].iter().map(|a| a.len() + 1).sum();
        let batch = &self.batches[spec.slot];
        let full = !batch.paths.is_empty() && (batch.dir != dir || fixed + batch.size + arg.len() + 1 > BATCH_LIMIT);
        if full {
            self.run_batch(spec);
        }
        let batch = &mut self.batches[spec.slot];
        batch.dir = dir;
        batch.size += arg.len() + 1;
        batch.paths.push(arg);
        true
    }

    fn run_batch(&mut self, spec: &ExecSpec) {
        let batch = &mut self.batches[spec.slot];
        if batch.paths.is_empty() {
            return;
        }
        let mut argv: Vec<Vec<u8>> = spec.argv[..spec.argv.len() - 1].to_vec();
        argv.append(&mut batch.paths);
        batch.size = 0;
        let dir = batch.dir.take();
        if !self.run(argv, dir.as_deref()) {
            self.status = 1;
        }
    }

    /// Runs what is left in the `+` batches.
    pub fn finish(&mut self) {
        for spec in &self.opts.execs {
            if spec.batch {
                self.run_batch(spec);
            }
        }
        self.flush();
        for f in &mut self.files {
            let _ = f.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execdir_names() {
        assert_eq!(Walker::dir_and_name(b"./d/f"), (b"./d".to_vec(), b"./f".to_vec()));
        assert_eq!(Walker::dir_and_name(b"."), (b".".to_vec(), b"./.".to_vec()));
        assert_eq!(Walker::dir_and_name(b"f"), (b".".to_vec(), b"./f".to_vec()));
        assert_eq!(Walker::dir_and_name(b"/etc"), (b"/".to_vec(), b"./etc".to_vec()));
    }

    #[test]
    fn joining() {
        assert_eq!(join(b"d/", b"f"), b"d/f".to_vec());
        assert_eq!(join(b"d", b"f"), b"d/f".to_vec());
    }
}
