//! `realpath`: print canonical absolute paths (-e -m -s -L -P -q -z, --relative-to,
//! --relative-base).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::args::{os_bytes, Command};
use common::canon::{canonicalize, relative_to, Missing};
use common::{strerror, Io, UError};

const SPEC: &str = "canonicalize-existing,e canonicalize-missing,m logical,L physical,P quiet,q relative-to: relative-base: strip,s strip=no-symlinks zero,z";

const REALPATH: Command = Command::compact("realpath", SPEC, HELP).operands_between(1, usize::MAX);

const HELP: &str = "Usage: realpath [OPTION]... FILE...
Print the resolved absolute file name;
all but the last component must exist

  -e, --canonicalize-existing  all components of the path must exist
  -m, --canonicalize-missing   no path components need exist or be a directory
  -L, --logical                resolve '..' components before symlinks
  -P, --physical               resolve symlinks as encountered (default)
  -q, --quiet                  suppress most error messages
      --relative-to=DIR        print the resolved path relative to DIR
      --relative-base=DIR      print absolute paths unless paths below DIR
  -s, --strip, --no-symlinks   don't expand symlinks
  -z, --zero                   end each output line with NUL, not newline
{standard}";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = REALPATH.seen(&args, io)?;
    if seen.flag("logical") {
        return Err(UError::new(1, "option not supported in the sandbox: --logical"));
    }
    let missing = match seen.last_of(&["canonicalize-existing", "canonicalize-missing"]) {
        Some("canonicalize-existing") => Missing::Forbid,
        Some(_) => Missing::Allow,
        None => Missing::AllowLast,
    };
    let physical = seen.last_of(&["physical", "strip"]) != Some("strip");
    let (quiet, zero) = (seen.flag("quiet"), seen.flag("zero"));
    let (relative_to_dir, relative_base) = (seen.value("relative-to").cloned(), seen.value("relative-base").cloned());
    let files = seen.operands;
    let resolve_dir = |io: &mut Io, dir: Option<OsString>| -> Result<Option<PathBuf>, ()> {
        match dir {
            None => Ok(None),
            Some(d) => match canonicalize(Path::new(&d), missing, physical) {
                Ok(p) => Ok(Some(p)),
                Err(e) => {
                    io.error(format!("{}: {}", d.to_string_lossy(), strerror(&e)));
                    Err(())
                }
            },
        }
    };
    let to = match resolve_dir(io, relative_to_dir) {
        Ok(p) => p,
        Err(()) => return Ok(1),
    };
    let mut base = match resolve_dir(io, relative_base) {
        Ok(p) => p,
        Err(()) => return Ok(1),
    };
    // --relative-to outside --relative-base prints absolute paths (GNU).
    let to = match (&to, &base) {
        (Some(t), Some(b)) if !t.starts_with(b) => {
            base = None;
            None
        }
        _ => to,
    };
    let mut status = 0;
    for file in files {
        match canonicalize(Path::new(&file), missing, physical) {
            Ok(path) => {
                let shown = match (&to, &base) {
                    (Some(t), Some(b)) if path.starts_with(b) => relative_to(&path, t),
                    (Some(t), None) => relative_to(&path, t),
                    (None, Some(b)) if path.starts_with(b) => relative_to(&path, b),
                    _ => path,
                };
                let mut out = os_bytes(shown.as_os_str()).to_vec();
                out.push(if zero { 0 } else { b'\n' });
                if let Err(e) = io.out(&out) {
                    return Ok(common::write::write_failed(io, &e));
                }
            }
            Err(e) => {
                if !quiet {
                    io.error(format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                }
                status = 1;
            }
        }
    }
    Ok(status)
}
