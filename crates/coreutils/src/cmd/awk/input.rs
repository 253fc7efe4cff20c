//! Reading records: RS as a newline or other single character, "" (paragraph mode: blank
//! lines separate, newlines are field separators too), or a regular expression (gawk),
//! with RT set to the text that ended the record. Reading is incremental: a record is
//! returned as soon as its terminator has arrived, so awk works on endless pipes.

use std::io::{self, Read};
use std::rc::Rc;

use common::regex::Regex;

#[derive(Clone)]
pub enum RsMode {
    Byte(u8),
    Paragraph,
    Regex(Rc<Regex>),
}

const CHUNK: usize = 64 * 1024;

/// A buffered record reader over any byte source (the source is passed to each call so
/// stdin can stay borrowed by the caller).
pub struct RecordReader {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
}

impl Default for RecordReader {
    fn default() -> Self {
        RecordReader::new()
    }
}

impl RecordReader {
    pub fn new() -> RecordReader {
        RecordReader { buf: Vec::new(), start: 0, end: 0, eof: false }
    }

    /// Reads more input; false at end of input.
    fn fill(&mut self, src: &mut dyn Read) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 && (self.start == self.end || self.start > self.buf.len() / 2) {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < CHUNK / 4 {
            let grow = self.buf.len().max(CHUNK);
            self.buf.resize(self.buf.len() + grow, 0);
        }
        loop {
            match src.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads the next record into `out` (replacing it) and its terminator into `rt`.
    /// Returns false at end of input.
    pub fn read_record(&mut self, src: &mut dyn Read, rs: &RsMode, out: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        out.clear();
        rt.clear();
        match rs {
            RsMode::Byte(c) => self.read_until_byte(src, *c, out, rt),
            RsMode::Paragraph => self.read_paragraph(src, out, rt),
            RsMode::Regex(re) => self.read_regex(src, re, out, rt),
        }
    }

    fn read_until_byte(&mut self, src: &mut dyn Read, c: u8, out: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        let mut scanned = self.start;
        loop {
            if let Some(i) = memchr::memchr(c, &self.buf[scanned..self.end]) {
                let stop = scanned + i;
                out.extend_from_slice(&self.buf[self.start..stop]);
                rt.push(c);
                self.start = stop + 1;
                return Ok(true);
            }
            let offset = self.end - self.start;
            if !self.fill(src)? {
                if self.start == self.end {
                    return Ok(false);
                }
                out.extend_from_slice(&self.buf[self.start..self.end]);
                self.start = self.end;
                return Ok(true);
            }
            scanned = self.start + offset;
        }
    }

    fn read_paragraph(&mut self, src: &mut dyn Read, out: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        // Leading newlines are skipped.
        loop {
            while self.start < self.end && self.buf[self.start] == b'\n' {
                self.start += 1;
            }
            if self.start < self.end || !self.fill(src)? {
                break;
            }
        }
        if self.start == self.end {
            return Ok(false);
        }
        loop {
            let window = &self.buf[self.start..self.end];
            if let Some(p) = memchr::memmem::find(window, b"\n\n") {
                let mut q = p;
                while q < window.len() && window[q] == b'\n' {
                    q += 1;
                }
                // All the newlines belong to RT, so wait until a non-newline follows.
                if q < window.len() || self.eof {
                    out.extend_from_slice(&window[..p]);
                    rt.extend_from_slice(&window[p..q]);
                    self.start += q;
                    return Ok(true);
                }
            } else if self.eof {
                let mut stop = window.len();
                while stop > 0 && window[stop - 1] == b'\n' {
                    stop -= 1;
                }
                out.extend_from_slice(&window[..stop]);
                rt.extend_from_slice(&window[stop..]);
                self.start = self.end;
                return Ok(true);
            }
            self.fill(src)?;
        }
    }

    fn read_regex(&mut self, src: &mut dyn Read, re: &Regex, out: &mut Vec<u8>, rt: &mut Vec<u8>) -> io::Result<bool> {
        loop {
            let window = &self.buf[self.start..self.end];
            let mut search = 0;
            let mut found = None;
            while let Some((s, e)) = re.find_at(window, search) {
                if e > s {
                    found = Some((s, e));
                    break;
                }
                if s >= window.len() {
                    break;
                }
                search = s + 1;
            }
            match found {
                // A match touching the end of the buffer might grow with more input.
                Some((s, e)) if e < window.len() || self.eof => {
                    out.extend_from_slice(&window[..s]);
                    rt.extend_from_slice(&window[s..e]);
                    self.start += e;
                    return Ok(true);
                }
                _ => {
                    if !self.fill(src)? {
                        if let Some((s, e)) = found {
                            let window = &self.buf[self.start..self.end];
                            out.extend_from_slice(&window[..s]);
                            rt.extend_from_slice(&window[s..e]);
                            self.start += e;
                            return Ok(true);
                        }
                        if self.start == self.end {
                            return Ok(false);
                        }
                        out.extend_from_slice(&self.buf[self.start..self.end]);
                        self.start = self.end;
                        return Ok(true);
                    }
                }
            }
        }
    }
}
