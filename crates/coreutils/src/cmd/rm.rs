//! `rm`: remove files and directories (-f -r/-R -d -v, --preserve-root). Interactive
//! prompts (-i, -I) are refused: the sandbox has no terminal to answer them.

use std::ffi::OsString;
use std::path::Path;

use common::args::{os_bytes, Command};
use common::io::quote;
use common::targets::{base_name, join};
use common::{strerror, Io, UError};

const SPEC: &str = "dir,d force,f interactive=i interactive-once=I interactive-when=interactive:: one-file-system no-preserve-root preserve-root:: recursive,r recursive=R verbose,v";

const RM: Command = Command::compact("rm", SPEC, HELP);

const HELP: &str = "Usage: rm [OPTION]... [FILE]...
Remove (unlink) the FILE(s).

  -f, --force           ignore nonexistent files and arguments, never prompt
  -i                    prompt before every removal (not available in the sandbox)
  -I                    prompt once before removing more than three files, or
                          when removing recursively (not available in the sandbox)
      --one-file-system  accepted; the sandbox has one file system
      --no-preserve-root  do not treat '/' specially
      --preserve-root   do not remove '/' (default)
  -r, -R, --recursive   remove directories and their contents recursively
  -d, --dir             remove empty directories
  -v, --verbose         explain what is being done
{standard}";

struct Options {
    force: bool,
    recursive: bool,
    dir: bool,
    verbose: bool,
    preserve_root: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = RM.seen(&args, io)?;
    let prompts = seen.opts.iter().any(|(id, value)| match *id {
        "interactive-when" => !value.as_ref().map_or(false, |v| v == "never" || v == "no" || v == "none"),
        id => id == "interactive" || id == "interactive-once",
    });
    if prompts {
        return Err(UError::new(1, "interactive removal is not supported in the sandbox (there is no terminal to answer prompts); use -f, or remove the files one by one"));
    }
    let [dir, force, recursive, verbose] = ["dir", "force", "recursive", "verbose"].map(|id| seen.flag(id));
    let o = Options { force, recursive, dir, verbose, preserve_root: seen.last_of(&["preserve-root", "no-preserve-root"]) != Some("no-preserve-root") };
    let files = seen.operands;
    if files.is_empty() {
        if o.force {
            return Ok(0);
        }
        return Err(UError::usage(1, "missing operand"));
    }
    let mut status = 0;
    for file in files {
        let base = base_name(&file);
        if base == "." || base == ".." {
            io.error(format!("refusing to remove '.' or '..' directory: skipping {}", quote(&file)));
            status = 1;
            continue;
        }
        if o.recursive && o.preserve_root && is_root(&file) {
            if os_bytes(&file) == b"/" {
                io.error("it is dangerous to operate recursively on '/'");
            } else {
                io.error(format!("it is dangerous to operate recursively on {} (same as '/')", quote(&file)));
            }
            io.error("use --no-preserve-root to override this failsafe");
            status = 1;
            continue;
        }
        if !remove(io, Path::new(&file), &o) {
            status = 1;
        }
    }
    Ok(status)
}

fn is_root(path: &OsString) -> bool {
    common::canon::canonicalize(Path::new(path), common::canon::Missing::Forbid, true).map_or(false, |p| p.as_os_str() == "/")
}

/// Removes `path` (recursively with -r); false when anything failed (already reported).
fn remove(io: &mut Io, path: &Path, o: &Options) -> bool {
    let shown = path.as_os_str();
    let meta = match common::fsext::metadata(path, false) {
        Ok(m) => m,
        Err(e) => {
            if o.force && e.kind() == std::io::ErrorKind::NotFound {
                return true;
            }
            io.error(format!("cannot remove {}: {}", quote(shown), strerror(&e)));
            return false;
        }
    };
    if meta.is_dir() {
        if !o.recursive {
            if !o.dir {
                io.error(format!("cannot remove {}: Is a directory", quote(shown)));
                return false;
            }
        } else {
            let entries = match std::fs::read_dir(path) {
                Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.file_name()).collect::<Vec<_>>(),
                Err(e) => {
                    io.error(format!("cannot remove {}: {}", quote(shown), strerror(&e)));
                    return false;
                }
            };
            let mut ok = true;
            for name in entries {
                if !remove(io, &join(shown, &name), o) {
                    ok = false;
                }
            }
            // A directory whose contents could not all be removed is left quietly (GNU).
            if !ok {
                return false;
            }
        }
        return match std::fs::remove_dir(path) {
            Ok(()) => {
                if o.verbose {
                    let _ = io.out(format!("removed directory {}\n", quote(shown)).as_bytes());
                }
                true
            }
            Err(e) => {
                io.error(format!("cannot remove {}: {}", quote(shown), strerror(&e)));
                false
            }
        };
    }
    match std::fs::remove_file(path) {
        Ok(()) => {
            if o.verbose {
                let _ = io.out(format!("removed {}\n", quote(shown)).as_bytes());
            }
            true
        }
        Err(e) => {
            io.error(format!("cannot remove {}: {}", quote(shown), strerror(&e)));
            false
        }
    }
}
