//! `dirname`: each NAME without its last component (`.` when there is none); `-z` ends
//! lines with NUL.

use std::ffi::OsString;

use common::args::os_bytes;
use common::{Command, Io, UError};

const SPEC: &str = "zero,z";

const HELP: &str = "Usage: {name} [OPTION] NAME...\nOutput each NAME with its last non-slash component and trailing slashes\nremoved; if NAME contains no /'s, output '.' (meaning the current directory).\n\n  -z, --zero     end each output line with NUL, not newline\n{standard}";

const DIRNAME: Command = Command::compact("dirname", SPEC, HELP).operands_between(1, usize::MAX);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut terminator = b'\n';
    let names = DIRNAME.operands(&args, io, &mut |_, _zero, _| {
        terminator = 0;
        Ok(())
    })?;
    let mut out = Vec::new();
    for name in &names {
        out.extend_from_slice(dir_name(os_bytes(name)));
        out.push(terminator);
    }
    let _ = io.out(&out);
    Ok(0)
}

/// gnulib's dir_name: drop trailing slashes, the last component, then the slashes before it.
fn dir_name(path: &[u8]) -> &[u8] {
    let absolute = path.first() == Some(&b'/');
    let mut end = path.len();
    while end > 0 && path[end - 1] == b'/' {
        end -= 1;
    }
    while end > 0 && path[end - 1] != b'/' {
        end -= 1;
    }
    while end > 0 && path[end - 1] == b'/' {
        end -= 1;
    }
    if end == 0 {
        return if absolute { b"/" } else { b"." };
    }
    &path[..end]
}
