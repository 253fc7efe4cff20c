//! `readlink`: print a symlink's target, or with -f/-e/-m the canonical path.

use std::ffi::OsString;
use std::path::Path;

use common::args::{os_bytes, Command};
use common::canon::{canonicalize, Missing};
use common::{strerror, Io, UError};

const SPEC: &str = "canonicalize,f canonicalize-existing,e canonicalize-missing,m no-newline,n quiet,q quiet=s,silent verbose,v zero,z";

const READLINK: Command = Command::compact("readlink", SPEC, HELP).operands_between(1, usize::MAX);

const HELP: &str = "Usage: readlink [OPTION]... FILE...
Print value of a symbolic link or canonical file name

  -f, --canonicalize            canonicalize by following every symlink in
                                every component of the given name recursively;
                                all but the last component must exist
  -e, --canonicalize-existing   canonicalize by following every symlink in
                                every component of the given name recursively,
                                all components must exist
  -m, --canonicalize-missing    canonicalize by following every symlink in
                                every component of the given name recursively,
                                without requirements on components existence
  -n, --no-newline              do not output the trailing delimiter
  -q, --quiet
  -s, --silent                  suppress most error messages (on by default)
  -v, --verbose                 report error messages
  -z, --zero                    end each output line with NUL, not newline
{standard}";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = READLINK.seen(&args, io)?;
    let mode = seen.last_of(&["canonicalize", "canonicalize-existing", "canonicalize-missing"]).map(|id| match id {
        "canonicalize" => Missing::AllowLast,
        "canonicalize-existing" => Missing::Forbid,
        _ => Missing::Allow,
    });
    let (mut no_newline, verbose, zero) = (seen.flag("no-newline"), seen.last_of(&["quiet", "verbose"]) == Some("verbose"), seen.flag("zero"));
    let files = seen.operands;
    if no_newline && files.len() > 1 {
        io.error("ignoring --no-newline with multiple arguments");
        no_newline = false;
    }
    let mut status = 0;
    for file in files {
        let path = Path::new(&file);
        let result = match mode {
            Some(m) => canonicalize(path, m, true),
            None => std::fs::read_link(path),
        };
        match result {
            Ok(target) => {
                let mut out = os_bytes(target.as_os_str()).to_vec();
                if !no_newline {
                    out.push(if zero { 0 } else { b'\n' });
                }
                if let Err(e) = io.out(&out) {
                    return Ok(common::write::write_failed(io, &e));
                }
            }
            Err(e) => {
                if verbose {
                    io.error(format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                }
                status = 1;
            }
        }
    }
    Ok(status)
}
