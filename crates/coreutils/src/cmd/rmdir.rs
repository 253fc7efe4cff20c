//! `rmdir`: remove empty directories (-p parents, --ignore-fail-on-non-empty, -v).

use std::ffi::OsString;
use std::io;
use std::path::Path;

use common::args::{bytes_os, os_bytes, Command};
use common::io::quote;
use common::{strerror, Io, UError};

const SPEC: &str = "ignore=ignore-fail-on-non-empty parents,p verbose,v";

const RMDIR: Command = Command::compact("rmdir", SPEC, HELP).operands_between(1, usize::MAX);

const HELP: &str = "Usage: rmdir [OPTION]... DIRECTORY...
Remove the DIRECTORY(ies), if they are empty.

      --ignore-fail-on-non-empty
                    ignore each failure to remove a non-empty directory
  -p, --parents     remove DIRECTORY and its ancestors; e.g., 'rmdir -p a/b'
                    is similar to 'rmdir a/b a'
  -v, --verbose     output a diagnostic for every directory processed
{standard}";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = RMDIR.seen(&args, io)?;
    let (ignore, parents, verbose) = (seen.flag("ignore"), seen.flag("parents"), seen.flag("verbose"));
    let dirs = seen.operands;
    let mut status = 0;
    for dir in dirs {
        match remove(io, &dir, ignore, verbose) {
            Some(true) => {}
            Some(false) => continue,
            None => {
                status = 1;
                continue;
            }
        }
        if parents {
            let mut bytes = os_bytes(&dir).to_vec();
            loop {
                while bytes.last() == Some(&b'/') && bytes.len() > 1 {
                    bytes.pop();
                }
                match bytes.iter().rposition(|b| *b == b'/') {
                    Some(0) | None => break,
                    Some(i) => bytes.truncate(i),
                }
                while bytes.last() == Some(&b'/') && bytes.len() > 1 {
                    bytes.pop();
                }
                match remove(io, &bytes_os(&bytes), ignore, verbose) {
                    Some(true) => {}
                    Some(false) => break,
                    None => {
                        status = 1;
                        break;
                    }
                }
            }
        }
    }
    Ok(status)
}

fn not_empty(e: &io::Error) -> bool {
    let code = e.raw_os_error().unwrap_or(0);
    code == airlock_sys::errno::os::NOTEMPTY || code == airlock_sys::errno::os::EXIST
}

/// Removes one directory: Some(true) removed, Some(false) not empty and ignored (which
/// still stops -p), None failed.
fn remove(io: &mut Io, dir: &OsString, ignore: bool, verbose: bool) -> Option<bool> {
    if verbose {
        let _ = io.out(format!("{}: removing directory, {}\n", io.name, quote(dir)).as_bytes());
    }
    match std::fs::remove_dir(Path::new(dir)) {
        Ok(()) => Some(true),
        Err(e) => {
            if ignore && not_empty(&e) {
                return Some(false);
            }
            let is_file = common::fsext::metadata(Path::new(dir), true).map_or(false, |m| !m.is_dir());
            let reason = if is_file { strerror(&io::Error::from_raw_os_error(airlock_sys::errno::os::NOTDIR)) } else { strerror(&e) };
            io.error(format!("failed to remove {}: {}", quote(dir), reason));
            None
        }
    }
}
