//! Tab stops as `expand` and `unexpand` take them (`-t LIST`): one size (every N
//! columns), or explicit columns, the last optionally `/N` (then every N) or `+N` (then
//! every N after the last stop). GNU's messages for bad lists.

use std::io::{BufRead, ErrorKind, Write};

use crate::args::bytes_os;
use crate::io::quote;

#[derive(Debug, Clone, Default)]
pub struct TabStops {
    size: u64,
    list: Vec<u64>,
    extend: u64,
    increment: u64,
}

impl TabStops {
    /// Adds one explicit stop (also what the obsolete `-N` form does).
    pub fn add(&mut self, column: u64) {
        self.list.push(column);
    }

    /// Adds a comma- or blank-separated list.
    pub fn parse(&mut self, text: &[u8]) -> Result<(), String> {
        let mut value: Option<u64> = None;
        let mut extend = false;
        let mut increment = false;
        let mut i = 0;
        while i <= text.len() {
            let c = text.get(i).copied();
            match c {
                None | Some(b',') | Some(b' ') | Some(b'\t') => {
                    if let Some(v) = value {
                        if extend {
                            if self.extend != 0 {
                                return Err("'/' specifier only allowed with the last value".to_string());
                            }
                            self.extend = v;
                        } else if increment {
                            if self.increment != 0 {
                                return Err("'+' specifier only allowed with the last value".to_string());
                            }
                            self.increment = v;
                        } else {
                            self.add(v);
                        }
                    }
                    value = None;
                }
                Some(b'/') | Some(b'+') => {
                    if value.is_some() {
                        let which = if c == Some(b'/') { '/' } else { '+' };
                        return Err(format!("'{}' specifier not at start of number: {}", which, quote(&bytes_os(&text[i..]))));
                    }
                    extend = c == Some(b'/');
                    increment = c == Some(b'+');
                }
                Some(d) if d.is_ascii_digit() => {
                    let next = value.unwrap_or(0).checked_mul(10).and_then(|v| v.checked_add((d - b'0') as u64));
                    match next {
                        Some(v) => value = Some(v),
                        None => {
                            let start = text[..i].iter().rposition(|c| !c.is_ascii_digit()).map_or(0, |p| p + 1);
                            let end = i + text[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                            return Err(format!("tab stop is too large {}", quote(&bytes_os(&text[start..end]))));
                        }
                    }
                }
                Some(_) => return Err(format!("tab size contains invalid character(s): {}", quote(&bytes_os(&text[i..])))),
            }
            i += 1;
        }
        Ok(())
    }

    /// Validates the list and settles on a single size where there is one.
    pub fn finish(&mut self) -> Result<(), String> {
        let mut previous = 0;
        for &t in &self.list {
            if t == 0 {
                return Err("tab size cannot be 0".to_string());
            }
            if t <= previous {
                return Err("tab sizes must be ascending".to_string());
            }
            previous = t;
        }
        if self.increment != 0 && self.extend != 0 {
            return Err("'/' specifier is mutually exclusive with '+'".to_string());
        }
        if self.list.is_empty() {
            self.size = if self.extend != 0 {
                self.extend
            } else if self.increment != 0 {
                self.increment
            } else {
                8
            };
        } else if self.list.len() == 1 && self.extend == 0 && self.increment == 0 {
            self.size = self.list[0];
        }
        Ok(())
    }

    /// The next stop after `column`; `index` remembers the position in the list. None
    /// when the explicit list is exhausted.
    pub fn next(&self, column: u64, index: &mut usize) -> Option<u64> {
        if self.size != 0 {
            return Some(column + (self.size - column % self.size));
        }
        while *index < self.list.len() {
            if column < self.list[*index] {
                return Some(self.list[*index]);
            }
            *index += 1;
        }
        if self.extend != 0 {
            return Some(column + (self.extend - column % self.extend));
        }
        if self.increment != 0 {
            let end = self.list.last().copied().unwrap_or(0);
            return Some(column + (self.increment - (column - end) % self.increment));
        }
        None
    }
}

/// Pulls the obsolete `-N[,N]...` options out of `args` (as expand and unexpand accept
/// them) and returns the stops they give. Stops at `--`.
pub fn take_obsolete(args: &mut Vec<std::ffi::OsString>) -> Vec<u64> {
    let mut stops = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let word = crate::args::os_bytes(&args[i]).to_vec();
        if word == b"--" {
            break;
        }
        if word.len() > 1 && word[0] == b'-' && word[1..].iter().all(|c| c.is_ascii_digit() || *c == b',') {
            for part in word[1..].split(|c| *c == b',') {
                if let Some(v) = std::str::from_utf8(part).ok().and_then(|p| p.parse::<u64>().ok()) {
                    stops.push(v);
                }
            }
            args.remove(i);
            continue;
        }
        i += 1;
    }
    stops
}

/// Why `pump` stopped early.
pub enum Failure {
    Read(std::io::Error),
    /// The reader of our output went away: stop quietly.
    Write,
}

/// Feeds every byte of `reader` to `step`, writing `out` in large blocks.
pub fn pump(reader: &mut dyn BufRead, stdout: &mut dyn Write, buffer: &mut [u8], out: &mut Vec<u8>, mut step: impl FnMut(u8, &mut Vec<u8>)) -> Result<(), Failure> {
    loop {
        let n = match reader.read(buffer) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        for &c in &buffer[..n] {
            step(c, out);
        }
        if out.len() >= crate::io::BUFFER_SIZE {
            stdout.write_all(out).map_err(|_| Failure::Write)?;
            out.clear();
        }
    }
}
