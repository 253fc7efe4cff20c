//! `sha512sum`: print or check SHA512 checksums (the engine is md5sum's).

use std::ffi::OsString;

use common::{Io, UError};

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    super::cmd_md5sum::run_digest(args, io, super::cmd_md5sum::Algo::Sha512)
}
