//! Where jq's inputs come from: stdin or the named files read as one stream, parsed as
//! JSON texts (or lines with -R), optionally slurped (-s) or turned into stream events
//! (--stream). Also what `input`, `debug`, `input_filename` and error locations need.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, Read, Write};

use super::interp::Host;
use super::json::{ParseError, Parser, Source};
use super::options::Options;
use super::value::Value;

/// The input operands as one byte stream.
pub struct MultiReader<'a> {
    stdin: &'a mut dyn BufRead,
    files: Vec<OsString>,
    next: usize,
    current: Option<File>,
    pub current_name: Option<String>,
    started: bool,
    pub errors: Vec<String>,
}

impl<'a> MultiReader<'a> {
    fn new(stdin: &'a mut dyn BufRead, files: Vec<OsString>) -> MultiReader<'a> {
        MultiReader { stdin, files, next: 0, current: None, current_name: None, started: false, errors: Vec::new() }
    }
}

impl<'a> Source for MultiReader<'a> {
    fn fill(&mut self, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        let mut chunk = [0u8; 65536];
        loop {
            if self.files.is_empty() {
                self.started = true;
                let n = self.stdin.read(&mut chunk)?;
                buf.extend_from_slice(&chunk[..n]);
                return Ok(n);
            }
            if self.current.is_none() {
                if self.next >= self.files.len() {
                    return Ok(0);
                }
                let name = self.files[self.next].clone();
                self.next += 1;
                match File::open(&name) {
                    Ok(f) => {
                        self.current = Some(f);
                        self.current_name = Some(name.to_string_lossy().into_owned());
                    }
                    Err(e) => {
                        self.errors.push(format!("jq: error: Could not open {}: {}\n", name.to_string_lossy(), common::strerror(&e)));
                        continue;
                    }
                }
            }
            let n = match self.current.as_mut() {
                Some(f) => f.read(&mut chunk)?,
                None => 0,
            };
            if n == 0 {
                self.current = None;
                continue;
            }
            buf.extend_from_slice(&chunk[..n]);
            return Ok(n);
        }
    }
}

enum Reading<'a> {
    Json(Parser<MultiReader<'a>>),
    Raw { reader: MultiReader<'a>, buf: Vec<u8>, pos: usize, eof: bool, lines: usize },
}

pub struct JqHost<'a> {
    reading: Reading<'a>,
    stderr: &'a mut dyn Write,
    slurp: bool,
    slurped: bool,
    stream: bool,
    queue: VecDeque<Value>,
    read_any: bool,
    pub open_failed: bool,
}

impl<'a> JqHost<'a> {
    pub fn new(stdin: &'a mut dyn BufRead, stderr: &'a mut dyn Write, opts: &Options) -> JqHost<'a> {
        let reader = MultiReader::new(stdin, opts.files.clone());
        let reading = if opts.raw_input { Reading::Raw { reader, buf: Vec::new(), pos: 0, eof: false, lines: 0 } } else { Reading::Json(Parser::new(reader)) };
        JqHost { reading, stderr, slurp: opts.slurp, slurped: false, stream: opts.stream, queue: VecDeque::new(), read_any: false, open_failed: false }
    }

    fn flush_open_errors(&mut self) {
        let errors = match &mut self.reading {
            Reading::Json(p) => std::mem::take(&mut p.source_mut().errors),
            Reading::Raw { reader, .. } => std::mem::take(&mut reader.errors),
        };
        for e in errors {
            self.open_failed = true;
            let _ = self.stderr.write_all(e.as_bytes());
        }
    }

    /// One line of raw input (without its newline).
    fn raw_line(&mut self, whole: bool) -> Option<Result<Value, String>> {
        let (reader, buf, pos, eof, lines) = match &mut self.reading {
            Reading::Raw { reader, buf, pos, eof, lines } => (reader, buf, pos, eof, lines),
            Reading::Json(_) => return None,
        };
        loop {
            if !whole {
                if let Some(i) = buf[*pos..].iter().position(|b| *b == b'\n') {
                    let line = String::from_utf8_lossy(&buf[*pos..*pos + i]).into_owned();
                    *pos += i + 1;
                    *lines += 1;
                    return Some(Ok(Value::string(line)));
                }
            }
            if *eof {
                if *pos >= buf.len() {
                    if whole {
                        return Some(Ok(Value::from_str("")));
                    }
                    return None;
                }
                let rest = String::from_utf8_lossy(&buf[*pos..]).into_owned();
                *pos = buf.len();
                return Some(Ok(Value::string(rest)));
            }
            if *pos > 0 && *pos == buf.len() {
                buf.clear();
                *pos = 0;
            }
            match reader.fill(buf) {
                Ok(0) => *eof = true,
                Ok(_) => {}
                Err(e) => return Some(Err(common::strerror(&e))),
            }
        }
    }

    fn next_value(&mut self) -> Option<Result<Value, String>> {
        let r = match &mut self.reading {
            Reading::Raw { .. } => self.raw_line(false),
            Reading::Json(p) => match p.next_value() {
                None => None,
                Some(Ok(v)) => Some(Ok(v)),
                Some(Err(ParseError::Syntax(m))) => Some(Err(m)),
                Some(Err(ParseError::Io(e))) => Some(Err(common::strerror(&e))),
            },
        };
        self.flush_open_errors();
        if r.is_some() {
            self.read_any = true;
        }
        r
    }

    /// The next input for the main loop (also used by `input`).
    pub fn next_main_input(&mut self) -> Option<Result<Value, String>> {
        if let Some(v) = self.queue.pop_front() {
            return Some(Ok(v));
        }
        if self.slurp {
            if self.slurped {
                return None;
            }
            self.slurped = true;
            if let Reading::Raw { .. } = self.reading {
                let r = self.raw_line(true);
                self.flush_open_errors();
                self.read_any = true;
                return r;
            }
            let mut all = Vec::new();
            while let Some(v) = self.next_value() {
                match v {
                    Ok(v) => all.push(v),
                    Err(m) => return Some(Err(m)),
                }
            }
            self.read_any = true;
            return Some(Ok(Value::array(all)));
        }
        match self.next_value()? {
            Ok(v) if self.stream => {
                let mut events = Vec::new();
                let _ = super::collections::stream_events(&v, &mut |e| {
                    events.push(e);
                    Ok(())
                });
                self.queue.extend(events);
                self.queue.pop_front().map(Ok)
            }
            other => Some(other),
        }
    }

    /// `(at <stdin>:N)` or `(at <unknown>)` before any input was read.
    pub fn location(&self) -> String {
        if !self.read_any {
            return "<unknown>".to_string();
        }
        match &self.reading {
            Reading::Json(p) => format!("{}:{}", p.source().current_name.clone().unwrap_or_else(|| "<stdin>".to_string()), p.line_for_messages()),
            Reading::Raw { reader, lines, .. } => format!("{}:{}", reader.current_name.clone().unwrap_or_else(|| "<stdin>".to_string()), lines),
        }
    }
}

impl<'a> Host for JqHost<'a> {
    fn next_input(&mut self) -> Option<Result<Value, String>> {
        self.next_main_input()
    }

    fn stderr(&mut self, bytes: &[u8]) {
        let _ = self.stderr.write_all(bytes);
        let _ = self.stderr.flush();
    }

    fn input_filename(&self) -> Value {
        let name = match &self.reading {
            Reading::Json(p) => p.source().current_name.clone(),
            Reading::Raw { reader, .. } => reader.current_name.clone(),
        };
        name.map_or(Value::Null, Value::string)
    }

    fn input_line_number(&self) -> usize {
        match &self.reading {
            Reading::Json(p) => p.line_for_messages(),
            Reading::Raw { lines, .. } => *lines,
        }
    }

    fn location(&self) -> String {
        JqHost::location(self)
    }

    fn open_failed(&self) -> bool {
        self.open_failed
    }
}

/// A host without inputs, for tests.
#[cfg(test)]
#[derive(Default)]
pub struct TestHost;

#[cfg(test)]
impl Host for TestHost {
    fn next_input(&mut self) -> Option<Result<Value, String>> {
        None
    }
    fn stderr(&mut self, _bytes: &[u8]) {}
    fn input_filename(&self) -> Value {
        Value::Null
    }
    fn input_line_number(&self) -> usize {
        0
    }
    fn location(&self) -> String {
        "<unknown>".to_string()
    }
}
