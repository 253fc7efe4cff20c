//! command: true
//! `true`: does nothing, successfully. Like GNU, it ignores its arguments except a lone
//! `--help` or `--version`.

use std::ffi::OsString;

use common::Io;

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    if args.len() == 2 {
        match args[1].to_str() {
            Some("--help") => {
                let _ = io.out(format!("Usage: {} [ignored command line arguments]\n  or:  {} OPTION\nExit with a status code indicating success.\n", io.name, io.name).as_bytes());
            }
            Some("--version") => {
                let _ = io.out(common::version_text(&io.name).as_bytes());
            }
            _ => {}
        }
    }
    0
}
