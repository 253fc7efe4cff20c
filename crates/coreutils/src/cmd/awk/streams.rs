//! Named streams: output redirections (`> file`, `>> file`, `| cmd`) and getline sources
//! (`< file`, `cmd |`), kept open until `close()` or exit, as awk requires. `/dev/stdout`,
//! `/dev/stderr` and `-` name the process's own streams so output stays in order with
//! plain `print`.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};

use common::shellcmd::{self, Direction, ShellChild};

use super::ast::Redirect;
use super::input::{RecordReader, RsMode};

pub enum Sink {
    Stdout,
    Stderr,
    File(BufWriter<File>),
    Pipe(BufWriter<ShellChild>),
}

struct Output {
    name: Vec<u8>,
    sink: Sink,
}

enum Source {
    Stdin,
    File(File),
    Command(ShellChild),
}

struct InputStream {
    name: Vec<u8>,
    source: Source,
    reader: RecordReader,
}

#[derive(Default)]
pub struct Streams {
    outputs: Vec<Output>,
    inputs: Vec<InputStream>,
}

/// What a getline from a named source produced.
pub enum ReadResult {
    Record,
    Eof,
    /// The source could not be opened or read: getline returns -1.
    Error,
}

fn special_output(name: &[u8]) -> Option<Sink> {
    match name {
        b"/dev/stdout" | b"-" | b"/dev/fd/1" => Some(Sink::Stdout),
        b"/dev/stderr" | b"/dev/fd/2" => Some(Sink::Stderr),
        _ => None,
    }
}

fn path(name: &[u8]) -> std::ffi::OsString {
    common::args::bytes_os(name)
}

impl Streams {
    pub fn is_open(&self, name: &[u8]) -> bool {
        self.outputs.iter().any(|o| o.name == name)
    }

    /// The sink for a redirection, opened on first use. Callers must flush stdout before
    /// a pipe is started (the child writes to the same stdout).
    pub fn sink(&mut self, kind: Redirect, name: &[u8], env: &[Vec<u8>]) -> io::Result<&mut Sink> {
        let index = match self.outputs.iter().position(|o| o.name == name) {
            Some(i) => i,
            None => {
                let sink = match (kind, special_output(name)) {
                    (Redirect::Pipe, _) => Sink::Pipe(BufWriter::new(shellcmd::spawn(name, Direction::ToChild, Some(env))?)),
                    (_, Some(sink)) => sink,
                    (Redirect::File, None) => Sink::File(BufWriter::new(File::create(path(name))?)),
                    (Redirect::Append, None) => Sink::File(BufWriter::new(OpenOptions::new().append(true).create(true).open(path(name))?)),
                };
                self.outputs.push(Output { name: name.to_vec(), sink });
                self.outputs.len() - 1
            }
        };
        Ok(&mut self.outputs[index].sink)
    }

    /// Reads the next record from the named file (`< name`) or command (`name |`).
    /// `stdin` and `stdin_reader` serve `-` and `/dev/stdin`.
    #[allow(clippy::too_many_arguments)]
    pub fn read_record(
        &mut self,
        name: &[u8],
        command: bool,
        env: &[Vec<u8>],
        rs: &RsMode,
        stdin: &mut dyn Read,
        stdin_reader: &mut RecordReader,
        out: &mut Vec<u8>,
        rt: &mut Vec<u8>,
    ) -> ReadResult {
        let index = match self.inputs.iter().position(|i| i.name == name) {
            Some(i) => i,
            None => {
                let source = if command {
                    match shellcmd::spawn(name, Direction::FromChild, Some(env)) {
                        Ok(child) => Source::Command(child),
                        Err(_) => return ReadResult::Error,
                    }
                } else if name == b"-" || name == b"/dev/stdin" || name == b"/dev/fd/0" {
                    Source::Stdin
                } else {
                    match File::open(path(name)) {
                        Ok(f) if f.metadata().map(|m| m.is_dir()).unwrap_or(false) => return ReadResult::Error,
                        Ok(f) => Source::File(f),
                        Err(_) => return ReadResult::Error,
                    }
                };
                self.inputs.push(InputStream { name: name.to_vec(), source, reader: RecordReader::new() });
                self.inputs.len() - 1
            }
        };
        let stream = &mut self.inputs[index];
        let result = match &mut stream.source {
            Source::Stdin => stdin_reader.read_record(stdin, rs, out, rt),
            Source::File(f) => stream.reader.read_record(f, rs, out, rt),
            Source::Command(c) => stream.reader.read_record(c, rs, out, rt),
        };
        match result {
            Ok(true) => ReadResult::Record,
            Ok(false) => ReadResult::Eof,
            Err(_) => ReadResult::Error,
        }
    }

    /// close(name): the command's exit status for pipes, 0 for files, -1 if not open.
    pub fn close(&mut self, name: &[u8], stdout: &mut dyn Write) -> i32 {
        let mut result = -1;
        if let Some(i) = self.outputs.iter().position(|o| o.name == name) {
            let output = self.outputs.remove(i);
            result = close_sink(output.sink, stdout);
        }
        if let Some(i) = self.inputs.iter().position(|o| o.name == name) {
            let input = self.inputs.remove(i);
            result = match input.source {
                Source::Command(child) => child.close().unwrap_or(-1),
                _ => 0,
            };
        }
        result
    }

    /// fflush(name): 0, or -1 if no such output is open.
    pub fn flush(&mut self, name: &[u8], stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
        match self.outputs.iter_mut().find(|o| o.name == name) {
            Some(output) => match flush_sink(&mut output.sink, stdout, stderr) {
                Ok(()) => 0,
                Err(_) => -1,
            },
            None => -1,
        }
    }

    /// Flushes every output (before system(), a pipe is opened, fflush()).
    pub fn flush_all(&mut self, stdout: &mut dyn Write, stderr: &mut dyn Write) {
        let _ = stdout.flush();
        for output in &mut self.outputs {
            let _ = flush_sink(&mut output.sink, stdout, stderr);
        }
    }

    /// Closes everything at exit: pipes are waited for, so their output comes first.
    pub fn close_all(&mut self, stdout: &mut dyn Write) {
        for output in self.outputs.drain(..) {
            close_sink(output.sink, stdout);
        }
        for input in self.inputs.drain(..) {
            if let Source::Command(child) = input.source {
                let _ = child.close();
            }
        }
    }
}

fn flush_sink(sink: &mut Sink, stdout: &mut dyn Write, stderr: &mut dyn Write) -> io::Result<()> {
    match sink {
        Sink::Stdout => stdout.flush(),
        Sink::Stderr => stderr.flush(),
        Sink::File(f) => f.flush(),
        Sink::Pipe(p) => p.flush(),
    }
}

fn close_sink(sink: Sink, stdout: &mut dyn Write) -> i32 {
    match sink {
        Sink::Stdout => {
            let _ = stdout.flush();
            0
        }
        Sink::Stderr => 0,
        Sink::File(mut f) => {
            if f.flush().is_ok() {
                0
            } else {
                -1
            }
        }
        Sink::Pipe(p) => {
            // Our buffered stdout is not flushed first: gawk writes it at exit, after
            // the commands' output.
            match p.into_inner() {
                Ok(child) => child.close().unwrap_or(-1),
                Err(e) => {
                    let (_, writer) = e.into_parts();
                    let (child, _) = writer.into_parts();
                    child.close().unwrap_or(-1)
                }
            }
        }
    }
}
