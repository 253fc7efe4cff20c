//! `mv`: move (rename) files (-f -n -u -v -T -t). `-i` is refused: the sandbox has no
//! terminal to answer prompts.

use std::ffi::OsString;
use std::path::Path;

use common::args::Command;
use common::canon::{canonicalize, Missing};
use common::io::quote;
use common::{strerror, Io, UError};

use crate::registry::cmd_cp::dest::{self, Plan};

const SPEC: &str = "backup:: backup=b force,f interactive,i no-clobber,n strip-trailing-slashes suffix,S: target-directory,t: no-target-directory,T update,u verbose,v context=Z";

const MV: Command = Command::compact("mv", SPEC, HELP);

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
{standard}";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut seen = MV.seen(&args, io)?;
    let plan = Plan::from_seen(&mut seen, false, &["force", "no-clobber", "update", "verbose", "strip-trailing-slashes"])?;
    let no_clobber = seen.last_of(&["force", "no-clobber"]) == Some("no-clobber");
    let (update, verbose) = (seen.flag("update"), seen.flag("verbose"));
    plan.run(io, &mut |io, src, dst| move_one(io, src, dst, no_clobber, update, verbose))
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
        if dest::same_file(&dst_meta, &src_meta) {
            return dest::refuse_same(io, src, dst_os);
        }
        if dest::keep_existing(no_clobber, update, &src_meta, &dst_meta) {
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
