//! `base32`: `basenc --base32` under its own name (RFC 4648 section 6).

use std::ffi::OsString;

use common::{Io, UError};

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    super::cmd_basenc::run_codec(args, io, Some(super::cmd_basenc::Encoding::Base32))
}
