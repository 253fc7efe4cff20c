//! `pwd` as a program (`env pwd`, `xargs pwd`, `find -exec pwd`): prints the working
//! directory. Like GNU's binary it defaults to -P (symlinks resolved); -L prints $PWD when
//! that names the working directory and has no `.` or `..` components.

use std::ffi::OsString;
use std::path::Path;

use common::args::{os_bytes, parse, HasArg, Order, Parsed};
use common::{strerror, Io, OptSpec};

const SPEC: &[OptSpec] = &[
    OptSpec::both("logical", 'L', "logical", HasArg::No),
    OptSpec::both("physical", 'P', "physical", HasArg::No),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::long("version", "version", HasArg::No),
];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 1),
    };
    let mut logical = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut operands = false;
    for item in parsed {
        match item {
            Parsed::Opt { id: "logical", .. } => logical = true,
            Parsed::Opt { id: "physical", .. } => logical = false,
            Parsed::Opt { id: "help", .. } => {
                let text = format!("Usage: {} [OPTION]...\nPrint the full filename of the current working directory.\n\n  -L, --logical   use PWD from environment, even if it contains symlinks\n  -P, --physical  avoid all symlinks\n      --help        display this help and exit\n      --version     output version information and exit\n\nIf no option is specified, -P is assumed.\n", io.name);
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text("pwd").as_bytes());
                return 0;
            }
            Parsed::Operand(_) => operands = true,
        }
    }
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
                io.error(format!("error reading current directory: {}", strerror(&e)));
                return 1;
            }
        },
    };
    let mut line = os_bytes(&dir).to_vec();
    line.push(b'\n');
    if io.out(&line).is_err() {
        return 1;
    }
    0
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
