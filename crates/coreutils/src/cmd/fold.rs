//! `fold`: wraps lines wider than -w columns. Like GNU fold, columns are counted per byte
//! (a tab goes to the next multiple of 8, backspace goes back one, carriage return to 0)
//! unless -b counts plain bytes; -s breaks after the last blank that fits.

use std::ffi::OsString;
use std::io::{BufRead, Write};

use common::args::{self, os_bytes, Command};
use common::io::{filter_inputs, quote, Failure};
use common::{Io, UError};

const SPEC: &str = "b,bytes s,spaces w,width:";

const FOLD: Command = Command::compact("fold", SPEC, HELP);

const HELP: &str = "Usage: fold [OPTION]... [FILE]...
Wrap input lines in each FILE, writing to standard output.

With no FILE, or when FILE is -, read standard input.

  -b, --bytes         count bytes rather than columns
  -s, --spaces        break at spaces
  -w, --width=WIDTH   use WIDTH columns instead of 80
{standard}";

/// Turns the obsolete `-N` width form into `-w N`.
fn expand_obsolete(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::new();
    for a in args {
        let b = os_bytes(a);
        if b == b"--" {
            out.push(a.clone());
            continue;
        }
        if b.len() > 1 && b[0] == b'-' && b[1].is_ascii_digit() && b[1..].iter().all(|c| c.is_ascii_digit()) {
            out.push(OsString::from("-w"));
            out.push(args::bytes_os(&b[1..]));
        } else {
            out.push(a.clone());
        }
    }
    out
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let expanded = expand_obsolete(&args[1..]);
    let mut bytes = false;
    let mut spaces = false;
    let mut width = 80usize;
    let mut files = FOLD.operands_after_name(&expanded, io, &mut |_, id, value| {
        match id {
            "b" => bytes = true,
            "s" => spaces = true,
            "w" => {
                let v = value.unwrap_or_default();
                match v.to_str().and_then(|s| s.parse::<usize>().ok()).filter(|n| *n > 0) {
                    Some(n) => width = n,
                    None => {
                        return Err(UError::new(1, format!("invalid number of columns: {}", quote(&v))));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    filter_inputs(io, &files, &mut |reader, out| fold(reader, out, width, bytes, spaces))
}

fn adjust(column: usize, c: u8, bytes: bool) -> usize {
    if bytes {
        return column + 1;
    }
    match c {
        8 => column.saturating_sub(1),
        b'\r' => 0,
        b'\t' => column + 8 - column % 8,
        _ => column + 1,
    }
}

/// GNU's fold_file, line by line.
fn fold(reader: &mut dyn BufRead, out: &mut dyn Write, width: usize, bytes: bool, spaces: bool) -> Result<(), Failure> {
    let mut input = Vec::new();
    let mut line: Vec<u8> = Vec::new();
    let mut result: Vec<u8> = Vec::new();
    loop {
        input.clear();
        if reader.read_until(b'\n', &mut input).map_err(Failure::Read)? == 0 {
            return Ok(());
        }
        result.clear();
        line.clear();
        let mut column = 0usize;
        for &c in input.iter() {
            if c == b'\n' {
                line.push(c);
                result.extend_from_slice(&line);
                line.clear();
                column = 0;
                continue;
            }
            loop {
                column = adjust(column, c, bytes);
                if column <= width {
                    line.push(c);
                    break;
                }
                if spaces {
                    if let Some(blank) = line.iter().rposition(|b| *b == b' ' || *b == b'\t') {
                        let end = blank + 1;
                        result.extend_from_slice(&line[..end]);
                        result.push(b'\n');
                        line.drain(..end);
                        column = line.iter().fold(0, |col, b| adjust(col, *b, bytes));
                        continue;
                    }
                }
                if line.is_empty() {
                    line.push(c);
                    break;
                }
                result.extend_from_slice(&line);
                result.push(b'\n');
                line.clear();
                column = 0;
            }
        }
        result.extend_from_slice(&line);
        out.write_all(&result).map_err(Failure::Write)?;
    }
}
