//! `sum`: the old 16-bit BSD (`-r`, default) or System V (`-s`) checksum and block count.

use std::ffi::OsString;

use common::args::{self, HasArg, OptSpec, Order, Parsed};
use common::Io;

use super::cmd_cksum::run_legacy;
use super::cmd_md5sum::Algo;

const SPEC: &[OptSpec] = &[
    OptSpec::short("bsd", 'r', HasArg::No),
    OptSpec::flag("sysv", 's', "sysv"),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::long("version", "version", HasArg::No),
];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match args::parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 1),
    };
    let mut algo = Algo::Bsd;
    let mut files = Vec::new();
    for p in parsed {
        match p {
            Parsed::Opt { id: "bsd", .. } => algo = Algo::Bsd,
            Parsed::Opt { id: "sysv", .. } => algo = Algo::Sysv,
            Parsed::Opt { id: "help", .. } => {
                let text = "Usage: sum [OPTION]... [FILE]...\nPrint or check BSD (16-bit) checksums.\n\nWith no FILE, or when FILE is -, read standard input.\n\n  -r              use BSD sum algorithm (the default), use 1K blocks\n  -s, --sysv      use System V sum algorithm, use 512 bytes blocks\n      --help        display this help and exit\n      --version     output version information and exit\n";
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text(&io.name).as_bytes());
                return 0;
            }
            Parsed::Operand(f) => files.push(f),
        }
    }
    run_legacy(io, algo, &files, b'\n')
}
