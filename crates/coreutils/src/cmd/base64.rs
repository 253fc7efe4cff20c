//! `base64`: `basenc --base64` under its own name (RFC 4648 section 4).

use std::ffi::OsString;

use common::Io;

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    super::cmd_basenc::run_codec(args, io, Some(super::cmd_basenc::Encoding::Base64))
}
