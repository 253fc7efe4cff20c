//! `yes`: repeats its arguments (or `y`) forever, one line each, in large writes; ends
//! quietly when the reader goes away.

use std::ffi::OsString;

use common::args::{os_bytes};
use common::error::is_broken_pipe;
use common::{Command, Io, OptSpec, UError};

const SPEC: &[OptSpec] = &[];

const HELP: &str = "Usage: {name} [STRING]...\n  or:  {name} OPTION\nRepeatedly output a line with all specified STRING(s), or 'y'.\n\n{standard}";

const YES: Command = Command::new("yes", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let words = YES.seen(&args, io)?.operands;
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
                return Ok(0);
            }
            return Err(UError::new(1, format!("standard output: {}", common::strerror(&e))));
        }
    }
}
