//! Reading input for `read`, `mapfile` and `select` without taking more than they use:
//! a pipe is read a byte at a time (other processes may read the rest), a regular file in
//! blocks with the unused part given back by seeking, as bash does.

use super::{read_target, Target};
use crate::sys::{Errno, FileKind, Sys};
use crate::shell::Shell;

pub struct InputReader {
    target: Target,
    buf: Vec<u8>,
    pos: usize,
    seekable: bool,
    eof: bool,
}

const BLOCK: usize = 4096;

impl InputReader {
    pub fn new(sys: &mut dyn Sys, target: Target) -> InputReader {
        let seekable = match &target {
            Target::Real(fd) => sys.fstat(*fd).map_or(false, |s| s.kind == FileKind::File),
            Target::Memory(_) => false,
        };
        InputReader { target, buf: Vec::new(), pos: 0, seekable, eof: false }
    }

    pub fn next(&mut self, sys: &mut dyn Sys) -> Result<Option<u8>, Errno> {
        if self.pos < self.buf.len() {
            self.pos += 1;
            return Ok(Some(self.buf[self.pos - 1]));
        }
        if self.eof {
            return Ok(None);
        }
        let size = if self.seekable { BLOCK } else { 1 };
        self.buf.resize(size, 0);
        loop {
            match read_target(sys, &self.target, &mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    self.buf.clear();
                    self.pos = 0;
                    return Ok(None);
                }
                Ok(n) => {
                    self.buf.truncate(n);
                    self.pos = 1;
                    return Ok(Some(self.buf[0]));
                }
                Err(Errno::INTR) | Err(Errno::AGAIN) => continue,
                Err(error) => {
                    self.buf.clear();
                    self.pos = 0;
                    return Err(error);
                }
            }
        }
    }

    /// Gives back bytes read ahead from a regular file.
    pub fn finish(self, sys: &mut dyn Sys) {
        let unused = self.buf.len().saturating_sub(self.pos);
        if self.seekable && unused > 0 {
            if let Target::Real(fd) = self.target {
                let _ = sys.seek_relative(fd, -(unused as i64));
            }
        }
    }
}

impl Shell {
    /// One line from a virtual descriptor, without its newline; `None` at end of input
    /// with nothing read.
    pub(crate) fn read_line_from(&mut self, fd: u32) -> Option<String> {
        let target = self.fds.get(fd)?.clone();
        let mut reader = InputReader::new(self.sys.as_mut(), target);
        let mut line = Vec::new();
        let mut found = false;
        while let Ok(Some(byte)) = reader.next(self.sys.as_mut()) {
            if byte == b'\n' {
                found = true;
                break;
            }
            line.push(byte);
        }
        reader.finish(self.sys.as_mut());
        if !found && line.is_empty() {
            return None;
        }
        Some(crate::text::from_bytes(&line))
    }
}
