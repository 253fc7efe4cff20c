//! `comm`: compares two sorted files line by line, in three columns (only in FILE1, only
//! in FILE2, in both). Byte order, as C.UTF-8's collation is. Order is checked like GNU:
//! by default only once an unpaired line was seen (a warning, exit 1 at the end);
//! --check-order makes disorder fatal, --nocheck-order turns the check off.

use std::ffi::OsString;
use std::io;

use common::args::{os_bytes, Command};
use common::io::{open_input, Failure, Input};
use common::{strerror, Io, UError};

const SPEC: &str = "1 2 3 check-order nocheck-order output-delimiter: total z,zero-terminated";

const COMM: Command = Command::compact("comm", SPEC, HELP).operands_between(2, 2);

const HELP: &str = "Usage: comm [OPTION]... FILE1 FILE2
Compare sorted files FILE1 and FILE2 line by line.

When FILE1 or FILE2 (not both) is -, read standard input.

With no options, produce three-column output.  Column one contains
lines unique to FILE1, column two contains lines unique to FILE2,
and column three contains lines common to both files.

  -1                      suppress column 1 (lines unique to FILE1)
  -2                      suppress column 2 (lines unique to FILE2)
  -3                      suppress column 3 (lines that appear in both files)

      --check-order       check that the input is correctly sorted, even
                            if all input lines are pairable
      --nocheck-order     do not check that the input is correctly sorted
      --output-delimiter=STR  separate columns with STR
      --total             output a summary
  -z, --zero-terminated   line delimiter is NUL, not newline
{standard}";

/// `--check-order` / `--nocheck-order`, as comm and join (`super::cmd_comm`) read them.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum CheckOrder {
    Default,
    Enabled,
    Disabled,
}

impl CheckOrder {
    /// The setting an option id selects, if it is one of the two.
    pub fn from_option(id: &str) -> Option<CheckOrder> {
        match id {
            "check-order" => Some(CheckOrder::Enabled),
            "nocheck-order" => Some(CheckOrder::Disabled),
            _ => None,
        }
    }

    /// Whether to check the order now: by default only once an unpairable line was seen.
    pub fn applies(self, seen_unpaired: bool) -> bool {
        self == CheckOrder::Enabled || (self == CheckOrder::Default && seen_unpaired)
    }
}

struct Side<'a> {
    input: Input<'a>,
    line: Vec<u8>,
    prev: Vec<u8>,
    has_line: bool,
    warned: bool,
}

impl<'a> Side<'a> {
    fn advance(&mut self, eol: u8) -> io::Result<()> {
        std::mem::swap(&mut self.prev, &mut self.line);
        self.line.clear();
        let n = self.input.reader().read_until(eol, &mut self.line)?;
        if n > 0 && self.line.last() == Some(&eol) {
            self.line.pop();
        }
        self.has_line = n > 0;
        Ok(())
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut show = [true, true, true];
    let mut check = CheckOrder::Default;
    let mut delimiter: Option<Vec<u8>> = None;
    let mut total = false;
    let mut eol = b'\n';
    let files = COMM.operands(&args, io, &mut |_, id, value| {
        if let Some(setting) = CheckOrder::from_option(id) {
            check = setting;
        }
        match id {
            "1" => show[0] = false,
            "2" => show[1] = false,
            "3" => show[2] = false,
            "output-delimiter" => {
                let d = os_bytes(&value.unwrap_or_default()).to_vec();
                if delimiter.as_ref().map_or(false, |old| *old != d) {
                    return Err(UError::new(1, "multiple output delimiters specified"));
                }
                delimiter = Some(d);
            }
            "total" => total = true,
            "z" => eol = 0,
            _ => {}
        }
        Ok(())
    })?;
    let delimiter = delimiter.map(|d| if d.is_empty() { vec![0] } else { d }).unwrap_or_else(|| vec![b'\t']);
    // When both operands are `-`, the second reads what the first left: nothing.
    let mut empty: &[u8] = &[];
    let name = io.name.clone();
    let a = match open_input(&files[0], &mut *io.stdin) {
        Ok(i) => i,
        Err(e) => {
            let _ = writeln!(io.stderr, "{}: {}: {}", name, files[0].to_string_lossy(), strerror(&e));
            return Ok(1);
        }
    };
    let b = match open_input(&files[1], &mut empty) {
        Ok(i) => i,
        Err(e) => {
            let _ = writeln!(io.stderr, "{}: {}: {}", name, files[1].to_string_lossy(), strerror(&e));
            return Ok(1);
        }
    };
    let mut sides = [
        Side { input: a, line: Vec::new(), prev: Vec::new(), has_line: false, warned: false },
        Side { input: b, line: Vec::new(), prev: Vec::new(), has_line: false, warned: false },
    ];
    let mut out = Vec::new();
    let mut counts = [0u64; 3];
    let mut seen_unpaired = false;
    let status = (|| -> Result<i32, Failure> {
        for s in sides.iter_mut() {
            s.advance(eol).map_err(Failure::Read)?;
        }
        while sides[0].has_line || sides[1].has_line {
            let order = match (sides[0].has_line, sides[1].has_line) {
                (true, true) => sides[0].line.cmp(&sides[1].line),
                (true, false) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (column, advance): (usize, &[usize]) = match order {
                std::cmp::Ordering::Less => (0, &[0]),
                std::cmp::Ordering::Greater => (1, &[1]),
                std::cmp::Ordering::Equal => (2, &[0, 1]),
            };
            counts[column] += 1;
            if column < 2 {
                seen_unpaired = true;
            }
            if show[column] {
                out.clear();
                for c in 0..column {
                    if show[c] {
                        out.extend_from_slice(&delimiter);
                    }
                }
                out.extend_from_slice(&sides[if column == 1 { 1 } else { 0 }].line);
                out.push(eol);
                io.stdout.write_all(&out).map_err(Failure::Write)?;
            }
            for &i in advance {
                sides[i].advance(eol).map_err(Failure::Read)?;
                let s = &mut sides[i];
                let checking = check.applies(seen_unpaired);
                if checking && s.has_line && !s.warned && s.prev > s.line {
                    let _ = io.stdout.flush();
                    let _ = writeln!(io.stderr, "{}: file {} is not in sorted order", name, i + 1);
                    if check == CheckOrder::Enabled {
                        return Ok(1);
                    }
                    s.warned = true;
                }
            }
        }
        if total {
            let mut line = format!("{}", counts[0]).into_bytes();
            for n in &counts[1..] {
                line.extend_from_slice(&delimiter);
                line.extend_from_slice(n.to_string().as_bytes());
            }
            line.extend_from_slice(&delimiter);
            line.extend_from_slice(b"total");
            line.push(eol);
            io.stdout.write_all(&line).map_err(Failure::Write)?;
        }
        if sides.iter().any(|s| s.warned) {
            let _ = io.stdout.flush();
            let _ = writeln!(io.stderr, "{}: input is not in sorted order", name);
            return Ok(1);
        }
        Ok(0)
    })();
    drop(sides);
    match status {
        Ok(s) => Ok(s),
        Err(Failure::Read(e)) => Err(UError::new(1, strerror(&e))),
        Err(Failure::Write(e)) => Err(UError::write(&e)),
    }
}

