//! `yes`: repeats its arguments (or `y`) forever, one line each, in large writes; ends
//! quietly when the reader goes away.

use std::ffi::OsString;

use common::args::{os_bytes, parse, HasArg, Order, Parsed};
use common::error::is_broken_pipe;
use common::{Io, OptSpec};

const SPEC: &[OptSpec] = &[OptSpec::long("help", "help", HasArg::No), OptSpec::long("version", "version", HasArg::No)];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 1),
    };
    let mut words = Vec::new();
    for item in parsed {
        match item {
            Parsed::Opt { id: "help", .. } => {
                let text = format!("Usage: {} [STRING]...\n  or:  {} OPTION\nRepeatedly output a line with all specified STRING(s), or 'y'.\n\n      --help        display this help and exit\n      --version     output version information and exit\n", io.name, io.name);
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text("yes").as_bytes());
                return 0;
            }
            Parsed::Operand(w) => words.push(w),
        }
    }
    let mut line = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            line.push(b' ');
        }
        line.extend_from_slice(os_bytes(w));
    }
    if words.is_empty() {
        line.push(b'y');
    }
    line.push(b'\n');
    let mut block = Vec::with_capacity(common::io::BUFFER_SIZE + line.len());
    while block.len() < common::io::BUFFER_SIZE / 2 {
        block.extend_from_slice(&line);
    }
    loop {
        if let Err(e) = io.stdout.write_all(&block).and_then(|_| io.stdout.flush()) {
            if is_broken_pipe(&e) {
                return 0;
            }
            io.error(format!("standard output: {}", common::strerror(&e)));
            return 1;
        }
    }
}
