//! `whoami`: the name of the effective user (`user` in the sandbox).

use std::ffi::OsString;

use common::args::{parse, HasArg, Order, Parsed};
use common::io::quote;
use common::{identity, Io, OptSpec};

const SPEC: &[OptSpec] = &[OptSpec::long("help", "help", HasArg::No), OptSpec::long("version", "version", HasArg::No)];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 1),
    };
    for item in parsed {
        match item {
            Parsed::Opt { id: "help", .. } => {
                let text = format!("Usage: {} [OPTION]...\nPrint the user name associated with the current effective user ID.\nSame as id -un.\n\n      --help        display this help and exit\n      --version     output version information and exit\n", io.name);
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text("whoami").as_bytes());
                return 0;
            }
            Parsed::Operand(extra) => {
                io.error(format!("extra operand {}", quote(&extra)));
                io.try_help();
                return 1;
            }
        }
    }
    let euid = identity::current().euid;
    match identity::account_by_uid(euid) {
        Some(a) => {
            let _ = io.out(format!("{}\n", a.name).as_bytes());
            0
        }
        None => {
            io.error(format!("cannot find name for user ID {}", euid));
            1
        }
    }
}
