//! `unexpand`: converts leading blanks (all blanks with `-a` or `-t`) to tabs, following
//! GNU's algorithm: a single blank just before a tab stop stays a blank unless more
//! blanks follow; `--first-only` limits conversion to the leading blanks again.

use std::ffi::OsString;

use common::tabstops::TabStops;
use common::{Command, Io, UError};

use super::cmd_expand::{convert_files, tab_options};

const SPEC: &str = "all,a first-only tabs,t:";

const HELP: &str = "Usage: {name} [OPTION]... [FILE]...\nConvert blanks in each FILE to tabs, writing to standard output.\n\nWith no FILE, or when FILE is -, read standard input.\n\n  -a, --all        convert all blanks, instead of just initial blanks\n      --first-only  convert only leading sequences of blanks (overrides -a)\n  -t, --tabs=N     have tabs N characters apart instead of 8 (enables -a)\n  -t, --tabs=LIST  use comma separated list of tab positions.\n{standard}";

const UNEXPAND: Command = Command::compact("unexpand", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut all, mut first_only) = (false, false);
    let (stops, files) = tab_options(args, io, &UNEXPAND, |id| match id {
        // A tab list means converting all blanks.
        "all" | "tabs" => all = true,
        "first-only" => first_only = true,
        _ => {}
    })?;
    let mut state = State::new(all && !first_only);
    Ok(convert_files(&files, io, |c, out| state.push(c, &stops, out)))
}

/// The per-line state of GNU's unexpand loop.
struct State {
    entire_line: bool,
    convert: bool,
    column: u64,
    index: usize,
    one_blank_before_stop: bool,
    prev_blank: bool,
    pending: Vec<u8>,
}

impl State {
    fn new(entire_line: bool) -> State {
        State { entire_line, convert: true, column: 0, index: 0, one_blank_before_stop: false, prev_blank: true, pending: Vec::new() }
    }

    /// One input byte (None at end of input).
    fn push(&mut self, input: Option<u8>, stops: &TabStops, out: &mut Vec<u8>) {
        let mut c = input;
        if self.convert {
            let blank = matches!(c, Some(b' ') | Some(b'\t'));
            if blank {
                let next = stops.next(self.column, &mut self.index);
                match next {
                    None => self.convert = false,
                    Some(next) => {
                        if c == Some(b'\t') {
                            self.column = next;
                            if !self.pending.is_empty() {
                                self.pending[0] = b'\t';
                            }
                        } else {
                            self.column += 1;
                            if !(self.prev_blank && self.column == next) {
                                if self.column == next {
                                    self.one_blank_before_stop = true;
                                }
                                self.pending.push(b' ');
                                self.prev_blank = true;
                                return;
                            }
                            c = Some(b'\t');
                            if !self.pending.is_empty() {
                                self.pending[0] = b'\t';
                            }
                        }
                        let keep = self.one_blank_before_stop as usize;
                        self.pending.truncate(keep);
                    }
                }
            } else if c == Some(8) {
                self.column = self.column.saturating_sub(1);
                self.index = self.index.saturating_sub(1);
            } else {
                self.column += 1;
            }
            if !self.pending.is_empty() {
                if self.pending.len() > 1 && self.one_blank_before_stop {
                    self.pending[0] = b'\t';
                }
                out.extend_from_slice(&self.pending);
                self.pending.clear();
                self.one_blank_before_stop = false;
            }
            self.prev_blank = blank;
            self.convert &= self.entire_line || blank;
        }
        match c {
            None => {}
            Some(byte) => {
                out.push(byte);
                if byte == b'\n' {
                    let entire_line = self.entire_line;
                    *self = State::new(entire_line);
                }
            }
        }
    }
}
