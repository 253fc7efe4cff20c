//! `clear`: prints the terminal's clear sequence (xterm's: home, erase screen, erase
//! scrollback). The sandbox's terminal is xterm-compatible, so `$TERM` is not consulted;
//! `-x` keeps the scrollback, `-T TERM` is accepted for compatibility.

use std::ffi::OsString;

use common::args::{parse, Order, Parsed};
use common::Io;

const SPEC: &str = "keep-scrollback=x term=T: version=V";

const USAGE: &str = "Usage: clear [options]\n\nOptions:\n  -T TERM     use this instead of $TERM\n  -V          print curses-version\n  -x          do not try to clear scrollback\n";

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], &common::args::table(SPEC), Order::Permute) {
        Ok(p) => p,
        Err(e) => {
            io.error(e);
            let _ = io.stderr.write_all(USAGE.as_bytes());
            return 1;
        }
    };
    let mut scrollback = true;
    for item in parsed {
        match item {
            Parsed::Opt { id: "keep-scrollback", .. } => scrollback = false,
            Parsed::Opt { id: "version", .. } => {
                let _ = io.out(common::version_text("clear").as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {}
            Parsed::Operand(_) => {
                let _ = io.stderr.write_all(USAGE.as_bytes());
                return 1;
            }
        }
    }
    let sequence: &[u8] = if scrollback { b"\x1b[H\x1b[2J\x1b[3J" } else { b"\x1b[H\x1b[2J" };
    let _ = io.out(sequence);
    0
}
