//! `gunzip`: `gzip -d` under its own name.

use std::ffi::OsString;

use common::{Io, UError};

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    super::cmd_gzip::run_as(args, io, true, false)
}
