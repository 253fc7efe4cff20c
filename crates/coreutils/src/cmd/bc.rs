//! `bc [-lqsw] [FILE]...`: the arbitrary-precision calculator, as GNU bc 1.07 behaves.
//! Reads the files, then standard input; each top-level line runs when its newline is
//! read. Numbers and scale rules: bc/num.rs; grammar: bc/parse.rs; execution and output
//! wrapping: bc/exec.rs; `-l`: bc/mathlib.rs. Like GNU bc, syntax and runtime errors are
//! reported on stderr and the line is abandoned, but the exit status stays 0; only an
//! unreadable file makes it 1.

#[path = "bc/exec.rs"]
mod exec;
#[path = "bc/lex.rs"]
mod lex;
#[path = "bc/mathlib.rs"]
mod mathlib;
#[path = "bc/num.rs"]
mod num;
#[path = "bc/parse.rs"]
mod parse;

use std::ffi::OsString;

use common::args::{ArgError, UsageError};
use common::{Command, Io, UError};

use exec::{Flow, Interp};
use parse::{Parser, Unit};

const SPEC: &str = "mathlib,l quiet,q standard,s warn,w interactive,i help,h version,v";

const USAGE: &str = "usage: {name} [options] [file ...]\n  -h  --help         print this usage and exit\n  -i  --interactive  force interactive mode\n  -l  --mathlib      use the predefined math routines\n  -q  --quiet        don't print initial banner\n  -s  --standard     non-standard bc constructs are errors\n  -w  --warn         warn about non-standard bc constructs\n  -v  --version      print version information and exit\n";

/// GNU bc answers a bad option with its usage on stderr.
const BC: Command = Command { usage_error: Some(UsageError(usage_error)), ..Command::compact("bc", SPEC, USAGE) };

fn usage_error(io: &mut Io, error: ArgError) -> UError {
    io.error(error);
    let _ = io.stderr.write_all(USAGE.replace("{name}", &io.name).as_bytes());
    UError::exit(1)
}

enum Outcome {
    Continue,
    Quit,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut mathlib = false;
    let files = BC.operands(&args, io, &mut |_, id, _| {
        mathlib |= id == "mathlib";
        Ok(())
    })?;
    let line_len = match std::env::var("BC_LINE_LENGTH").ok().and_then(|v| v.trim().parse::<i64>().ok()) {
        Some(0) => 0,
        Some(n) if n >= 3 => n as usize,
        _ => 70,
    };
    let mut interp = Interp::new(mathlib, line_len);
    for file in &files {
        let text = match std::fs::read(file) {
            Ok(t) => t,
            Err(_) => {
                let _ = io.stdout.flush();
                let _ = writeln!(io.stderr, "File {} is unavailable.", file.to_string_lossy());
                return Ok(1);
            }
        };
        if let Outcome::Quit = execute(&text, &file.to_string_lossy(), &mut interp, io) {
            return Ok(0);
        }
    }
    let mut text = Vec::new();
    if let Err(e) = io.stdin.read_to_end(&mut text) {
        return Err(UError::new(1, common::strerror(&e)));
    }
    execute(&text, "(standard_in)", &mut interp, io);
    Ok(0)
}

/// Parses and runs one input; Quit when `quit` or `halt` ended bc.
fn execute(text: &[u8], source: &str, interp: &mut Interp, io: &mut Io) -> Outcome {
    let mut parser = Parser::new(text);
    loop {
        let unit = parser.unit();
        let outcome = match unit {
            Err(e) => {
                flush(interp, io);
                let _ = io.stdout.flush();
                let _ = writeln!(io.stderr, "{} {}: {}", source, e.line, e.message);
                parser.recover();
                continue;
            }
            Ok(Unit::Eof) => return Outcome::Continue,
            Ok(Unit::Quit) => Outcome::Quit,
            Ok(Unit::Define(name, func)) => {
                interp.define(name, func);
                Outcome::Continue
            }
            Ok(Unit::Stmts(stmts)) => match interp.run(&stmts) {
                Ok(()) => Outcome::Continue,
                Err(Flow::Halt) => Outcome::Quit,
                Err(Flow::Error(message)) => {
                    flush(interp, io);
                    let _ = io.stdout.flush();
                    let _ = writeln!(io.stderr, "Runtime error (func=(main), adr=0): {}", message);
                    Outcome::Continue
                }
                Err(Flow::Return(_)) | Err(Flow::Break) | Err(Flow::Continue) => Outcome::Continue,
            },
        };
        flush(interp, io);
        if let Outcome::Quit = outcome {
            return Outcome::Quit;
        }
    }
}

/// Writes pending output and runtime warnings (in the order bc would print them).
fn flush(interp: &mut Interp, io: &mut Io) {
    let mut written = 0;
    for (at, w) in interp.warnings.drain(..) {
        let _ = io.out(&interp.out[written..at]);
        written = at;
        let _ = io.stdout.flush();
        let _ = writeln!(io.stderr, "Runtime warning (func=(main), adr=0): {}", w);
    }
    if written > 0 {
        interp.out.drain(..written);
    }
    if !interp.out.is_empty() {
        let _ = io.out(&interp.out);
        interp.out.clear();
    }
}
