//! `expand`: converts tabs to spaces (`-t LIST` stops, `-i` only leading ones). Columns
//! are bytes, as in GNU 9.1; backspace moves back one column. Files are read as one
//! stream, like GNU.

use std::ffi::OsString;

use common::args::os_bytes;
use common::tabstops::{pump, take_obsolete, Failure, TabStops};
use common::{Command, Io, UError};

const SPEC: &str = "initial,i tabs,t:";

const HELP: &str = "Usage: {name} [OPTION]... [FILE]...\nConvert tabs in each FILE to spaces, writing to standard output.\n\nWith no FILE, or when FILE is -, read standard input.\n\n  -i, --initial    do not convert tabs after non blanks\n  -t, --tabs=N     have tabs N characters apart, not 8\n  -t, --tabs=LIST  use comma separated list of tab positions.\n{standard}";

const EXPAND: Command = Command::compact("expand", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut initial = false;
    let (stops, files) = tab_options(args, io, &EXPAND, |id| initial |= id == "initial")?;
    let mut state = State { column: 0, index: 0, convert: true };
    Ok(convert_files(&files, io, |c, out| {
        if let Some(c) = c {
            state.push(c, &stops, initial, out);
        }
    }))
}

/// The options expand and unexpand share: obsolete `-N` stops and `-t LIST`; the files
/// (`-` without any). `flag` sees every option's id, `tabs` among them.
pub(crate) fn tab_options(mut args: Vec<OsString>, io: &mut Io, command: &Command, mut flag: impl FnMut(&str)) -> Result<(TabStops, Vec<OsString>), UError> {
    let obsolete = take_obsolete(&mut args);
    let mut stops = TabStops::default();
    for s in obsolete {
        stops.add(s);
    }
    let mut files = command.operands(&args, io, &mut |_, id, value| {
        if id == "tabs" {
            stops.parse(os_bytes(&value.unwrap_or_default())).map_err(|message| UError::new(1, message))?;
        }
        flag(id);
        Ok(())
    })?;
    stops.finish().map_err(|message| UError::new(1, message))?;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    Ok((stops, files))
}

/// Feeds the files to `step` as one stream of bytes, then None at its end, and returns
/// the exit status: 1 after a file that cannot be read; output stops at a write error.
pub(crate) fn convert_files(files: &[OsString], io: &mut Io, mut step: impl FnMut(Option<u8>, &mut Vec<u8>)) -> i32 {
    let mut status = 0;
    let mut buffer = vec![0u8; common::io::BUFFER_SIZE];
    let mut out = Vec::with_capacity(common::io::BUFFER_SIZE * 2);
    for file in files {
        let mut input = match common::io::open_input(file, &mut *io.stdin) {
            Ok(i) => i,
            Err(e) => {
                io.error(common::io::describe(file, &e));
                status = 1;
                continue;
            }
        };
        let result = pump(input.reader(), &mut *io.stdout, &mut buffer, &mut out, |c, out| step(Some(c), out));
        drop(input);
        match result {
            Ok(()) => {}
            Err(Failure::Read(e)) => {
                io.error(common::io::describe(file, &e));
                status = 1;
            }
            Err(Failure::Write) => return status,
        }
    }
    step(None, &mut out);
    let _ = io.out(&out);
    status
}

struct State {
    column: u64,
    index: usize,
    convert: bool,
}

impl State {
    fn push(&mut self, c: u8, stops: &TabStops, initial: bool, out: &mut Vec<u8>) {
        let mut c = c;
        if self.convert {
            if c == b'\t' {
                let next = stops.next(self.column, &mut self.index).unwrap_or(self.column + 1);
                while self.column + 1 < next {
                    out.push(b' ');
                    self.column += 1;
                }
                self.column += 1;
                c = b' ';
            } else if c == 8 {
                self.column = self.column.saturating_sub(1);
                self.index = self.index.saturating_sub(1);
            } else {
                self.column += 1;
            }
            self.convert = !initial || c == b' ' || c == b'\t';
        }
        out.push(c);
        if c == b'\n' {
            self.column = 0;
            self.index = 0;
            self.convert = true;
        }
    }
}
