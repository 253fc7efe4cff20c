//! `sum`: the old 16-bit BSD (`-r`, default) or System V (`-s`) checksum and block count.

use std::ffi::OsString;

use common::args::{Command};
use common::{Io, UError};

use super::cmd_cksum::run_legacy;
use super::cmd_md5sum::Algo;

const SPEC: &str = "bsd=r sysv,s";

const HELP: &str = "Usage: sum [OPTION]... [FILE]...\nPrint or check BSD (16-bit) checksums.\n\nWith no FILE, or when FILE is -, read standard input.\n\n  -r              use BSD sum algorithm (the default), use 1K blocks\n  -s, --sysv      use System V sum algorithm, use 512 bytes blocks\n{standard}";

const SUM: Command = Command::compact("", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = SUM.seen(&args, io)?;
    let algo = if seen.last_of(&["bsd", "sysv"]) == Some("sysv") { Algo::Sysv } else { Algo::Bsd };
    Ok(run_legacy(io, algo, &seen.operands, b'\n'))
}
