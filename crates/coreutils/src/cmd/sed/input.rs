//! sed's input: the operands read as one stream of lines (or file by file with -s/-i),
//! one line read ahead so that `$` knows the current line is the last.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use common::args::os_bytes;
use common::strerror;

pub struct Line {
    pub data: Vec<u8>,
    /// The line ended with the delimiter (a last line without one prints without one).
    pub chomped: bool,
}

enum Reader<'a> {
    Stdin(&'a mut dyn BufRead),
    File(BufReader<File>),
}

pub struct Input<'a> {
    stdin: Option<&'a mut dyn BufRead>,
    pending: VecDeque<OsString>,
    current: Option<Reader<'a>>,
    /// Name of the file the current line comes from (`-` for stdin), for `F`.
    pub name: Vec<u8>,
    next_name: Vec<u8>,
    next: Option<Line>,
    delim: u8,
    /// -s/-i: do not read ahead across files.
    separate: bool,
    /// A file could not be read (exit status 2).
    pub failed: bool,
}

impl<'a> Input<'a> {
    pub fn new(files: Vec<OsString>, stdin: &'a mut dyn BufRead, delim: u8, separate: bool) -> Input<'a> {
        Input { stdin: Some(stdin), pending: files.into(), current: None, name: Vec::new(), next_name: Vec::new(), next: None, delim, separate, failed: false }
    }

    /// Opens the next operand (-s/-i); false when none is left. Errors are reported on `err`.
    pub fn open_next(&mut self, err: &mut dyn Write) -> bool {
        while let Some(name) = self.pending.pop_front() {
            if self.open(&name, err) {
                self.fill(err);
                return true;
            }
        }
        false
    }

    fn open(&mut self, name: &OsString, err: &mut dyn Write) -> bool {
        let bytes = os_bytes(name).to_vec();
        if bytes == b"-" {
            match self.stdin.take() {
                Some(s) => {
                    self.current = Some(Reader::Stdin(s));
                    self.next_name = bytes;
                    return true;
                }
                None => return false,
            }
        }
        let opened = File::open(name).and_then(|f| {
            if f.metadata()?.is_dir() {
                Err(io::Error::from_raw_os_error(airlock_sys::errno::os::ISDIR))
            } else {
                Ok(f)
            }
        });
        match opened {
            Ok(f) => {
                self.current = Some(Reader::File(BufReader::with_capacity(common::io::BUFFER_SIZE, f)));
                self.next_name = bytes;
                true
            }
            Err(e) => {
                if e.raw_os_error() == Some(airlock_sys::errno::os::ISDIR) {
                    let _ = writeln!(err, "sed: couldn't edit {}: not a regular file", name.to_string_lossy());
                } else {
                    let _ = writeln!(err, "sed: can't read {}: {}", name.to_string_lossy(), strerror(&e));
                }
                self.failed = true;
                false
            }
        }
    }

    /// Reads ahead one line, moving on to the next files unless `separate`.
    pub fn fill(&mut self, err: &mut dyn Write) {
        loop {
            if let Some(reader) = &mut self.current {
                let r: &mut dyn BufRead = match reader {
                    Reader::Stdin(s) => *s,
                    Reader::File(f) => f,
                };
                let mut data = Vec::new();
                match r.read_until(self.delim, &mut data) {
                    Ok(0) => {}
                    Ok(_) => {
                        let chomped = data.last() == Some(&self.delim);
                        if chomped {
                            data.pop();
                        }
                        self.next = Some(Line { data, chomped });
                        return;
                    }
                    Err(e) => {
                        let _ = writeln!(err, "sed: read error on {}: {}", String::from_utf8_lossy(&self.next_name), strerror(&e));
                        self.failed = true;
                    }
                }
                self.current = None;
            }
            if self.separate {
                return;
            }
            let name = match self.pending.pop_front() {
                Some(n) => n,
                None => return,
            };
            self.open(&name, err);
        }
    }

    /// The next line, if any.
    pub fn read(&mut self, err: &mut dyn Write) -> Option<Line> {
        let line = self.next.take()?;
        self.name = self.next_name.clone();
        self.fill(err);
        Some(line)
    }

    pub fn is_last(&self) -> bool {
        self.next.is_none()
    }

    pub fn has_pending_files(&self) -> bool {
        !self.pending.is_empty()
    }
}
