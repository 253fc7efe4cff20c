//! `dirname`: each NAME without its last component (`.` when there is none); `-z` ends
//! lines with NUL.

use std::ffi::OsString;

use common::args::{os_bytes, parse, HasArg, Order, Parsed};
use common::{Io, OptSpec};

const SPEC: &[OptSpec] = &[
    OptSpec::flag("zero", 'z', "zero"),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::long("version", "version", HasArg::No),
];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 1),
    };
    let mut terminator = b'\n';
    let mut names: Vec<OsString> = Vec::new();
    for item in parsed {
        match item {
            Parsed::Opt { id: "zero", .. } => terminator = 0,
            Parsed::Opt { id: "help", .. } => {
                let text = format!("Usage: {} [OPTION] NAME...\nOutput each NAME with its last non-slash component and trailing slashes\nremoved; if NAME contains no /'s, output '.' (meaning the current directory).\n\n  -z, --zero     end each output line with NUL, not newline\n      --help        display this help and exit\n      --version     output version information and exit\n", io.name);
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text("dirname").as_bytes());
                return 0;
            }
            Parsed::Operand(name) => names.push(name),
        }
    }
    if names.is_empty() {
        io.error("missing operand");
        io.try_help();
        return 1;
    }
    let mut out = Vec::new();
    for name in &names {
        out.extend_from_slice(dir_name(os_bytes(name)));
        out.push(terminator);
    }
    let _ = io.out(&out);
    0
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
