//! `ln`: make links (-s symbolic, -f force, -n no-dereference, -v, -r relative, -T, -t).
//! The sandbox has no hard links: link(2) fails there and `ln` reports it as GNU does.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::args::Command;
use common::canon::{canonicalize, relative_to, Missing};
use common::io::quote;
use common::{strerror, Io, UError};

use crate::registry::cmd_cp::dest::{self, Plan};

const SPEC: &str = "backup:: backup=b directory,d directory=F force,f interactive,i logical,L no-dereference,n physical,P relative,r symbolic,s suffix,S: target-directory,t: no-target-directory,T verbose,v";

const LN: Command = Command::compact("ln", SPEC, HELP);

const HELP: &str = "Usage: ln [OPTION]... [-T] TARGET LINK_NAME
  or:  ln [OPTION]... TARGET
  or:  ln [OPTION]... TARGET... DIRECTORY
  or:  ln [OPTION]... -t DIRECTORY TARGET...
In the 1st form, create a link to TARGET with the name LINK_NAME.
In the 2nd form, create a link to TARGET in the current directory.
In the 3rd and 4th forms, create links to each TARGET in DIRECTORY.
Create hard links by default, symbolic links with --symbolic.
(Hard links are not available in the sandbox.)

  -f, --force                 remove existing destination files
  -n, --no-dereference        treat LINK_NAME as a normal file if
                                it is a symbolic link to a directory
  -r, --relative              with -s, create links relative to link location
  -s, --symbolic              make symbolic links instead of hard links
  -t, --target-directory=DIRECTORY  specify the DIRECTORY in which to create
                                the links
  -T, --no-target-directory   treat LINK_NAME as a normal file always
  -v, --verbose               print name of each linked file
{standard}";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    const IMPLEMENTED: [&str; 7] = ["force", "no-dereference", "relative", "symbolic", "verbose", "logical", "physical"];
    let mut seen = LN.seen(&args, io)?;
    let mut plan = Plan::from_seen(&mut seen, true, &IMPLEMENTED)?;
    let [force, no_deref, relative, symbolic, verbose] = ["force", "no-dereference", "relative", "symbolic", "verbose"].map(|id| seen.flag(id));
    if relative && !symbolic {
        return Err(UError::new(1, "cannot do --relative without --symbolic"));
    }
    // With -n, a symlink to a directory as the last of two operands is replaced, not entered.
    if no_deref && plan.target_dir.is_none() && plan.operands.len() == 2 {
        if common::fsext::metadata(Path::new(&plan.operands[1]), false).map_or(false, |m| m.is_symlink()) {
            plan.no_target = true;
        }
    }
    plan.run(io, &mut |io, target, link| link_one(io, target, link, symbolic, force, relative, verbose))
}

fn link_one(io: &mut Io, target: &OsString, link: &Path, symbolic: bool, force: bool, relative: bool, verbose: bool) -> bool {
    let link_os = link.as_os_str();
    if !symbolic {
        if let Err(e) = common::fsext::metadata(Path::new(target), true) {
            io.error(format!("failed to access {}: {}", quote(target), strerror(&e)));
            return false;
        }
    }
    let target_path: PathBuf = if relative { relative_target(Path::new(target), link) } else { PathBuf::from(target) };
    let existing = common::fsext::metadata(link, false).ok();
    if let Some(meta) = existing {
        if !symbolic && common::fsext::metadata(Path::new(target), true).map_or(false, |t| dest::same_file(&t, &meta)) {
            return dest::refuse_same(io, target, link_os);
        }
        if force {
            if meta.is_dir() {
                io.error(format!("{}: cannot overwrite directory", quote(link_os)));
                return false;
            }
            if let Err(e) = std::fs::remove_file(link) {
                io.error(format!("cannot remove {}: {}", quote(link_os), strerror(&e)));
                return false;
            }
        }
    }
    let result = if symbolic { common::fsops::symlink(&target_path, link) } else { std::fs::hard_link(target, link) };
    match result {
        Ok(()) => {
            if verbose {
                dest::arrow(io, link_os, target_path.as_os_str());
            }
            true
        }
        Err(e) => {
            if symbolic {
                io.error(format!("failed to create symbolic link {}: {}", quote(link_os), strerror(&e)));
            } else if e.kind() == std::io::ErrorKind::AlreadyExists {
                io.error(format!("failed to create hard link {}: {}", quote(link_os), strerror(&e)));
            } else {
                io.error(format!("failed to create hard link {} => {}: {}", quote(link_os), quote(target), strerror(&e)));
            }
            false
        }
    }
}

/// The target as seen from the link's directory (`ln -sr`).
fn relative_target(target: &Path, link: &Path) -> PathBuf {
    let parent = match link.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match (canonicalize(target, Missing::Allow, true), canonicalize(&parent, Missing::Allow, true)) {
        (Ok(t), Ok(d)) => relative_to(&t, &d),
        _ => target.to_path_buf(),
    }
}
