//! `tee`: copies standard input to standard output and to each FILE, as it arrives (one
//! write per read, so it works interactively). `-a` appends, `-i` ignores interrupts (a
//! no-op here), `-p` / `--output-error[=MODE]` chooses what a write error does. `-` is a
//! file named `-`, as in GNU.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::Write;

use common::error::is_broken_pipe;
use common::io::quote;
use common::{strerror, Command, Io, UError};

const SPEC: &str = "append,a ignore-interrupts,i nopipe=p output-error::";

const HELP: &str = "Usage: {name} [OPTION]... [FILE]...\nCopy standard input to each FILE, and also to standard output.\n\n  -a, --append              append to the given FILEs, do not overwrite\n  -i, --ignore-interrupts   ignore interrupt signals\n  -p                        operate in a more appropriate MODE with pipes.\n      --output-error[=MODE]   set behavior on write error.  See MODE below\n{standard}";

const TEE: Command = Command::compact("tee", SPEC, HELP);

/// What a write error does (`--output-error`).
#[derive(Clone, Copy, PartialEq)]
enum OnError {
    /// Default: EPIPE ends tee (as SIGPIPE would); other errors are reported.
    Default,
    Warn,
    WarnNoPipe,
    Exit,
    ExitNoPipe,
}

struct Output {
    name: String,
    file: Option<File>,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut append = false;
    let mut mode = OnError::Default;
    let files = TEE.operands(&args, io, &mut |io, id, value| {
        match id {
            "append" => append = true,
            "ignore-interrupts" => {}
            "nopipe" => mode = OnError::WarnNoPipe,
            "output-error" => {
                mode = match value.as_ref().map(|v| v.to_string_lossy().into_owned()) {
                    None => OnError::WarnNoPipe,
                    Some(v) => match pick(&v) {
                        Some(m) => m,
                        None => {
                            io.error(format!("invalid argument {} for {}", quote(&OsString::from(&v)), quote(&OsString::from("--output-error"))));
                            let _ = io.stderr.write_all(b"Valid arguments are:\n  - 'warn'\n  - 'warn-nopipe'\n  - 'exit'\n  - 'exit-nopipe'\n");
                            io.try_help();
                            return Err(UError::exit(1));
                        }
                    },
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    let mut status = 0;
    let mut outputs: Vec<Output> = Vec::new();
    for path in &files {
        let opened = if append { OpenOptions::new().append(true).create(true).open(path) } else { File::create(path) };
        match opened {
            Ok(file) => outputs.push(Output { name: path.to_string_lossy().into_owned(), file: Some(file) }),
            Err(e) => {
                io.error(format!("{}: {}", path.to_string_lossy(), strerror(&e)));
                status = 1;
            }
        }
    }
    let mut stdout_open = true;
    let mut buffer = vec![0u8; common::io::BUFFER_SIZE];
    loop {
        let n = match io.stdin.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(UError::new(1, format!("read error: {}", strerror(&e))));
            }
        };
        let chunk = &buffer[..n];
        if stdout_open {
            if let Err(e) = io.stdout.write_all(chunk).and_then(|_| io.stdout.flush()) {
                stdout_open = false;
                match failure(mode, &e) {
                    Failure::Quiet => return Ok(status),
                    Failure::Ignore => {}
                    Failure::Report(exit) => {
                        io.error(format!("standard output: {}", strerror(&e)));
                        status = 1;
                        if exit {
                            return Ok(1);
                        }
                    }
                }
            }
        }
        for output in outputs.iter_mut() {
            let result = match output.file.as_mut() {
                Some(f) => f.write_all(chunk),
                None => continue,
            };
            if let Err(e) = result {
                output.file = None;
                match failure(mode, &e) {
                    Failure::Quiet => return Ok(status),
                    Failure::Ignore => {}
                    Failure::Report(exit) => {
                        io.error(format!("{}: {}", output.name, strerror(&e)));
                        status = 1;
                        if exit {
                            return Ok(1);
                        }
                    }
                }
            }
        }
        if !stdout_open && outputs.iter().all(|o| o.file.is_none()) && mode == OnError::Default {
            break;
        }
    }
    Ok(status)
}

enum Failure {
    /// Stop at once without a message (EPIPE by default, like dying of SIGPIPE).
    Quiet,
    /// Drop this output silently.
    Ignore,
    /// Report it; `true`: and stop.
    Report(bool),
}

fn failure(mode: OnError, error: &std::io::Error) -> Failure {
    let pipe = is_broken_pipe(error);
    match mode {
        OnError::Default if pipe => Failure::Quiet,
        OnError::Default => Failure::Report(false),
        OnError::Warn => Failure::Report(false),
        OnError::WarnNoPipe | OnError::ExitNoPipe if pipe => Failure::Ignore,
        OnError::WarnNoPipe => Failure::Report(false),
        OnError::Exit | OnError::ExitNoPipe => Failure::Report(true),
    }
}

/// An `--output-error` mode by (abbreviated) name.
fn pick(value: &str) -> Option<OnError> {
    let modes = [("warn", OnError::Warn), ("warn-nopipe", OnError::WarnNoPipe), ("exit", OnError::Exit), ("exit-nopipe", OnError::ExitNoPipe)];
    if let Some((_, m)) = modes.iter().find(|(n, _)| *n == value) {
        return Some(*m);
    }
    let matches: Vec<&(&str, OnError)> = modes.iter().filter(|(n, _)| !value.is_empty() && n.starts_with(value)).collect();
    if matches.len() == 1 {
        Some(matches[0].1)
    } else {
        None
    }
}
