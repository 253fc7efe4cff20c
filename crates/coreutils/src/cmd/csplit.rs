//! `csplit [OPTION]... FILE PATTERN...`: GNU csplit 9.1. Patterns: a line number, or
//! `/REGEX/[OFFSET]` (up to a matching line) and `%REGEX%[OFFSET]` (skip to it), each
//! optionally followed by `{N}` or `{*}`. Prints each file's size (unless `-s`); on an
//! error removes what it created (unless `-k`). `-f PREFIX`, `-b FORMAT`, `-n DIGITS`,
//! `-z` (drop empty files), `--suppress-matched`. The line bookkeeping (which line a
//! search starts from, when a split point is out of range) follows GNU's exactly.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};

use common::args::{bytes_os, os_bytes, Parsed};
use common::cformat;
use common::io::quote;
use common::regex::{Flags, Flavor, Regex};
use common::{strerror, Command, Io, UError};

const SPEC: &str = "suffix-format,b: prefix,f: keep-files,k suppress-matched digits,n: quiet,s quiet=silent elide-empty-files,z";

const CSPLIT: Command = Command::compact("csplit", SPEC, HELP);

/// One pattern with its repeat count.
struct Control {
    argument: Vec<u8>,
    regex: Option<Regex>,
    /// `%REGEX%`: skip the lines instead of writing them.
    ignore: bool,
    offset: i64,
    line: u64,
    repeat: u64,
    forever: bool,
}

/// How the run ends early.
enum Stop {
    /// Success (a `{*}` regex ran out of input).
    Done,
    /// A fatal error: message already printed; clean up and exit 1.
    Fatal,
    /// Exit 1 at once without cleaning up (GNU's die()).
    Die(String),
}

/// The output file name pieces: PREFIX, then the number formatted by the suffix format.
struct Naming {
    prefix: Vec<u8>,
    before: Vec<u8>,
    spec: cformat::Spec,
    after: Vec<u8>,
}

impl Naming {
    fn name(&self, n: i64) -> Vec<u8> {
        let mut out = self.prefix.clone();
        out.extend_from_slice(&self.before);
        match self.spec.conversion {
            b'd' | b'i' => out.extend_from_slice(&cformat::format_signed(&self.spec, n)),
            _ => out.extend_from_slice(&cformat::format_unsigned(&self.spec, n as u64)),
        }
        out.extend_from_slice(&self.after);
        out
    }
}

struct Splitter<'a, 'io> {
    io: &'a mut Io<'io>,
    lines: Vec<&'a [u8]>,
    first_available: u64,
    current_line: u64,
    naming: Naming,
    files_created: i64,
    output: Option<(File, Vec<u8>)>,
    bytes_written: u64,
    keep: bool,
    quiet: bool,
    elide: bool,
    suppress_matched: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut keep, mut quiet, mut elide, mut suppress) = (false, false, false, false);
    let mut prefix = b"xx".to_vec();
    let mut format: Option<Vec<u8>> = None;
    let mut digits: usize = 2;
    let mut operands: Vec<Vec<u8>> = Vec::new();
    CSPLIT.options(&args, io, &mut |_, p| {
        match p {
            Parsed::Opt { id: "suffix-format", value } => format = value.map(|v| os_bytes(&v).to_vec()),
            Parsed::Opt { id: "prefix", value } => prefix = value.map(|v| os_bytes(&v).to_vec()).unwrap_or_default(),
            Parsed::Opt { id: "keep-files", .. } => keep = true,
            Parsed::Opt { id: "suppress-matched", .. } => suppress = true,
            Parsed::Opt { id: "digits", value } => {
                let text = value.unwrap_or_default();
                match text.to_str().and_then(|t| t.parse::<usize>().ok()) {
                    Some(d) => digits = d,
                    None => {
                        return Err(UError::new(1, format!("invalid number: {}", quote(&text))));
                    }
                }
            }
            Parsed::Opt { id: "quiet", .. } => quiet = true,
            Parsed::Opt { id: "elide-empty-files", .. } => elide = true,
            Parsed::Opt { .. } => {}
            Parsed::Operand(o) => operands.push(os_bytes(&o).to_vec()),
        }
        Ok(())
    })?;
    if operands.len() < 2 {
        match operands.first() {
            None => io.error("missing operand"),
            Some(f) => io.error(format!("missing operand after {}", quote(&bytes_os(f)))),
        }
        io.try_help();
        return Ok(1);
    }
    let naming = match suffix_naming(prefix, format.as_deref(), digits) {
        Ok(n) => n,
        Err(message) => {
            return Err(UError::new(1, message));
        }
    };
    let controls = match parse_patterns(&operands[1..], io) {
        Ok(c) => c,
        Err(()) => return Ok(1),
    };
    let input = &operands[0];
    let mut data = Vec::new();
    let read = if input == b"-" {
        io.stdin.read_to_end(&mut data).map(|_| ())
    } else {
        File::open(bytes_os(input)).and_then(|mut f| f.read_to_end(&mut data)).map(|_| ())
    };
    if let Err(e) = read {
        return Err(UError::new(1, format!("cannot open {} for reading: {}", quote(&bytes_os(input)), strerror(&e))));
    }
    let lines: Vec<&[u8]> = data.split_inclusive(|c| *c == b'\n').collect();
    let mut splitter = Splitter { io, lines, first_available: 1, current_line: 0, naming, files_created: 0, output: None, bytes_written: 0, keep, quiet, elide, suppress_matched: suppress };
    Ok(match splitter.split(&controls) {
        Ok(()) | Err(Stop::Done) => 0,
        Err(Stop::Fatal) => {
            splitter.close_output();
            splitter.delete_all();
            1
        }
        Err(Stop::Die(message)) => {
            splitter.io.error(message);
            1
        }
    })
}

/// PREFIX plus `-b FORMAT` (one %d/%i/%u/%o/%x/%X) or `%0<digits>d`.
fn suffix_naming(prefix: Vec<u8>, format: Option<&[u8]>, digits: usize) -> Result<Naming, String> {
    let format = match format {
        None => {
            let spec = cformat::Spec { zero: true, width: Some(digits), conversion: b'd', ..cformat::Spec::default() };
            return Ok(Naming { prefix, before: Vec::new(), spec, after: Vec::new() });
        }
        Some(f) => f,
    };
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut spec: Option<cformat::Spec> = None;
    let mut i = 0;
    while i < format.len() {
        let target = if spec.is_some() { &mut after } else { &mut before };
        if format[i] != b'%' {
            target.push(format[i]);
            i += 1;
            continue;
        }
        if format.get(i + 1) == Some(&b'%') {
            target.push(b'%');
            i += 2;
            continue;
        }
        if spec.is_some() {
            return Err("too many % conversion specifications in suffix".to_string());
        }
        let mut j = i + 1;
        while j < format.len() && b"-0'#".contains(&format[j]) {
            j += 1;
        }
        while j < format.len() && format[j].is_ascii_digit() {
            j += 1;
        }
        if format.get(j) == Some(&b'.') {
            j += 1;
            while j < format.len() && format[j].is_ascii_digit() {
                j += 1;
            }
        }
        match format.get(j) {
            None => return Err("missing conversion specifier in suffix".to_string()),
            Some(c) if b"diuoxX".contains(c) => {}
            Some(c) if c.is_ascii_graphic() => return Err(format!("invalid conversion specifier in suffix: {}", *c as char)),
            Some(c) => return Err(format!("invalid conversion specifier in suffix: \\{:03o}", c)),
        }
        let mut directive = format[i + 1..=j].to_vec();
        if let Some(last) = directive.last_mut() {
            if *last == b'u' {
                *last = b'd';
            }
        }
        spec = cformat::parse_directive(&directive, b"dioxX").map(|d| d.spec);
        if spec.is_none() {
            return Err(format!("invalid conversion specifier in suffix: {}", format[j] as char));
        }
        i = j + 1;
    }
    match spec {
        Some(spec) => Ok(Naming { prefix, before, spec, after }),
        None => Err("missing % conversion specification in suffix".to_string()),
    }
}

fn parse_patterns(args: &[Vec<u8>], io: &mut Io) -> Result<Vec<Control>, ()> {
    let mut controls: Vec<Control> = Vec::new();
    let mut last_line = 0u64;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let mut control = Control { argument: arg.clone(), regex: None, ignore: false, offset: 0, line: 0, repeat: 0, forever: false };
        if arg.first() == Some(&b'/') || arg.first() == Some(&b'%') {
            let delimiter = arg[0];
            let close = match arg[1..].iter().rposition(|c| *c == delimiter) {
                Some(p) => p + 1,
                None => {
                    io.error(format!("{}: closing delimiter '{}' missing", String::from_utf8_lossy(arg), delimiter as char));
                    return Err(());
                }
            };
            control.ignore = delimiter == b'%';
            match Regex::new(&arg[1..close], Flavor::Basic, Flags::default()) {
                Ok(re) => control.regex = Some(re),
                Err(e) => {
                    io.error(format!("{}: invalid regular expression: {}", quote(&bytes_os(arg)), e));
                    return Err(());
                }
            }
            let rest = &arg[close + 1..];
            if !rest.is_empty() {
                let text = String::from_utf8_lossy(rest);
                let text = text.strip_prefix('+').unwrap_or(&text);
                match text.parse::<i64>() {
                    Ok(o) if !text.starts_with(' ') => control.offset = o,
                    _ => {
                        io.error(format!("{}: integer expected after delimiter", quote(&bytes_os(arg))));
                        return Err(());
                    }
                }
            }
        } else {
            let text = String::from_utf8_lossy(arg);
            let value = match text.parse::<u64>() {
                Ok(v) if text.bytes().all(|c| c.is_ascii_digit()) => v,
                _ => {
                    io.error(format!("{}: invalid pattern", quote(&bytes_os(arg))));
                    return Err(());
                }
            };
            if value == 0 {
                io.error(format!("{}: line number must be greater than zero", text));
                return Err(());
            }
            if value < last_line {
                io.error(format!("line number {} is smaller than preceding line number, {}", quote(&bytes_os(arg)), last_line));
                return Err(());
            }
            if value == last_line {
                io.error(format!("warning: line number {} is the same as preceding line number", quote(&bytes_os(arg))));
            }
            last_line = value;
            control.line = value;
        }
        if let Some(next) = args.get(i + 1).filter(|n| n.first() == Some(&b'{')) {
            i += 1;
            if next.last() != Some(&b'}') {
                io.error(format!("{}: '}}' is required in repeat count", quote(&bytes_os(next))));
                return Err(());
            }
            let inner = &next[1..next.len() - 1];
            if inner == b"*" {
                control.forever = true;
            } else {
                match std::str::from_utf8(inner).ok().filter(|t| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit())).and_then(|t| t.parse::<u64>().ok()) {
                    Some(n) => control.repeat = n,
                    None => {
                        io.error(format!("{}}}: integer required between '{{' and '}}'", quote(&bytes_os(&next[..next.len() - 1]))));
                        return Err(());
                    }
                }
            }
        }
        controls.push(control);
        i += 1;
    }
    Ok(controls)
}

impl<'a, 'io> Splitter<'a, 'io> {
    fn line_count(&self) -> u64 {
        self.lines.len() as u64
    }

    fn remove_line(&mut self) -> Option<&'a [u8]> {
        if self.first_available > self.line_count() {
            return None;
        }
        if self.current_line < self.first_available {
            self.current_line = self.first_available;
        }
        let line = self.lines[self.first_available as usize - 1];
        self.first_available += 1;
        Some(line)
    }

    fn find_line(&self, n: u64) -> Option<&'a [u8]> {
        if n == 0 || n > self.line_count() {
            return None;
        }
        Some(self.lines[n as usize - 1])
    }

    fn no_more_lines(&self) -> bool {
        self.find_line(self.current_line + 1).is_none()
    }

    fn first_line_in_buffer(&self) -> Result<u64, Stop> {
        if self.first_available > self.line_count() {
            return Err(Stop::Die("input disappeared".to_string()));
        }
        Ok(self.first_available)
    }

    fn create_output(&mut self) -> Result<(), Stop> {
        let name = self.naming.name(self.files_created);
        match File::create(bytes_os(&name)) {
            Ok(f) => {
                self.files_created += 1;
                self.output = Some((f, name));
                self.bytes_written = 0;
                Ok(())
            }
            Err(e) => {
                self.io.error(format!("{}: {}", String::from_utf8_lossy(&name), strerror(&e)));
                Err(Stop::Fatal)
            }
        }
    }

    fn close_output(&mut self) {
        if let Some((file, name)) = self.output.take() {
            drop(file);
            if self.bytes_written == 0 && self.elide {
                let _ = std::fs::remove_file(bytes_os(&name));
                self.files_created -= 1;
            } else if !self.quiet {
                let _ = self.io.out(format!("{}\n", self.bytes_written).as_bytes());
            }
        }
    }

    fn delete_all(&mut self) {
        if self.keep {
            return;
        }
        for i in (0..self.files_created).rev() {
            let _ = std::fs::remove_file(bytes_os(&self.naming.name(i)));
        }
        self.files_created = 0;
    }

    fn save(&mut self, line: &[u8]) -> Result<(), Stop> {
        if let Some((file, name)) = self.output.as_mut() {
            if let Err(e) = file.write_all(line) {
                let message = format!("write error for {}: {}", quote(&bytes_os(name)), strerror(&e));
                self.io.error(message);
                return Err(Stop::Fatal);
            }
        }
        self.bytes_written += line.len() as u64;
        Ok(())
    }

    fn dump_rest(&mut self) -> Result<(), Stop> {
        while let Some(line) = self.remove_line() {
            self.save(line)?;
        }
        Ok(())
    }

    fn split(&mut self, controls: &[Control]) -> Result<(), Stop> {
        for control in controls {
            let mut repetition = 0u64;
            while control.forever || repetition <= control.repeat {
                if control.regex.is_some() {
                    self.process_regex(control, repetition)?;
                } else {
                    self.process_line_count(control, repetition)?;
                }
                repetition += 1;
            }
        }
        self.create_output()?;
        self.dump_rest()?;
        self.close_output();
        Ok(())
    }

    fn out_of_range(&mut self, what: &[u8], repetition: u64) -> Stop {
        let mut message = format!("{}: line number out of range", quote(&bytes_os(what)));
        if repetition > 0 {
            message.push_str(&format!(" on repetition {}", repetition));
        }
        self.io.error(message);
        Stop::Fatal
    }

    fn process_line_count(&mut self, control: &Control, repetition: u64) -> Result<(), Stop> {
        let last = control.line.saturating_mul(repetition + 1);
        let shown = control.line.to_string().into_bytes();
        self.create_output()?;
        if self.no_more_lines() && self.suppress_matched {
            return Err(self.out_of_range(&shown, repetition));
        }
        let mut line_number = self.first_line_in_buffer()?;
        while line_number < last {
            line_number += 1;
            match self.remove_line() {
                Some(line) => self.save(line)?,
                None => return Err(self.out_of_range(&shown, repetition)),
            }
        }
        self.close_output();
        if self.suppress_matched {
            self.remove_line();
        }
        if self.no_more_lines() && !self.suppress_matched {
            return Err(self.out_of_range(&shown, repetition));
        }
        Ok(())
    }

    fn process_regex(&mut self, control: &Control, repetition: u64) -> Result<(), Stop> {
        let regex = match &control.regex {
            Some(r) => r,
            None => return Ok(()),
        };
        if !control.ignore {
            self.create_output()?;
        }
        loop {
            self.current_line += 1;
            let line = match self.find_line(self.current_line) {
                Some(l) => l,
                None => {
                    if control.forever {
                        if !control.ignore {
                            self.dump_rest()?;
                            self.close_output();
                        }
                        return Err(Stop::Done);
                    }
                    let mut message = format!("{}: match not found", quote(&bytes_os(&control.argument)));
                    if repetition > 0 {
                        message.push_str(&format!(" on repetition {}", repetition));
                    }
                    self.io.error(message);
                    if !control.ignore {
                        self.dump_rest()?;
                        self.close_output();
                    }
                    return Err(Stop::Fatal);
                }
            };
            let text = line.strip_suffix(b"\n").unwrap_or(line);
            if regex.is_match(text) {
                break;
            }
            if control.offset >= 0 {
                let removed = self.remove_line();
                if let (false, Some(l)) = (control.ignore, removed) {
                    self.save(l)?;
                }
            }
        }
        let break_line = self.current_line as i64 + control.offset;
        // write_to_file: everything before BREAK_LINE goes to this piece.
        let first = self.first_line_in_buffer()? as i64;
        if first > break_line {
            return Err(self.out_of_range(&control.argument, 0));
        }
        for _ in 0..(break_line - first) {
            match self.remove_line() {
                Some(l) => {
                    if !control.ignore {
                        self.save(l)?;
                    }
                }
                None => return Err(self.out_of_range(&control.argument, 0)),
            }
        }
        if !control.ignore {
            self.close_output();
        }
        if control.offset > 0 {
            self.current_line = break_line as u64;
        }
        if self.suppress_matched {
            self.remove_line();
        }
        Ok(())
    }
}

const HELP: &str = "Usage: {} [OPTION]... FILE PATTERN...\nOutput pieces of FILE separated by PATTERN(s) to files 'xx00', 'xx01', ...,\nand output byte counts of each piece to standard output.\n\nRead standard input if FILE is -\n\n  -b, --suffix-format=FORMAT  use sprintf FORMAT instead of %02d\n  -f, --prefix=PREFIX        use PREFIX instead of 'xx'\n  -k, --keep-files           do not remove output files on errors\n      --suppress-matched     suppress the lines matching PATTERN\n  -n, --digits=DIGITS        use specified number of digits instead of 2\n  -s, --quiet, --silent      do not print counts of output file sizes\n  -z, --elide-empty-files    suppress empty output files\n{standard}\nEach PATTERN may be:\n  INTEGER            copy up to but not including specified line number\n  /REGEXP/[OFFSET]   copy up to but not including a matching line\n  %REGEXP%[OFFSET]   skip to, but not including a matching line\n  {INTEGER}          repeat the previous pattern specified number of times\n  {*}                repeat the previous pattern as many times as possible\n\nA line OFFSET is an integer optionally preceded by '+' or '-'\n";
