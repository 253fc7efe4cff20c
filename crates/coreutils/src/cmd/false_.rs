//! command: false
//! `false`: does nothing, unsuccessfully (status 1, even for --help and --version).

use std::ffi::OsString;

use common::Io;

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    if args.len() == 2 {
        match args[1].to_str() {
            Some("--help") => {
                let _ = io.out(format!("Usage: {} [ignored command line arguments]\n  or:  {} OPTION\nExit with a status code indicating failure.\n", io.name, io.name).as_bytes());
            }
            Some("--version") => {
                let _ = io.out(common::version_text(&io.name).as_bytes());
            }
            _ => {}
        }
    }
    1
}
