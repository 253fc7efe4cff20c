//! `install`: copy files and set their mode (-m, default 0755), or make directories (-d);
//! -D makes the destination's leading directories, -t/-T as cp, -p keeps times, -C skips
//! identical files, -v reports.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::args::Command;
use common::fsops::{set_times, SetTime};
use common::io::quote;
use common::modes::ModeChange;
use common::timefmt::split_ns;
use common::{strerror, Io, UError};

use crate::registry::cmd_cp::dest::{self, Plan};

const SPEC: &str = "backup:: backup=b c compare,C directory,d D group,g: mode,m: owner,o: preserve-timestamps,p strip,s strip-program: suffix,S: target-directory,t: no-target-directory,T verbose,v";

const INSTALL: Command = Command::compact("install", SPEC, HELP);

const HELP: &str = "Usage: install [OPTION]... [-T] SOURCE DEST
  or:  install [OPTION]... SOURCE... DIRECTORY
  or:  install [OPTION]... -t DIRECTORY SOURCE...
  or:  install [OPTION]... -d DIRECTORY...

This install program copies files (often just compiled) into destination
locations you choose.

  -c                  (ignored)
  -C, --compare       compare content of source and destination files, and
                        if no change to the destination, do not modify
                        the destination at all
  -d, --directory     treat all arguments as directory names; create all
                        components of the specified directories
  -D                  create all leading components of DEST except the last,
                        or all components of --target-directory,
                        then copy SOURCE to DEST
  -m, --mode=MODE     set permission mode (as in chmod), instead of rwxr-xr-x
  -p, --preserve-timestamps   apply access/modification times of SOURCE files
                        to corresponding destination files
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY
  -T, --no-target-directory  treat DEST as a normal file
  -v, --verbose       print the name of each created file or directory
{standard}";

struct Options {
    mode: u32,
    compare: bool,
    preserve_times: bool,
    verbose: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut seen = INSTALL.seen(&args, io)?;
    let plan = Plan::from_seen(&mut seen, false, &["c", "compare", "directory", "D", "mode", "preserve-timestamps", "verbose"])?;
    // As GNU's install, the mode (the last -m) is read after the options.
    let mode = match seen.value("mode").map(|v| v.to_string_lossy().into_owned()) {
        Some(text) => ModeChange::parse(&text).ok_or_else(|| UError::new(1, format!("invalid mode {}", quote(text.as_ref()))))?.apply(0, false, 0),
        None => 0o755,
    };
    let [compare, directories, leading, preserve_times, verbose] = ["compare", "directory", "D", "preserve-timestamps", "verbose"].map(|id| seen.flag(id));
    let o = Options { mode, compare, preserve_times, verbose };
    if directories {
        if plan.operands.is_empty() {
            return Err(UError::usage(1, "missing file operand"));
        }
        let mut status = 0;
        for dir in plan.operands {
            let path = PathBuf::from(&dir);
            match make_dirs(io, &path, o.verbose) {
                Ok(()) => {
                    if let Err(e) = common::fsext::set_mode(&path, o.mode) {
                        io.error(format!("cannot change permissions of {}: {}", quote(&dir), strerror(&e)));
                        status = 1;
                    }
                }
                Err(e) => {
                    io.error(format!("cannot create directory {}: {}", quote(&dir), strerror(&e)));
                    status = 1;
                }
            }
        }
        return Ok(status);
    }
    if leading {
        let dir: Option<PathBuf> = match (&plan.target_dir, plan.operands.len()) {
            (Some(t), _) => Some(PathBuf::from(t)),
            (None, n) if n >= 2 => plan.operands.last().map(|d| Path::new(d).parent().map(Path::to_path_buf).unwrap_or_default()),
            _ => None,
        };
        if let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            if let Err(e) = make_dirs(io, &d, o.verbose) {
                return Err(UError::new(1, format!("cannot create directory {}: {}", quote(d.as_os_str()), strerror(&e))));
            }
        }
    }
    if plan.operands.len() == 1 && plan.target_dir.is_none() {
        return Err(UError::usage(1, format!("missing destination file operand after {}", quote(&plan.operands[0]))));
    }
    plan.run(io, &mut |io, src, dst| install_file(io, Path::new(src), dst, &o))
}

/// mkdir -p with install's messages and 0755 for the parents.
fn make_dirs(io: &mut Io, path: &Path, verbose: bool) -> std::io::Result<()> {
    let mut prefixes: Vec<&Path> = path.ancestors().filter(|p| !p.as_os_str().is_empty()).collect();
    prefixes.reverse();
    for prefix in prefixes {
        if common::fsext::metadata(prefix, true).map_or(false, |m| m.is_dir()) {
            continue;
        }
        match std::fs::create_dir(prefix) {
            Ok(()) => {
                let _ = common::fsext::set_mode(prefix, 0o755);
                if verbose {
                    let _ = io.out(format!("{}: creating directory {}\n", io.name, quote(prefix.as_os_str())).as_bytes());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && common::fsext::metadata(prefix, true).map_or(false, |m| m.is_dir()) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn same_contents(a: &Path, b: &Path) -> bool {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn install_file(io: &mut Io, src: &Path, dst: &Path, o: &Options) -> bool {
    let meta = match common::fsext::metadata(src, true) {
        Ok(m) => m,
        Err(e) => {
            io.error(format!("cannot stat {}: {}", quote(src.as_os_str()), strerror(&e)));
            return false;
        }
    };
    if meta.is_dir() {
        io.error(format!("omitting directory {}", quote(src.as_os_str())));
        return false;
    }
    if let Ok(d) = common::fsext::metadata(dst, true) {
        if dest::same_file(&d, &meta) {
            return dest::refuse_same(io, src.as_os_str(), dst.as_os_str());
        }
        if o.compare && d.permissions() == o.mode && d.is_file() && same_contents(src, dst) {
            return true;
        }
        // install replaces the destination rather than writing into it.
        if !d.is_dir() {
            let _ = std::fs::remove_file(dst);
        }
    }
    if let Err(e) = common::fsops::copy_data(src, dst, 0o600) {
        io.error(format!("cannot create regular file {}: {}", quote(dst.as_os_str()), strerror(&e)));
        return false;
    }
    if let Err(e) = common::fsext::set_mode(dst, o.mode) {
        io.error(format!("cannot change permissions of {}: {}", quote(dst.as_os_str()), strerror(&e)));
        return false;
    }
    if o.preserve_times {
        let (a, an) = split_ns(meta.atime_ns);
        let (m, mn) = split_ns(meta.mtime_ns);
        let _ = set_times(dst, SetTime::At(a, an), SetTime::At(m, mn), true);
    }
    if o.verbose {
        dest::arrow(io, src.as_os_str(), dst.as_os_str());
    }
    true
}
