//! `mv`: move (rename) files (-f -n -u -v -T -t). `-i` is refused: the sandbox has no
//! terminal to answer prompts.

use std::ffi::OsString;
use std::path::Path;

use common::args::Command;
use common::canon::{canonicalize, Missing};
use common::io::quote;
use common::targets::plan;
use common::{strerror, HasArg, Io, OptSpec, Parsed, UError};

const SPEC: &[OptSpec] = &[
    OptSpec::long("backup", "backup", HasArg::Optional),
    OptSpec::short("backup", 'b', HasArg::No),
    OptSpec::flag("force", 'f', "force"),
    OptSpec::flag("interactive", 'i', "interactive"),
    OptSpec::flag("no-clobber", 'n', "no-clobber"),
    OptSpec::long("strip-trailing-slashes", "strip-trailing-slashes", HasArg::No),
    OptSpec::both("suffix", 'S', "suffix", HasArg::Required),
    OptSpec::both("target-directory", 't', "target-directory", HasArg::Required),
    OptSpec::flag("no-target-directory", 'T', "no-target-directory"),
    OptSpec::flag("update", 'u', "update"),
    OptSpec::flag("verbose", 'v', "verbose"),
    OptSpec::short("context", 'Z', HasArg::No),
];

const MV: Command = Command::new("mv", SPEC, HELP);

const HELP: &str = "Usage: mv [OPTION]... [-T] SOURCE DEST
  or:  mv [OPTION]... SOURCE... DIRECTORY
  or:  mv [OPTION]... -t DIRECTORY SOURCE...
Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.

  -f, --force                  do not prompt before overwriting
  -n, --no-clobber             do not overwrite an existing file
      --strip-trailing-slashes  remove any trailing slashes from each SOURCE
                                 argument
  -t, --target-directory=DIRECTORY  move all SOURCE arguments into DIRECTORY
  -T, --no-target-directory    treat DEST as a normal file
  -u, --update                 move only when the SOURCE file is newer
                                 than the destination file or when the
                                 destination file is missing
  -v, --verbose                explain what is being done
      --help        display this help and exit
      --version     output version information and exit
";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut no_clobber, mut update, mut verbose, mut no_target) = (false, false, false, false);
    let mut target_dir = None;
    let mut operands = Vec::new();
    MV.options(&args, io, &mut |io, p| {
        match p {
            Parsed::Opt { id: "force", .. } => no_clobber = false,
            Parsed::Opt { id: "no-clobber", .. } => no_clobber = true,
            Parsed::Opt { id: "update", .. } => update = true,
            Parsed::Opt { id: "verbose", .. } => verbose = true,
            Parsed::Opt { id: "no-target-directory", .. } => no_target = true,
            Parsed::Opt { id: "target-directory", value } => target_dir = value,
            Parsed::Opt { id: "strip-trailing-slashes", .. } => {}
            Parsed::Opt { id: "interactive", .. } => {
                return Err(UError::new(1, "option not supported in the sandbox: --interactive (there is no terminal to answer prompts; use -f or -n)"));
            }
            Parsed::Opt { id: "help", .. } => {
                let _ = io.out(HELP.as_bytes());
                return Err(UError::exit(0));
            }
            Parsed::Opt { id: "version", .. } => {
                let _ = io.out(common::version_text("mv").as_bytes());
                return Err(UError::exit(0));
            }
            Parsed::Opt { id, .. } => {
                return Err(UError::new(1, format!("option not supported in the sandbox: --{}", id)));
            }
            Parsed::Operand(o) => operands.push(o),
        }
        Ok(())
    })?;
    let pairs = match plan(operands, target_dir, no_target, false) {
        Ok(p) => p,
        Err(e) => {
            io.error(&e.message);
            if e.usage {
                io.try_help();
            }
            return Ok(1);
        }
    };
    let mut status = 0;
    for (src, dst) in pairs {
        if !move_one(io, &src, &dst, no_clobber, update, verbose) {
            status = 1;
        }
    }
    Ok(status)
}

fn move_one(io: &mut Io, src: &OsString, dst: &Path, no_clobber: bool, update: bool, verbose: bool) -> bool {
    let dst_os = dst.as_os_str();
    let src_meta = match common::fsext::metadata(Path::new(src), false) {
        Ok(m) => m,
        Err(e) => {
            io.error(format!("cannot stat {}: {}", quote(src), strerror(&e)));
            return false;
        }
    };
    if let Ok(dst_meta) = common::fsext::metadata(dst, false) {
        if dst_meta.ino == src_meta.ino && dst_meta.dev == src_meta.dev {
            io.error(format!("{} and {} are the same file", quote(src), quote(dst_os)));
            return false;
        }
        if no_clobber || (update && dst_meta.mtime_ns >= src_meta.mtime_ns) {
            return true;
        }
        if src_meta.is_dir() && !dst_meta.is_dir() {
            io.error(format!("cannot overwrite non-directory {} with directory {}", quote(dst_os), quote(src)));
            return false;
        }
        if !src_meta.is_dir() && dst_meta.is_dir() {
            io.error(format!("cannot overwrite directory {} with non-directory", quote(dst_os)));
            return false;
        }
    }
    if src_meta.is_dir() {
        if let (Ok(s), Ok(d)) = (canonicalize(Path::new(src), Missing::Allow, true), canonicalize(dst, Missing::Allow, true)) {
            if d != s && d.starts_with(&s) {
                io.error(format!("cannot move {} to a subdirectory of itself, {}", quote(src), quote(dst_os)));
                return false;
            }
        }
    }
    match std::fs::rename(src, dst) {
        Ok(()) => {
            if verbose {
                let _ = io.out(format!("renamed {} -> {}\n", quote(src), quote(dst_os)).as_bytes());
            }
            true
        }
        Err(e) => {
            io.error(format!("cannot move {} to {}: {}", quote(src), quote(dst_os), strerror(&e)));
            false
        }
    }
}
