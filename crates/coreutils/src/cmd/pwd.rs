//! `pwd` as a program (`env pwd`, `xargs pwd`, `find -exec pwd`): prints the working
//! directory. Like GNU's binary it defaults to -P (symlinks resolved); -L prints $PWD when
//! that names the working directory and has no `.` or `..` components.

use std::ffi::OsString;
use std::path::Path;

use common::args::{os_bytes, Parsed};
use common::{strerror, Command, Io, UError};

const SPEC: &str = "logical,L physical,P";

const HELP: &str = "Usage: {name} [OPTION]...\nPrint the full filename of the current working directory.\n\n  -L, --logical   use PWD from environment, even if it contains symlinks\n  -P, --physical  avoid all symlinks\n{standard}\nIf no option is specified, -P is assumed.\n";

const PWD: Command = Command::compact("pwd", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut logical = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut operands = false;
    PWD.options(&args, io, &mut |_, p| {
        match p {
            Parsed::Opt { id: "logical", .. } => logical = true,
            Parsed::Opt { id: "physical", .. } => logical = false,
            Parsed::Opt { .. } => {}
            Parsed::Operand(_) => operands = true,
        }
        Ok(())
    })?;
    if operands {
        io.error("ignoring non-option arguments");
    }
    let logical_dir = if logical { std::env::var_os("PWD").filter(|p| names_cwd(Path::new(p))) } else { None };
    let dir = match logical_dir {
        Some(d) => d,
        // On WASI the working directory is kept as the path it was entered by, so resolve it.
        None => match std::env::current_dir().and_then(|d| common::canon::canonicalize(&d, common::canon::Missing::Forbid, true)) {
            Ok(d) => d.into_os_string(),
            Err(e) => {
                return Err(UError::new(1, format!("error reading current directory: {}", strerror(&e))));
            }
        },
    };
    let mut line = os_bytes(&dir).to_vec();
    line.push(b'\n');
    if io.out(&line).is_err() {
        return Ok(1);
    }
    Ok(0)
}

/// Whether `path` is absolute, free of `.`/`..` components, and the same directory as `.`.
fn names_cwd(path: &Path) -> bool {
    let bytes = os_bytes(path.as_os_str());
    if bytes.first() != Some(&b'/') || bytes.split(|&b| b == b'/').any(|c| c == b"." || c == b"..") {
        return false;
    }
    match (common::fsext::metadata(path, true), common::fsext::metadata(Path::new("."), true)) {
        (Ok(a), Ok(b)) => a.ino == b.ino && a.dev == b.dev,
        _ => false,
    }
}
