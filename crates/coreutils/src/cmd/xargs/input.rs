//! Splitting xargs input into items, streaming: blank-separated words where '...', "..."
//! and backslash quote (GNU's default), whole lines for -I, or items ending at a
//! delimiter for -0/-d. Also tracks logical lines for -L: a line counts only when it had
//! items and its last character before the newline is not a blank.

use std::io::BufRead;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Blank,
    Delimited(u8),
}

pub struct Item {
    pub bytes: Vec<u8>,
    /// The item ended a logical input line (for -L).
    pub ends_line: bool,
}

pub struct Reader<'a> {
    input: &'a mut dyn BufRead,
    mode: Mode,
    eof_marker: Option<Vec<u8>>,
    insert: bool,
    done: bool,
    /// A block copied out of `input`, read byte by byte without a call per byte.
    block: Vec<u8>,
    pos: usize,
}

fn blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

impl<'a> Reader<'a> {
    pub fn new(input: &'a mut dyn BufRead, mode: Mode, eof_marker: Option<Vec<u8>>, insert: bool) -> Reader<'a> {
        Reader { input, mode, eof_marker, insert, done: false, block: Vec::new(), pos: 0 }
    }

    fn byte(&mut self) -> Result<Option<u8>, String> {
        if self.pos < self.block.len() {
            self.pos += 1;
            return Ok(Some(self.block[self.pos - 1]));
        }
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(common::strerror(&e)),
            };
            if buf.is_empty() {
                return Ok(None);
            }
            self.block.clear();
            self.block.extend_from_slice(buf);
            let n = buf.len();
            self.input.consume(n);
            self.pos = 1;
            return Ok(Some(self.block[0]));
        }
    }

    /// The next item, None at the end (or after the -E marker).
    pub fn next(&mut self) -> Result<Option<Item>, String> {
        if self.done {
            return Ok(None);
        }
        let item = match self.mode {
            Mode::Delimited(d) => self.delimited(d)?,
            Mode::Blank => self.blank_separated()?,
        };
        if let (Some(item), Some(marker)) = (&item, &self.eof_marker) {
            if item.bytes == *marker {
                self.done = true;
                return Ok(None);
            }
        }
        if item.is_none() {
            self.done = true;
        }
        Ok(item)
    }

    fn delimited(&mut self, d: u8) -> Result<Option<Item>, String> {
        let mut bytes = Vec::new();
        loop {
            match self.byte()? {
                Some(c) if c == d => return Ok(Some(Item { bytes, ends_line: true })),
                Some(c) => bytes.push(c),
                None if bytes.is_empty() => return Ok(None),
                None => return Ok(Some(Item { bytes, ends_line: true })),
            }
        }
    }

    fn blank_separated(&mut self) -> Result<Option<Item>, String> {
        #[derive(PartialEq, Clone, Copy)]
        enum State {
            Space,
            Norm,
            Quote(u8),
            Backslash,
        }
        let mut state = State::Space;
        let mut bytes = Vec::new();
        loop {
            let c = match self.byte()? {
                Some(c) => c,
                None => {
                    return match state {
                        State::Quote(q) => Err(unmatched(q)),
                        State::Space => Ok(None),
                        _ => Ok(Some(Item { bytes, ends_line: true })),
                    };
                }
            };
            if state == State::Space {
                if blank(c) || c == b'\n' {
                    continue;
                }
                // The first character of an item goes through the same rules as the rest.
                state = State::Norm;
            }
            match state {
                State::Norm => {
                    if c == b'\n' {
                        // -I keeps a line's inner and trailing blanks; the newline ends it.
                        return Ok(Some(Item { bytes, ends_line: true }));
                    }
                    if blank(c) && !self.insert {
                        return Ok(Some(Item { bytes, ends_line: false }));
                    }
                    match c {
                        b'\'' | b'"' => state = State::Quote(c),
                        b'\\' => state = State::Backslash,
                        _ => bytes.push(c),
                    }
                }
                State::Quote(q) => {
                    if c == b'\n' {
                        return Err(unmatched(q));
                    }
                    if c == q {
                        state = State::Norm;
                    } else {
                        bytes.push(c);
                    }
                }
                State::Backslash => {
                    bytes.push(c);
                    state = State::Norm;
                }
                State::Space => {}
            }
        }
    }
}

fn unmatched(q: u8) -> String {
    format!("unmatched {} quote; by default quotes are special to xargs unless you use the -0 option", if q == b'\'' { "single" } else { "double" })
}
