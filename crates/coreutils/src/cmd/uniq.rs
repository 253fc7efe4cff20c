//! `uniq`: collapses, counts or selects runs of equal adjacent lines. Streams with two line
//! buffers; a line is compared after skipping -f fields and -s bytes, on at most -w bytes,
//! optionally ignoring case.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, Write};

use common::args::{self, os_bytes, Command};
use common::io::{open_input, quote};
use common::{strerror, Io, UError};

const SPEC: &str = "c,count d,repeated D all-repeated:: f,skip-fields: group:: i,ignore-case s,skip-chars: u,unique z,zero-terminated w,check-chars:";

const UNIQ: Command = Command::compact("uniq", SPEC, HELP).operands_between(0, 2);

const HELP: &str = "Usage: uniq [OPTION]... [INPUT [OUTPUT]]
Filter adjacent matching lines from INPUT (or standard input),
writing to OUTPUT (or standard output).

With no options, matching lines are merged to the first occurrence.

  -c, --count           prefix lines by the number of occurrences
  -d, --repeated        only print duplicate lines, one for each group
  -D                    print all duplicate lines
      --all-repeated[=METHOD]  like -D, but allow separating groups
                                 with an empty line;
                                 METHOD={none(default),prepend,separate}
  -f, --skip-fields=N   avoid comparing the first N fields
      --group[=METHOD]  show all items, separating groups with an empty line;
                          METHOD={separate(default),prepend,append,both}
  -i, --ignore-case     ignore differences in case when comparing
  -s, --skip-chars=N    avoid comparing the first N characters
  -u, --unique          only print unique lines
  -z, --zero-terminated     line delimiter is NUL, not newline
  -w, --check-chars=N   compare no more than N characters in lines
{standard}";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Delimit {
    None,
    Prepend,
    Separate,
    Append,
    Both,
}

struct Config {
    count: bool,
    repeated: bool,
    unique: bool,
    all_repeated: Option<Delimit>,
    group: Option<Delimit>,
    skip_fields: usize,
    skip_chars: usize,
    check_chars: Option<usize>,
    ignore_case: bool,
    delimiter: u8,
}

impl Config {
    fn key<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        let mut line = line;
        if line.last() == Some(&self.delimiter) {
            line = &line[..line.len() - 1];
        }
        let mut p = 0;
        for _ in 0..self.skip_fields {
            while p < line.len() && (line[p] == b' ' || line[p] == b'\t') {
                p += 1;
            }
            while p < line.len() && line[p] != b' ' && line[p] != b'\t' {
                p += 1;
            }
        }
        p = p.saturating_add(self.skip_chars).min(line.len());
        let end = match self.check_chars {
            Some(w) => p.saturating_add(w).min(line.len()),
            None => line.len(),
        };
        &line[p..end]
    }

    fn equal(&self, a: &[u8], b: &[u8]) -> bool {
        let (ka, kb) = (self.key(a), self.key(b));
        if self.ignore_case {
            ka.eq_ignore_ascii_case(kb)
        } else {
            ka == kb
        }
    }
}

/// Turns the obsolete `-N` (skip N fields) and `+N` (skip N chars) into modern options.
fn expand_obsolete(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut options_done = false;
    for a in args {
        let b = os_bytes(a);
        if !options_done && b.len() > 1 && (b[0] == b'-' || b[0] == b'+') && b[1..].iter().all(|c| c.is_ascii_digit()) {
            out.push(OsString::from(if b[0] == b'-' { "-f" } else { "-s" }));
            out.push(args::bytes_os(&b[1..]));
            continue;
        }
        if b == b"--" {
            options_done = true;
        }
        out.push(a.clone());
    }
    out
}

fn parse_number(value: &OsString, what: &str) -> Result<usize, String> {
    let text = value.to_string_lossy();
    match text.trim_start().parse::<u128>() {
        Ok(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        Err(_) => Err(format!("{}: {}", what, quote(value))),
    }
}

fn parse_method(value: &OsString, option: &str, choices: &[(&str, Delimit)]) -> Result<Delimit, String> {
    let text = value.to_string_lossy();
    let matches: Vec<&(&str, Delimit)> = choices.iter().filter(|(n, _)| n.starts_with(text.as_ref()) && !text.is_empty()).collect();
    match matches.iter().find(|(n, _)| *n == text) {
        Some((_, d)) => Ok(*d),
        None if matches.len() == 1 => Ok(matches[0].1),
        None => {
            let mut message = format!("{} argument {} for '--{}'\nValid arguments are:", if matches.is_empty() { "invalid" } else { "ambiguous" }, quote(value), option);
            for (n, _) in choices {
                message.push_str(&format!("\n  - '{}'", n));
            }
            Err(message)
        }
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let expanded = expand_obsolete(&args[1..]);
    let mut c = Config { count: false, repeated: false, unique: false, all_repeated: None, group: None, skip_fields: 0, skip_chars: 0, check_chars: None, ignore_case: false, delimiter: b'\n' };
    let operands = UNIQ.operands_after_name(&expanded, io, &mut |_, id, value| {
        let result: Result<(), String> = match id {
            "c" => Ok(c.count = true),
            "d" => Ok(c.repeated = true),
            "D" => Ok(c.all_repeated = Some(Delimit::None)),
            "all-repeated" => match value {
                None => Ok(c.all_repeated = Some(Delimit::None)),
                Some(v) => parse_method(&v, "all-repeated", &[("none", Delimit::None), ("prepend", Delimit::Prepend), ("separate", Delimit::Separate)]).map(|d| c.all_repeated = Some(d)),
            },
            "group" => match value {
                None => Ok(c.group = Some(Delimit::Separate)),
                Some(v) => parse_method(&v, "group", &[("prepend", Delimit::Prepend), ("append", Delimit::Append), ("separate", Delimit::Separate), ("both", Delimit::Both)]).map(|d| c.group = Some(d)),
            },
            "f" => parse_number(&value.unwrap_or_default(), "invalid number of fields to skip").map(|n| c.skip_fields = n),
            "s" => parse_number(&value.unwrap_or_default(), "invalid number of bytes to skip").map(|n| c.skip_chars = n),
            "w" => parse_number(&value.unwrap_or_default(), "invalid number of bytes to compare").map(|n| c.check_chars = Some(n)),
            "i" => Ok(c.ignore_case = true),
            "u" => Ok(c.unique = true),
            "z" => Ok(c.delimiter = 0),
            _ => Ok(()),
        };
        if let Err(message) = result {
            return Err(UError::usage(1, message));
        }
        Ok(())
    })?;
    if c.group.is_some() && (c.count || c.repeated || c.unique || c.all_repeated.is_some()) {
        return Err(UError::usage(1, "--group is mutually exclusive with -c/-d/-D/-u"));
    }
    if c.count && c.all_repeated.is_some() {
        return Err(UError::usage(1, "printing all duplicated lines and repeat counts is meaningless"));
    }
    let input_name = operands.first().cloned().unwrap_or_else(|| OsString::from("-"));
    let mut input = match open_input(&input_name, &mut *io.stdin) {
        Ok(i) => i,
        Err(e) => {
            return Err(UError::new(1, format!("{}: {}", input_name.to_string_lossy(), strerror(&e))));
        }
    };
    let mut file_out;
    let out: &mut dyn Write = match operands.get(1).filter(|o| os_bytes(o) != b"-") {
        Some(path) => match File::create(path) {
            Ok(f) => {
                file_out = io::BufWriter::with_capacity(64 * 1024, f);
                &mut file_out
            }
            Err(e) => {
                return Err(UError::new(1, format!("{}: {}", path.to_string_lossy(), strerror(&e))));
            }
        },
        None => &mut *io.stdout,
    };
    let result = uniq(input.reader(), out, &c).and_then(|()| out.flush().map_err(Failure::Write));
    drop(input);
    match result {
        Ok(()) => Ok(0),
        Err(Failure::Read(e)) => Err(UError::new(1, format!("{}: {}", input_name.to_string_lossy(), strerror(&e)))),
        Err(Failure::Write(e)) => Err(UError::write(&e)),
    }
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
}

fn uniq(reader: &mut dyn BufRead, out: &mut dyn Write, c: &Config) -> Result<(), Failure> {
    let d = c.delimiter;
    let mut prev: Vec<u8> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut have_prev = false;
    let mut count: u64 = 0;
    let mut groups_printed = 0u64;
    let write_line = |out: &mut dyn Write, line: &[u8]| -> Result<(), Failure> {
        let body = if line.last() == Some(&d) { &line[..line.len() - 1] } else { line };
        out.write_all(body).and_then(|()| out.write_all(&[d])).map_err(Failure::Write)
    };
    loop {
        cur.clear();
        let n = reader.read_until(d, &mut cur).map_err(Failure::Read)?;
        let at_end = n == 0;
        let same = !at_end && have_prev && c.equal(&prev, &cur);
        if let Some(method) = c.group {
            if !at_end {
                let new_group = !same;
                if new_group && ((have_prev && matches!(method, Delimit::Separate | Delimit::Both | Delimit::Prepend | Delimit::Append)) || (!have_prev && matches!(method, Delimit::Prepend | Delimit::Both))) {
                    // Between groups every method but none writes one separator.
                    out.write_all(&[d]).map_err(Failure::Write)?;
                }
                write_line(out, &cur)?;
            } else if have_prev && matches!(method, Delimit::Append | Delimit::Both) {
                out.write_all(&[d]).map_err(Failure::Write)?;
            }
        } else if let Some(method) = c.all_repeated {
            if same {
                if count == 1 {
                    if matches!(method, Delimit::Prepend) || (matches!(method, Delimit::Separate) && groups_printed > 0) {
                        out.write_all(&[d]).map_err(Failure::Write)?;
                    }
                    groups_printed += 1;
                    write_line(out, &prev)?;
                }
                write_line(out, &cur)?;
            }
        } else if have_prev && !same {
            let show = (count > 1 && !c.unique) || (count == 1 && !c.repeated);
            let show = show && !(c.repeated && c.unique);
            if show {
                if c.count {
                    out.write_all(format!("{:>7} ", count).as_bytes()).map_err(Failure::Write)?;
                }
                write_line(out, &prev)?;
            }
        }
        if at_end {
            return Ok(());
        }
        if same {
            count += 1;
            if c.all_repeated.is_some() || c.group.is_some() {
                // Keep comparing with the latest line (equal anyway).
                std::mem::swap(&mut prev, &mut cur);
            }
        } else {
            std::mem::swap(&mut prev, &mut cur);
            have_prev = true;
            count = 1;
        }
    }
}
