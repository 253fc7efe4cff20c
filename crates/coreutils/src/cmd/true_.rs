//! command: true
//! `true`: does nothing, successfully. Like GNU, it ignores its arguments except a lone
//! `--help` or `--version`.

use std::ffi::OsString;

use common::args::Command;
use common::{Io, UError};

const TRUE: Command = Command::compact("", "", "Usage: {name} [ignored command line arguments]\n  or:  {name} OPTION\nExit with a status code indicating success.\n");

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    TRUE.sole(&args, io);
    Ok(0)
}
