//! `which` (Debian's): prints where each name is found on $PATH (`-a`: every match); a
//! name with a `/` is checked as given. Status 0 when all were found, 1 otherwise (or with
//! no names), 2 for a bad option.

use std::ffi::OsString;
use std::path::Path;

use common::args::{bytes_os, os_bytes, ArgError, Order, UsageError};
use common::fsext;
use common::identity::{self, EXECUTE};
use common::{Command, Io, UError};

/// A shell script's getopts: only leading options (`--` ends them), `-a` alone, no --help.
const WHICH: Command = Command { standard: "", order: Order::RequireOrder, usage_error: Some(UsageError(usage_error)), ..Command::compact("which", "a", "") };

fn usage_error(io: &mut Io, error: ArgError) -> UError {
    let letter = match error {
        ArgError::InvalidShort(c) => c,
        _ => '-',
    };
    let _ = writeln!(io.stderr, "{}: Illegal option -{}", io.name, letter);
    // The script prints its $0: its full path when found on PATH.
    let _ = io.out(b"Usage: /usr/bin/which [-a] args\n");
    UError::exit(2)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut all = false;
    let names = WHICH.operands(&args, io, &mut |_, _a, _| {
        all = true;
        Ok(())
    })?;
    let mut status = if names.is_empty() { 1 } else { 0 };
    let path = std::env::var_os("PATH").map(|p| os_bytes(&p).to_vec()).unwrap_or_default();
    let mut elements: Vec<&[u8]> = path.split(|b| *b == b':').collect();
    // Field splitting drops one trailing empty field (the script re-adds it for `a:`).
    if path.ends_with(b":") && !path.ends_with(b"::") {
        // `a:` -> the script appends `:`, so one empty element (meaning `.`) remains.
    } else if path.ends_with(b":") || path.is_empty() {
        elements.pop();
    }
    let ids = identity::current();
    let mut out = Vec::new();
    for name in &names {
        let name = os_bytes(name);
        let mut found = false;
        if name.contains(&b'/') {
            if is_executable_file(name, &ids) {
                out.extend_from_slice(name);
                out.push(b'\n');
                found = true;
            }
        } else {
            for element in &elements {
                let dir: &[u8] = if element.is_empty() { b"." } else { element };
                let mut candidate = dir.to_vec();
                candidate.push(b'/');
                candidate.extend_from_slice(name);
                if is_executable_file(&candidate, &ids) {
                    out.extend_from_slice(&candidate);
                    out.push(b'\n');
                    found = true;
                    if !all {
                        break;
                    }
                }
            }
        }
        if !found {
            status = 1;
        }
    }
    let _ = io.out(&out);
    Ok(status)
}

fn is_executable_file(path: &[u8], ids: &identity::Ids) -> bool {
    match fsext::metadata(Path::new(&bytes_os(path)), true) {
        Ok(meta) => meta.is_file() && identity::can_access(&meta, ids, EXECUTE),
        Err(_) => false,
    }
}
