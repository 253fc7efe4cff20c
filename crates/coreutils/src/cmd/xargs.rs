//! command: xargs
//! `xargs`: builds command lines from items read from standard input (or -a FILE) and
//! runs them (GNU findutils 4.9): blank-separated items with quotes and backslashes, or
//! -0 / -d DELIM; batches limited by -n, -L/-l, -s (131072 bytes by default, counted as
//! GNU does), -I/-i replacement, -E end marker, -r, -t, -x. The command (echo by default)
//! gets /dev/null as input. -P runs one command at a time. Exit 123 if a command exited
//! 1-125, 124 if one exited 255, 125 if one was killed, 126/127 if it could not run.

#[path = "xargs/input.rs"]
mod input;

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};

use common::args::{bytes_os, os_bytes, Order};
use common::quotearg::shell_quote;
use common::spawn::{Command, Exit};
use common::{strerror, Io, UError};

use input::{Item, Mode, Reader};

const SPEC: &str = "null,0 arg-file,a: delimiter,d: E: eof,e:: I: replace,i:: L: max-lines,l:: max-args,n: open-tty,o interactive,p max-procs,P: no-run-if-empty,r max-chars,s: verbose,t exit,x process-slot-var: show-limits";

const HELP: &str = "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...
Run COMMAND with arguments INITIAL-ARGS and more arguments read from input.

Mandatory and optional arguments to long options are also
mandatory or optional for the corresponding short option.
  -0, --null                   items are separated by a null, not whitespace;
                                 disables quote and backslash processing and
                                 logical EOF processing
  -a, --arg-file=FILE          read arguments from FILE, not standard input
  -d, --delimiter=CHARACTER    items in input stream are separated by CHARACTER,
                                 not by whitespace; disables quote and backslash
                                 processing and logical EOF processing
  -E END                       set logical EOF string; if END occurs as a line
                                 of input, the rest of the input is ignored
                                 (ignored if -0 or -d was specified)
  -e, --eof[=END]              equivalent to -E END if END is specified;
                                 otherwise, there is no end-of-file string
  -I R                         same as --replace=R
  -i, --replace[=R]            replace R in INITIAL-ARGS with names read
                                 from standard input, split at newlines;
                                 if R is unspecified, assume {}
  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank input lines per
                                 command line
  -l[MAX-LINES]                similar to -L but defaults to at most one non-
                                 blank input line if MAX-LINES is not specified
  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per command line
  -P, --max-procs=MAX-PROCS    accepted; the sandbox runs one command at a time
  -p, --interactive            not supported: there is no terminal to ask
      --process-slot-var=VAR   set environment variable VAR in child processes
  -r, --no-run-if-empty        if there are no arguments, then do not run COMMAND;
                                 if this option is not given, COMMAND will be
                                 run at least once
  -s, --max-chars=MAX-CHARS    limit length of command line to MAX-CHARS
      --show-limits            show limits on command-line length
  -t, --verbose                print commands before executing them
  -x, --exit                   exit if the size (see -s) is exceeded
      --help                   display this help and exit
      --version                output version information and exit
";

/// GNU's: the options end at the command (`xargs grep -n x` passes -n to grep).
const XARGS: common::Command = common::Command { order: Order::RequireOrder, ..common::Command::compact("xargs", SPEC, HELP) };

/// POSIX ARG_MAX as this machine reports it; the buffer actually used is 128 KiB.
const ARG_LIMIT: usize = 2_093_828;
const DEFAULT_CHARS: usize = 131_072;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Batch {
    Args(usize),
    Lines(usize),
    None,
}

struct Settings {
    command: Vec<Vec<u8>>,
    batch: Batch,
    replace: Option<Vec<u8>>,
    max_chars: usize,
    exit_if_too_long: bool,
    no_run_if_empty: bool,
    verbose: bool,
    slot_var: Option<OsString>,
    stdin_null: bool,
}

fn count(text: &str, option: &str, min: usize) -> Result<usize, UError> {
    match text.parse::<u64>() {
        Ok(n) if (n as usize) < min => Err(UError::usage(1, format!("value {} for -{} option should be >= {}", n, option, min))),
        Ok(n) => Ok(n.min(usize::MAX as u64) as usize),
        Err(_) => Err(UError::usage(1, format!("invalid number \"{}\" for -{} option", text, option))),
    }
}

/// -s: GNU takes a number out of range as the nearest bound, with a warning.
fn max_chars(io: &mut Io, text: &str) -> Result<usize, UError> {
    let n = match text.parse::<u64>() {
        Ok(0) => {
            io.error("value 0 for -s option should be >= 1");
            1
        }
        _ => count(text, "s", 1)?,
    };
    if n > ARG_LIMIT {
        io.error(format!("value {} for -s option should be <= {}", n, ARG_LIMIT));
    }
    Ok(n.min(ARG_LIMIT))
}

/// `-d` accepts one character or an escape: \n \t \\ \0, octal \NNN, hex \xHH.
fn delimiter(spec: &[u8]) -> Option<u8> {
    if spec.len() == 1 {
        return Some(spec[0]);
    }
    if spec.first() != Some(&b'\\') {
        return None;
    }
    let rest = &spec[1..];
    let simple = match rest {
        b"a" => Some(7),
        b"b" => Some(8),
        b"f" => Some(12),
        b"n" => Some(b'\n'),
        b"r" => Some(b'\r'),
        b"t" => Some(b'\t'),
        b"v" => Some(11),
        b"\\" => Some(b'\\'),
        _ => None,
    };
    if simple.is_some() {
        return simple;
    }
    let text = std::str::from_utf8(rest).ok()?;
    let value = if let Some(hex) = text.strip_prefix('x') {
        u32::from_str_radix(hex, 16).ok()?
    } else {
        u32::from_str_radix(text, 8).ok()?
    };
    u8::try_from(value).ok()
}

/// What the options ask for besides the batch settings.
struct Input {
    mode: Mode,
    eof: Option<Vec<u8>>,
    arg_file: Option<OsString>,
    show_limits: bool,
}

/// One option, in the order GNU's getopt loop meets them (later ones override or warn).
fn option(io: &mut Io, s: &mut Settings, input: &mut Input, id: &str, value: Option<OsString>) -> Result<(), UError> {
    let bytes = value.as_ref().map(|v| os_bytes(v).to_vec());
    let text = bytes.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
    match id {
        "null" => input.mode = Mode::Delimited(0),
        "arg-file" => input.arg_file = value,
        "delimiter" => match delimiter(bytes.as_deref().unwrap_or(b"")) {
            Some(d) => input.mode = Mode::Delimited(d),
            None => return Err(UError::new(1, format!("Invalid input delimiter specification {}: the delimiter must be either a single character or an escape sequence starting with \\.", text))),
        },
        "E" | "eof" => input.eof = bytes.filter(|b| !b.is_empty()),
        "I" | "replace" => {
            if let Batch::Args(_) = s.batch {
                io.error("warning: options --max-args and --replace/-I/-i are mutually exclusive, ignoring previous --max-args value");
            }
            s.replace = Some(bytes.filter(|b| !b.is_empty() || id == "I").unwrap_or_else(|| b"{}".to_vec()));
            s.batch = Batch::Lines(1);
            s.exit_if_too_long = true;
        }
        "L" | "max-lines" => {
            let n = if id == "max-lines" && value.is_none() { 1 } else { count(&text, if id == "L" { "L" } else { "l" }, 1)? };
            if let Batch::Args(_) = s.batch {
                io.error("warning: options --max-args and -L are mutually exclusive, ignoring previous --max-args value");
            }
            if s.replace.take().is_some() {
                io.error("warning: options --replace and -L are mutually exclusive, ignoring previous --replace value");
            }
            s.batch = Batch::Lines(n);
            s.exit_if_too_long = true;
        }
        "max-args" => {
            let n = count(&text, "n", 1)?;
            if s.replace.take().is_some() {
                io.error("warning: options --replace and --max-args/-n are mutually exclusive, ignoring previous --replace value");
            } else if let Batch::Lines(_) = s.batch {
                io.error("warning: options --max-lines and --max-args/-n are mutually exclusive, ignoring previous --max-lines value");
            }
            s.batch = Batch::Args(n);
        }
        "max-procs" => {
            count(&text, "P", 0)?;
        }
        "no-run-if-empty" => s.no_run_if_empty = true,
        "max-chars" => s.max_chars = max_chars(io, &text)?,
        "verbose" => s.verbose = true,
        "exit" => s.exit_if_too_long = true,
        "process-slot-var" => s.slot_var = value,
        "show-limits" => input.show_limits = true,
        "interactive" => return Err(UError::usage(1, "option not supported in the sandbox: --interactive (there is no terminal to ask)")),
        "open-tty" => return Err(UError::usage(1, "option not supported in the sandbox: --open-tty")),
        _ => {}
    }
    Ok(())
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut input = Input { mode: Mode::Blank, eof: None, arg_file: None, show_limits: false };
    let mut s = Settings { command: Vec::new(), batch: Batch::None, replace: None, max_chars: DEFAULT_CHARS, exit_if_too_long: false, no_run_if_empty: false, verbose: false, slot_var: None, stdin_null: true };
    let command = XARGS.operands(&args, io, &mut |io, id, value| option(io, &mut s, &mut input, id, value))?;
    s.command = command.iter().map(|word| os_bytes(word).to_vec()).collect();
    if s.command.is_empty() {
        s.command.push(b"echo".to_vec());
    }
    if input.show_limits {
        let env: usize = std::env::vars_os().map(|(k, v)| os_bytes(&k).len() + os_bytes(&v).len() + 2).sum();
        let _ = write!(
            io.stderr,
            "Your environment variables take up {} bytes\nPOSIX upper limit on argument length (this system): {}\nPOSIX smallest allowable upper limit on argument length (all systems): 4096\nMaximum length of command we could actually use: {}\nSize of command buffer we are actually using: {}\nMaximum parallelism (--max-procs must be no greater): 1\n",
            env,
            ARG_LIMIT,
            ARG_LIMIT.saturating_sub(env),
            s.max_chars
        );
    }
    let eof = match input.mode {
        Mode::Delimited(_) => None,
        Mode::Blank => input.eof,
    };
    let mut file_reader;
    let reader: &mut dyn BufRead = match &input.arg_file {
        Some(name) if os_bytes(name) != b"-" => {
            let file = std::fs::File::open(name).map_err(|e| UError::new(1, format!("Cannot open input file \u{2018}{}\u{2019}: {}", name.to_string_lossy(), strerror(&e))))?;
            s.stdin_null = false;
            file_reader = BufReader::new(file);
            &mut file_reader
        }
        _ => io.stdin,
    };
    let insert = s.replace.is_some();
    let mut items = Reader::new(reader, input.mode, eof, insert);
    let mut driver = Driver { s: &s, out: io.stdout, trace: if s.verbose { Some(&mut *io.stderr) } else { None }, status: 0, ran: false };
    driver.main(&mut items)?;
    Ok(driver.status)
}

struct Driver<'s, 'o> {
    s: &'s Settings,
    out: &'o mut dyn Write,
    /// Where -t prints each command; None without -t.
    trace: Option<&'o mut dyn Write>,
    status: i32,
    ran: bool,
}

fn too_long() -> UError {
    UError::new(1, "argument line too long")
}

fn size_of(args: &[Vec<u8>]) -> usize {
    args.iter().map(|a| a.len() + 1).sum()
}

impl<'s, 'o> Driver<'s, 'o> {
    fn main(&mut self, input: &mut Reader) -> Result<(), UError> {
        let base = size_of(&self.s.command);
        if base > self.s.max_chars {
            return Err(UError::new(1, "cannot fit single argument within argument list size limit"));
        }
        let mut args: Vec<Vec<u8>> = Vec::new();
        let mut size = base;
        let mut lines = 0;
        loop {
            let item = match input.next() {
                Ok(Some(item)) => item,
                Ok(None) => break,
                Err(message) => {
                    if !args.is_empty() {
                        self.execute(&args)?;
                    }
                    return Err(UError::new(1, message));
                }
            };
            if self.s.replace.is_some() {
                self.insert(item)?;
                continue;
            }
            let Item { bytes, ends_line } = item;
            if size + bytes.len() + 1 > self.s.max_chars {
                if args.is_empty() || (self.s.exit_if_too_long && self.s.batch != Batch::None) {
                    return Err(too_long());
                }
                self.execute(&args)?;
                args.clear();
                size = base;
                lines = 0;
                if size + bytes.len() + 1 > self.s.max_chars {
                    return Err(too_long());
                }
            }
            size += bytes.len() + 1;
            args.push(bytes);
            if ends_line {
                lines += 1;
            }
            let full = match self.s.batch {
                Batch::Args(n) => args.len() >= n,
                Batch::Lines(n) => lines >= n,
                Batch::None => false,
            };
            if full {
                self.execute(&args)?;
                args.clear();
                size = base;
                lines = 0;
            }
        }
        if !args.is_empty() || (!self.ran && !self.s.no_run_if_empty && self.s.replace.is_none()) {
            self.execute(&args)?;
        }
        Ok(())
    }

    /// -I: one command per item, the item replacing the marker in the initial arguments.
    fn insert(&mut self, item: Item) -> Result<(), UError> {
        let marker = self.s.replace.clone().unwrap_or_default();
        let mut argv = Vec::with_capacity(self.s.command.len());
        for (k, word) in self.s.command.iter().enumerate() {
            // GNU replaces in the initial arguments, never in the command name.
            if marker.is_empty() || k == 0 {
                argv.push(word.clone());
                continue;
            }
            let mut out = Vec::new();
            let mut i = 0;
            while i < word.len() {
                if word[i..].starts_with(&marker) {
                    out.extend_from_slice(&item.bytes);
                    i += marker.len();
                } else {
                    out.push(word[i]);
                    i += 1;
                }
            }
            argv.push(out);
        }
        if size_of(&argv) > self.s.max_chars {
            return Err(too_long());
        }
        self.spawn(argv)
    }

    fn execute(&mut self, args: &[Vec<u8>]) -> Result<(), UError> {
        let mut argv = self.s.command.clone();
        argv.extend_from_slice(args);
        self.spawn(argv)
    }

    fn spawn(&mut self, argv: Vec<Vec<u8>>) -> Result<(), UError> {
        self.ran = true;
        if let Some(trace) = self.trace.as_mut() {
            let mut line = Vec::new();
            for (i, a) in argv.iter().enumerate() {
                if i > 0 {
                    line.push(b' ');
                }
                line.extend_from_slice(&shell_quote(a));
            }
            line.push(b'\n');
            let _ = trace.write_all(&line);
        }
        let _ = self.out.flush();
        let program = String::from_utf8_lossy(&argv[0]).into_owned();
        let mut cmd = Command::new(argv.iter().map(|a| bytes_os(a)).collect()).stdin_null(self.s.stdin_null);
        if let Some(var) = &self.s.slot_var {
            cmd = cmd.env(var.clone(), OsString::from("0"));
        }
        match cmd.run() {
            Ok(Exit::Code(0)) => Ok(()),
            Ok(Exit::Code(255)) => {
                Err(UError::new(124, format!("{}: exited with status 255; aborting", program)))
            }
            // Any other status (the sandbox also reports signals as 128+N) counts as a
            // failed command, which GNU reports as 123 at the end.
            Ok(Exit::Code(_)) => {
                self.status = 123;
                Ok(())
            }
            Ok(Exit::Signal(sig)) => {
                Err(UError::new(125, format!("{}: terminated by signal {}", program, sig)))
            }
            Err(e) => {
                Err(UError::io(if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 }, program, &e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters() {
        assert_eq!(delimiter(b","), Some(b','));
        assert_eq!(delimiter(b"\\n"), Some(b'\n'));
        assert_eq!(delimiter(b"\\x41"), Some(b'A'));
        assert_eq!(delimiter(b"\\012"), Some(b'\n'));
        assert_eq!(delimiter(b"xy"), None);
    }
}
