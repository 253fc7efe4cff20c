//! command: false
//! `false`: does nothing, unsuccessfully (status 1, even for --help and --version).

use std::ffi::OsString;

use common::args::Command;
use common::{Io, UError};

const FALSE: Command = Command::compact("", "", "Usage: {name} [ignored command line arguments]\n  or:  {name} OPTION\nExit with a status code indicating failure.\n");

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    FALSE.sole(&args, io);
    Ok(1)
}
