//! `printenv`: prints the whole environment, or the values of the named variables (status 1
//! when one is missing); `-0` ends lines with NUL.

use std::ffi::OsString;

use common::args::{os_bytes, parse, HasArg, Order, Parsed};
use common::{Io, OptSpec};

const SPEC: &[OptSpec] = &[
    OptSpec::flag("null", '0', "null"),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::long("version", "version", HasArg::No),
];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 2),
    };
    let mut terminator = b'\n';
    let mut names: Vec<OsString> = Vec::new();
    for item in parsed {
        match item {
            Parsed::Opt { id: "null", .. } => terminator = 0,
            Parsed::Opt { id: "help", .. } => {
                let text = format!("Usage: {} [OPTION]... [VARIABLE]...\nPrint the values of the specified environment VARIABLE(s).\nIf no VARIABLE is specified, print name and value pairs for them all.\n\n  -0, --null     end each output line with NUL, not newline\n      --help        display this help and exit\n      --version     output version information and exit\n", io.name);
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text("printenv").as_bytes());
                return 0;
            }
            Parsed::Operand(name) => names.push(name),
        }
    }
    let mut out = Vec::new();
    let mut status = 0;
    if names.is_empty() {
        for (key, value) in std::env::vars_os() {
            out.extend_from_slice(os_bytes(&key));
            out.push(b'=');
            out.extend_from_slice(os_bytes(&value));
            out.push(terminator);
        }
    } else {
        for name in &names {
            match std::env::vars_os().find(|(key, _)| key == name).map(|(_, value)| value) {
                Some(value) => {
                    out.extend_from_slice(os_bytes(&value));
                    out.push(terminator);
                }
                None => status = 1,
            }
        }
    }
    let _ = io.out(&out);
    status
}
