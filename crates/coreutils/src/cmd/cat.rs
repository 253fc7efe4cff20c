//! `cat`: concatenates files to stdout. Without options it copies bytes in 64 KiB blocks;
//! with -n/-b/-s/-E/-T/-v it works line by line, keeping its state (line number, blank-line
//! run, whether a line is open) across files as GNU's single output buffer does.

use std::ffi::OsString;
use std::io::{self, BufRead};

use common::args::Command;
use common::io::{filter_inputs, Failure};
use common::{Io, UError};

use crate::registry::cmd_head::operands::each_block;

const SPEC: &str = "A,show-all b,number-nonblank e E,show-ends n,number s,squeeze-blank t T,show-tabs u v,show-nonprinting";

const CAT: Command = Command::compact("cat", SPEC, HELP);

const HELP: &str = "Usage: cat [OPTION]... [FILE]...
Concatenate FILE(s) to standard output.

With no FILE, or when FILE is -, read standard input.

  -A, --show-all           equivalent to -vET
  -b, --number-nonblank    number nonempty output lines, overrides -n
  -e                       equivalent to -vE
  -E, --show-ends          display $ at end of each line
  -n, --number             number all output lines
  -s, --squeeze-blank      suppress repeated empty output lines
  -t                       equivalent to -vT
  -T, --show-tabs          display TAB characters as ^I
  -u                       (ignored)
  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB
{standard}";

#[derive(Default)]
struct Options {
    number: bool,
    nonblank: bool,
    squeeze: bool,
    ends: bool,
    tabs: bool,
    nonprint: bool,
}

impl Options {
    /// Turns on each option named by a letter of `letters`.
    fn set(&mut self, letters: &str) {
        for letter in letters.chars() {
            match letter {
                'b' => self.nonblank = true,
                'E' => self.ends = true,
                'n' => self.number = true,
                's' => self.squeeze = true,
                'T' => self.tabs = true,
                'v' => self.nonprint = true,
                _ => {}
            }
        }
    }
}

/// State carried from one line (and one file) to the next.
#[derive(Default)]
struct State {
    line_number: u64,
    blank_run: u64,
    mid_line: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut o = Options::default();
    let mut files = CAT.operands(&args, io, &mut |_, id, _| {
        // -A, -e and -t stand for groups of the others.
        o.set(match id {
            "A" => "vET",
            "e" => "vE",
            "t" => "vT",
            other => other,
        });
        Ok(())
    })?;
    if o.nonblank {
        o.number = true;
    }
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let plain = !(o.number || o.squeeze || o.ends || o.tabs || o.nonprint);
    let mut state = State::default();
    filter_inputs(io, &files, &mut |reader, out| if plain { copy(reader, out) } else { cat_lines(reader, out, &o, &mut state) })
}

fn copy(reader: &mut dyn BufRead, out: &mut dyn io::Write) -> Result<(), Failure> {
    each_block(reader, |buf| {
        out.write_all(buf).map_err(Failure::Write)?;
        Ok(Some(buf.len()))
    })
}

fn cat_lines(reader: &mut dyn BufRead, out: &mut dyn io::Write, o: &Options, st: &mut State) -> Result<(), Failure> {
    let mut line = Vec::new();
    let mut buf = Vec::with_capacity(256);
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(Failure::Read)?;
        if n == 0 {
            return Ok(());
        }
        buf.clear();
        let has_newline = line.last() == Some(&b'\n');
        let body = if has_newline { &line[..line.len() - 1] } else { &line[..] };
        if !st.mid_line {
            let blank = body.is_empty() && has_newline;
            if blank {
                st.blank_run += 1;
                if o.squeeze && st.blank_run > 1 {
                    continue;
                }
            } else {
                st.blank_run = 0;
            }
            // -b numbers only the lines that are not blank.
            if o.number && !(blank && o.nonblank) {
                st.line_number += 1;
                buf.extend_from_slice(format!("{:>6}\t", st.line_number).as_bytes());
            }
        }
        render(body, o, &mut buf);
        if has_newline {
            if o.ends {
                buf.push(b'$');
            }
            buf.push(b'\n');
        }
        st.mid_line = !has_newline;
        out.write_all(&buf).map_err(Failure::Write)?;
    }
}

/// Appends `body` with -v's ^X / M-X notation and -T's ^I applied.
fn render(body: &[u8], o: &Options, buf: &mut Vec<u8>) {
    if !o.nonprint && !o.tabs {
        buf.extend_from_slice(body);
        return;
    }
    for &b in body {
        if !o.nonprint {
            if b == b'\t' {
                buf.extend_from_slice(b"^I");
            } else {
                buf.push(b);
            }
            continue;
        }
        let mut c = b;
        if c >= 128 {
            buf.extend_from_slice(b"M-");
            c -= 128;
            if c < 32 {
                buf.push(b'^');
                buf.push(c + 64);
                continue;
            }
        }
        if c == 127 {
            buf.extend_from_slice(b"^?");
        } else if c == b'\t' && !o.tabs {
            buf.push(b'\t');
        } else if c < 32 {
            buf.push(b'^');
            buf.push(c + 64);
        } else {
            buf.push(c);
        }
    }
}
