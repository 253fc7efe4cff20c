//! `du`: disk usage of files and directory trees (-a -s -h --si -d N -c -b -k -m -B
//! --apparent-size -S -L -H -0 --exclude). Hard-linked files count once.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::Path;

use common::args::{bytes_os, os_bytes, Command};
use common::fnmatch::{fnmatch, FnFlags};
use common::human::human_size;
use common::io::quote;
use common::targets::join;
use common::{strerror, Io, UError};

const SPEC: &str = "null,0 all,a apparent-size block-size,B: bytes,b total,c dereference-args,D dereference-args=H max-depth,d: human-readable,h si inodes k dereference,L m no-dereference,P separate-dirs,S summarize,s one-file-system,x exclude-from,X: exclude: threshold,t: time::";

const DU: Command = Command::compact("du", SPEC, HELP);

const HELP: &str = "Usage: du [OPTION]... [FILE]...
Summarize device usage of the set of FILEs, recursively for directories.

  -0, --null            end each output line with NUL, not newline
  -a, --all             write counts for all files, not just directories
      --apparent-size   print apparent sizes rather than device usage
  -B, --block-size=SIZE  scale sizes by SIZE before printing them
  -b, --bytes           equivalent to '--apparent-size --block-size=1'
  -c, --total           produce a grand total
  -D, --dereference-args  dereference only symlinks that are listed on the
                          command line
  -d, --max-depth=N     print the total for a directory (or file, with --all)
                          only if it is N or fewer levels below the command
                          line argument;  --max-depth=0 is the same as
                          --summarize
  -H                    equivalent to --dereference-args (-D)
  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)
      --si              like -h, but use powers of 1000 not 1024
  -k                    like --block-size=1K
  -L, --dereference     dereference all symbolic links
  -m                    like --block-size=1M
  -P, --no-dereference  don't follow any symbolic links (this is the default)
  -S, --separate-dirs   for directories do not include size of subdirectories
  -s, --summarize       display only a total for each argument
  -t, --threshold=SIZE  exclude entries smaller than SIZE if positive,
                          or entries greater than SIZE if negative
  -x, --one-file-system    skip directories on different file systems
      --exclude=PATTERN    exclude files that match PATTERN
{standard}";

struct Options {
    all: bool,
    apparent: bool,
    block_size: u64,
    human: Option<u64>,
    max_depth: Option<usize>,
    separate: bool,
    deref_all: bool,
    deref_args: bool,
    threshold: i64,
    exclude: Vec<Vec<u8>>,
    eol: u8,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut o = Options { all: false, apparent: false, block_size: 1024, human: None, max_depth: None, separate: false, deref_all: false, deref_args: false, threshold: 0, exclude: Vec::new(), eol: b'\n' };
    let (mut summarize, mut total) = (false, false);
    let mut files = DU.operands(&args, io, &mut |_, id, value| {
        let value = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
        match id {
            "null" => o.eol = 0,
            "all" => o.all = true,
            "apparent-size" => o.apparent = true,
            "bytes" => {
                o.apparent = true;
                o.block_size = 1;
                o.human = None;
            }
            "block-size" => {
                o.block_size = common::size::block_size(&value)?;
                o.human = None;
            }
            "total" => total = true,
            "dereference-args" => o.deref_args = true,
            "dereference" => o.deref_all = true,
            "no-dereference" => o.deref_all = false,
            "max-depth" => match value.parse::<usize>() {
                Ok(d) => o.max_depth = Some(d),
                Err(_) => {
                    return Err(UError::new(1, format!("invalid maximum depth {}", quote(value.as_ref()))));
                }
            },
            "human-readable" => o.human = Some(1024),
            "si" => o.human = Some(1000),
            "k" => {
                o.block_size = 1024;
                o.human = None;
            }
            "m" => {
                o.block_size = 1024 * 1024;
                o.human = None;
            }
            "separate-dirs" => o.separate = true,
            "summarize" => summarize = true,
            "one-file-system" => {}
            "exclude" => o.exclude.push(value.into_bytes()),
            "exclude-from" => match std::fs::read(&value) {
                Ok(text) => o.exclude.extend(text.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec())),
                Err(e) => {
                    return Err(UError::new(1, format!("{}: {}", value, strerror(&e))));
                }
            },
            "threshold" => {
                let (neg, digits) = match value.strip_prefix('-') {
                    Some(d) => (true, d),
                    None => (false, value.as_str()),
                };
                match common::size::parse_size(digits, "bkKmMGTPEZYRQ0") {
                    Ok(n) if !(neg && n == 0) => o.threshold = if neg { -(n as i64) } else { n as i64 },
                    _ => {
                        return Err(UError::new(1, format!("invalid --threshold argument {}", quote(value.as_ref()))));
                    }
                }
            }
            "inodes" | "time" => {
                return Err(UError::new(1, format!("option not supported in the sandbox: --{}", id)));
            }
            _ => {}
        }
        Ok(())
    })?;
    if summarize {
        if o.all {
            return Err(UError::usage(1, "cannot both summarize and show all entries"));
        }
        if let Some(d) = o.max_depth.filter(|d| *d != 0) {
            return Err(UError::usage(1, format!("warning: summarizing conflicts with --max-depth={}", d)));
        }
        o.max_depth = Some(0);
    }
    if files.is_empty() {
        files.push(OsString::from("."));
    }
    let mut walker = Walker { io, o: &o, seen: HashSet::new(), status: 0, failed_write: None };
    let mut grand = 0u64;
    for f in files {
        grand += walker.walk(Path::new(&f), 0);
        if let Some(e) = walker.failed_write.take() {
            return Ok(common::write::write_failed(walker.io, &e));
        }
    }
    if total {
        walker.print(grand, b"total");
    }
    if let Some(e) = walker.failed_write.take() {
        return Ok(common::write::write_failed(walker.io, &e));
    }
    Ok(walker.status)
}

struct Walker<'a, 'b, 'c> {
    io: &'a mut Io<'b>,
    o: &'c Options,
    seen: HashSet<(u64, u64)>,
    status: i32,
    failed_write: Option<std::io::Error>,
}

impl<'a, 'b, 'c> Walker<'a, 'b, 'c> {
    fn print(&mut self, bytes: u64, name: &[u8]) {
        if self.failed_write.is_some() {
            return;
        }
        let t = self.o.threshold;
        if (t > 0 && bytes < t as u64) || (t < 0 && bytes > (-t) as u64) {
            return;
        }
        let size = match self.o.human {
            Some(base) => human_size(bytes, base),
            None => ((bytes + self.o.block_size - 1) / self.o.block_size).to_string(),
        };
        let mut line = size.into_bytes();
        line.push(b'\t');
        line.extend_from_slice(name);
        line.push(self.o.eol);
        if let Err(e) = self.io.out(&line) {
            self.failed_write = Some(e);
        }
    }

    fn excluded(&self, path: &Path) -> bool {
        let full = os_bytes(path.as_os_str());
        let base = full.rsplit(|b| *b == b'/').next().unwrap_or(full);
        self.o.exclude.iter().any(|p| fnmatch(p, base, FnFlags::default()) || fnmatch(p, full, FnFlags::default()))
    }

    /// Size of `path` and everything below it (what its parent adds up).
    fn walk(&mut self, path: &Path, depth: usize) -> u64 {
        if depth > 0 && self.excluded(path) {
            return 0;
        }
        let follow = self.o.deref_all || (depth == 0 && self.o.deref_args);
        let meta = match common::fsext::metadata(path, follow) {
            Ok(m) => m,
            Err(e) => {
                self.io.error(format!("cannot access {}: {}", quote(path.as_os_str()), strerror(&e)));
                self.status = 1;
                return 0;
            }
        };
        if !meta.is_dir() && meta.nlink > 1 && !self.seen.insert((meta.dev, meta.ino)) {
            return 0;
        }
        let own = if self.o.apparent { meta.size } else { meta.blocks() * 512 };
        let shown_ok = self.o.max_depth.map_or(true, |m| depth <= m);
        if !meta.is_dir() {
            if depth == 0 || (self.o.all && shown_ok) {
                self.print(own, os_bytes(path.as_os_str()));
            }
            return own;
        }
        let mut sum = own;
        let mut subdirs = 0u64;
        match std::fs::read_dir(path) {
            Ok(rd) => {
                let names: Vec<OsString> = rd.filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
                let base = trim_slashes(os_bytes(path.as_os_str()));
                for name in names {
                    let child = join(&bytes_os(&base), &name);
                    let is_dir = common::fsext::metadata(&child, self.o.deref_all).map_or(false, |m| m.is_dir());
                    let size = self.walk(&child, depth + 1);
                    if is_dir {
                        subdirs += size;
                    }
                    sum += size;
                }
            }
            Err(e) => {
                self.io.error(format!("cannot read directory {}: {}", quote(path.as_os_str()), strerror(&e)));
                self.status = 1;
            }
        }
        let shown = if self.o.separate { sum - subdirs } else { sum };
        if shown_ok {
            self.print(shown, os_bytes(path.as_os_str()));
        }
        sum
    }
}

fn trim_slashes(path: &[u8]) -> Vec<u8> {
    let mut end = path.len();
    while end > 1 && path[end - 1] == b'/' {
        end -= 1;
    }
    path[..end].to_vec()
}
