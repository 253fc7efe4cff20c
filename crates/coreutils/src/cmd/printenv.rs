//! `printenv`: prints the whole environment, or the values of the named variables (status 1
//! when one is missing); `-0` ends lines with NUL.

use std::ffi::OsString;

use common::args::{os_bytes, Order};
use common::{Command, Io, UError};

const SPEC: &str = "null,0";

const HELP: &str = "Usage: {name} [OPTION]... [VARIABLE]...\nPrint the values of the specified environment VARIABLE(s).\nIf no VARIABLE is specified, print name and value pairs for them all.\n\n  -0, --null     end each output line with NUL, not newline\n{standard}";

const PRINTENV: Command = Command { usage_status: 2, order: Order::Permute, ..Command::compact("printenv", SPEC, HELP) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = PRINTENV.seen(&args, io)?;
    let terminator = if seen.flag("null") { 0 } else { b'\n' };
    let names = seen.operands;
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
    Ok(status)
}
