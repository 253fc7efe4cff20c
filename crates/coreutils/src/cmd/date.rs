//! `date [OPTION]... [+FORMAT]`: GNU date. Prints now, `-d STRING` (parse-datetime's common
//! forms, see date/parse.rs), each line of `-f FILE`, or `-r FILE`'s modification time, in
//! `+FORMAT` (common::strftime), `-I[TIMESPEC]`, `-R`, `--rfc-3339=TIMESPEC` or the default
//! format. The sandbox has no timezone database: local time is UTC or the fixed offset `TZ`
//! gives; `-u` is UTC. Setting the clock (`-s`, `MMDDhhmm`) is not permitted there.

#[path = "date/parse.rs"]
mod parse;

use std::ffi::OsString;

use common::args::{os_bytes, Command, Parsed};
use common::strftime::{format, Moment};
use common::timefmt::{local_offset, local_zone, now};
use common::{Io, UError};

const SPEC: &str = "date,d: file,f: iso=I,iso-8601:: rfc-email,R rfc-email=rfc-822 rfc-email=rfc-2822 rfc-3339: reference,r: set,s: utc,u utc=universal utc=uct debug help version";

const DEFAULT_FORMAT: &str = "%a %b %e %H:%M:%S %Z %Y";

/// GNU's quote() in a UTF-8 locale.
fn q(text: &[u8]) -> String {
    format!("\u{2018}{}\u{2019}", String::from_utf8_lossy(text))
}

/// `--iso-8601`/`--rfc-3339` argument → format; GNU accepts unambiguous abbreviations.
fn timespec_format(value: &[u8], option: &str, io: &mut Io) -> Result<String, i32> {
    let iso = option == "iso-8601";
    let choices: &[(&str, &str)] = if iso {
        &[("hours", "%Y-%m-%dT%H%:z"), ("minutes", "%Y-%m-%dT%H:%M%:z"), ("date", "%Y-%m-%d"), ("seconds", "%Y-%m-%dT%H:%M:%S%:z"), ("ns", "%Y-%m-%dT%H:%M:%S,%N%:z")]
    } else {
        &[("date", "%Y-%m-%d"), ("seconds", "%Y-%m-%d %H:%M:%S%:z"), ("ns", "%Y-%m-%d %H:%M:%S.%N%:z")]
    };
    let text = String::from_utf8_lossy(value);
    let matches: Vec<&(&str, &str)> = choices.iter().filter(|(name, _)| !text.is_empty() && name.starts_with(text.as_ref())).collect();
    if let Some(exact) = choices.iter().find(|(name, _)| *name == text) {
        return Ok(exact.1.to_string());
    }
    if matches.len() == 1 {
        return Ok(matches[0].1.to_string());
    }
    let kind = if matches.is_empty() { "invalid" } else { "ambiguous" };
    io.error(format!("{} argument {} for {}", kind, q(value), q(format!("--{}", option).as_bytes())));
    let mut list = String::from("Valid arguments are:\n");
    for (name, _) in choices {
        list.push_str(&format!("  - {}\n", q(name.as_bytes())));
    }
    let _ = io.stderr.write_all(list.as_bytes());
    io.try_help();
    Err(1)
}

const DATE: Command = Command::compact("date", SPEC, HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut date: Option<Vec<u8>> = None;
    let mut file: Option<OsString> = None;
    let mut reference: Option<OsString> = None;
    let mut set: Option<Vec<u8>> = None;
    let mut fmt: Option<String> = None;
    let mut utc = false;
    let mut operands = Vec::new();
    DATE.options(&args, io, &mut |io, item| {
        match item {
            Parsed::Opt { id: "date", value } => date = value.map(|v| os_bytes(&v).to_vec()),
            Parsed::Opt { id: "file", value } => file = value,
            Parsed::Opt { id: "reference", value } => reference = value,
            Parsed::Opt { id: "set", value } => set = value.map(|v| os_bytes(&v).to_vec()),
            Parsed::Opt { id: "utc", .. } => utc = true,
            Parsed::Opt { id: "debug", .. } => {
                return Err(UError::new(1, "option not supported in the sandbox: --debug"));
            }
            Parsed::Opt { id, value } => {
                let new = match id {
                    "iso" => match value {
                        Some(v) => match timespec_format(os_bytes(&v), "iso-8601", io) {
                            Ok(f) => f,
                            Err(status) => return Err(UError::exit(status)),
                        },
                        None => "%Y-%m-%d".to_string(),
                    },
                    "rfc-3339" => match timespec_format(os_bytes(&value.unwrap_or_default()), "rfc-3339", io) {
                        Ok(f) => f,
                        Err(status) => return Err(UError::exit(status)),
                    },
                    _ => "%a, %d %b %Y %H:%M:%S %z".to_string(),
                };
                if fmt.is_some() {
                    return Err(UError::new(1, "multiple output formats specified"));
                }
                fmt = Some(new);
            }
            Parsed::Operand(o) => operands.push(os_bytes(&o).to_vec()),
        }
        Ok(())
    })?;
    let sources = date.is_some() as usize + file.is_some() as usize + reference.is_some() as usize;
    if sources > 1 || (set.is_some() && sources > 0) {
        io.error("the options to specify dates for printing are mutually exclusive");
        io.try_help();
        return Ok(1);
    }
    if operands.len() > 1 {
        io.error(format!("extra operand {}", q(&operands[1])));
        io.try_help();
        return Ok(1);
    }
    if let Some(op) = operands.first() {
        if op.first() == Some(&b'+') {
            if fmt.is_some() {
                return Err(UError::new(1, "multiple output formats specified"));
            }
            fmt = Some(String::from_utf8_lossy(&op[1..]).into_owned());
        } else if sources > 0 || set.is_some() {
            io.error(format!("the argument {} lacks a leading '+';\nwhen using an option to specify date(s), any non-option\nargument must be a format string beginning with '+'", q(op)));
            io.try_help();
            return Ok(1);
        } else {
            set = Some(op.clone());
        }
    }
    if set.is_some() {
        // The sandbox's clock belongs to the host.
        return Err(UError::new(1, "cannot set date: Operation not permitted"));
    }
    let (offset, zone) = if utc { (0, "UTC".to_string()) } else { (local_offset(), local_zone()) };
    let fmt = fmt.unwrap_or_else(|| DEFAULT_FORMAT.to_string());
    let printer = Printer { fmt: fmt.into_bytes(), offset, zone };
    if let Some(path) = reference {
        return match common::fsext::metadata(std::path::Path::new(&path), true) {
            Ok(meta) => {
                let (secs, nanos) = common::timefmt::split_ns(meta.mtime_ns);
                Ok(printer.print(io, secs, nanos))
            }
            Err(e) => Err(UError::io(1, path.to_string_lossy(), &e)),
        };
    }
    if let Some(path) = file {
        return Ok(from_file(io, &path, &printer));
    }
    let when = match date {
        Some(text) => match parse::parse(&text, now(), offset) {
            Some(t) => t,
            None => {
                return Err(UError::new(1, format!("invalid date {}", q(&text))));
            }
        },
        None => now(),
    };
    Ok(printer.print(io, when.0, when.1))
}

struct Printer {
    fmt: Vec<u8>,
    offset: i64,
    zone: String,
}

impl Printer {
    fn print(&self, io: &mut Io, secs: i64, nanos: u32) -> i32 {
        // GNU's limit is the year range of struct tm (an int); this keeps the arithmetic safe.
        if secs.unsigned_abs() > 67_767_976_233_316_604 / 2 {
            io.error(format!("time {} is out of range", secs));
            return 1;
        }
        let mut line = format(&self.fmt, &Moment::new(secs, nanos, self.offset, &self.zone));
        line.push(b'\n');
        match io.out(&line) {
            Ok(()) => 0,
            Err(e) if common::error::is_broken_pipe(&e) => 0,
            Err(e) => {
                io.error(format!("write error: {}", common::strerror(&e)));
                1
            }
        }
    }
}

/// `-f FILE`: one date per line; invalid lines are reported and make the status 1.
fn from_file(io: &mut Io, path: &OsString, printer: &Printer) -> i32 {
    let mut stdin = std::io::empty();
    let mut empty = std::io::BufReader::new(&mut stdin);
    let is_stdin = os_bytes(path) == b"-";
    let mut lines = Vec::new();
    let result = if is_stdin {
        common::io::for_each_line(io.stdin, b'\n', |l| {
            lines.push(l.to_vec());
            Ok(true)
        })
    } else {
        match common::io::open_input(path, &mut empty) {
            Ok(mut input) => common::io::for_each_line(input.reader(), b'\n', |l| {
                lines.push(l.to_vec());
                Ok(true)
            }),
            Err(e) => Err(e),
        }
    };
    if let Err(e) = result {
        io.error(format!("{}: {}", path.to_string_lossy(), common::strerror(&e)));
        return 1;
    }
    let mut status = 0;
    for mut line in lines {
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        match parse::parse(&line, now(), printer.offset) {
            Some((secs, nanos)) => {
                if printer.print(io, secs, nanos) != 0 {
                    return 1;
                }
            }
            None => {
                let _ = io.stdout.flush();
                io.error(format!("invalid date {}", q(&line)));
                status = 1;
            }
        }
    }
    status
}

const HELP: &str = "Usage: {name} [OPTION]... [+FORMAT]\n  or:  {name} [-u|--utc|--universal] [MMDDhhmm[[CC]YY][.ss]]\nDisplay date and time in the given FORMAT.\nWith -s, or with [MMDDhhmm[[CC]YY][.ss]], set the date and time.\n\n\
Mandatory arguments to long options are mandatory for short options too.\n\
  -d, --date=STRING          display time described by STRING, not 'now'\n\
  -f, --file=DATEFILE        like --date; once for each line of DATEFILE\n\
  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.\n\
                               FMT='date' for date only (the default),\n\
                               'hours', 'minutes', 'seconds', or 'ns'\n\
  -R, --rfc-email            output date and time in RFC 5322 format.\n\
      --rfc-3339=FMT         output date/time in RFC 3339 format.\n\
                               FMT='date', 'seconds', or 'ns'\n\
  -r, --reference=FILE       display the last modification time of FILE\n\
  -s, --set=STRING           set time described by STRING (not permitted in the sandbox)\n\
  -u, --utc, --universal     print or set Coordinated Universal Time (UTC)\n\
      --help        display this help and exit\n\
      --version     output version information and exit\n\n\
FORMAT controls the output; it is interpreted like strftime(3) with GNU's flags\n\
(-, _, 0, ^, #), field widths, %N precision and %:z, %::z, %:::z.\n\
The sandbox has no timezone database: TZ may be UTC or a fixed offset such as EST5.\n";
