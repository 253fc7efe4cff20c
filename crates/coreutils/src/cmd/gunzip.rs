//! `gunzip`: `gzip -d` under its own name.

use std::ffi::OsString;

use common::Io;

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    super::cmd_gzip::run_as(args, io, true, false)
}
