//! `cut`: selected bytes (-b, and -c, which GNU also treats as bytes) or fields (-f) of
//! each line. Ranges are sorted and overlapping ones merged, as GNU does, which decides
//! where --output-delimiter goes in byte mode.

use std::ffi::OsString;
use std::io::{BufRead, Write};

use common::args::{os_bytes, Command};
use common::io::{filter_inputs, Failure};
use common::{Io, UError};

const SPEC: &str = "b,bytes: c,characters: d,delimiter: f,fields: n complement s,only-delimited output-delimiter: z,zero-terminated";

const CUT: Command = Command::compact("cut", SPEC, HELP);

const HELP: &str = "Usage: cut OPTION... [FILE]...
Print selected parts of lines from each FILE to standard output.

With no FILE, or when FILE is -, read standard input.

  -b, --bytes=LIST        select only these bytes
  -c, --characters=LIST   select only these characters
  -d, --delimiter=DELIM   use DELIM instead of TAB for field delimiter
  -f, --fields=LIST       select only these fields;  also print any line
                            that contains no delimiter character, unless
                            the -s option is specified
  -n                      (ignored)
      --complement        complement the set of selected bytes, characters
                            or fields
  -s, --only-delimited    do not print lines not containing delimiters
      --output-delimiter=STRING  use STRING as the output delimiter
                            the default is to use the input delimiter
  -z, --zero-terminated   line delimiter is NUL, not newline
{standard}
Each LIST is made up of one range, or many ranges separated by commas.
Selected input is written in the same order that it is read, and is written
exactly once.  Each range is one of:

  N     N'th byte, character or field, counted from 1
  N-    from N'th byte, character or field, to end of line
  N-M   from N'th to M'th (included) byte, character or field
  -M    from first to M'th (included) byte, character or field
";

/// Inclusive 1-based ranges, sorted, overlaps merged.
type Ranges = Vec<(usize, usize)>;

fn parse_list(list: &str, fields: bool) -> Result<Ranges, String> {
    let mut ranges: Ranges = Vec::new();
    let number = |s: &str| -> Result<usize, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            let kind = if fields { "field value" } else { "byte/character position" };
            return Err(format!("invalid {} '{}'", kind, s));
        }
        Ok(s.parse::<u128>().map(|n| usize::try_from(n).unwrap_or(usize::MAX)).unwrap_or(usize::MAX))
    };
    for part in list.split(|c| c == ',' || c == ' ' || c == '\t') {
        if part.is_empty() {
            return Err(numbered_from_one(fields));
        }
        let (lo, hi) = match part.find('-') {
            None => {
                let n = number(part)?;
                (n, n)
            }
            Some(i) => {
                let (a, b) = (&part[..i], &part[i + 1..]);
                if b.contains('-') || (a.is_empty() && b.is_empty()) {
                    return Err(format!("invalid {} range", if fields { "field" } else { "byte or character" }));
                }
                let lo = if a.is_empty() { 1 } else { number(a)? };
                let hi = if b.is_empty() { usize::MAX } else { number(b)? };
                if lo == 0 {
                    return Err(numbered_from_one(fields));
                }
                if hi < lo {
                    return Err("invalid decreasing range".to_string());
                }
                (lo, hi)
            }
        };
        if lo == 0 {
            return Err(numbered_from_one(fields));
        }
        ranges.push((lo, hi));
    }
    ranges.sort_unstable();
    let mut merged: Ranges = Vec::new();
    for (lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    Ok(merged)
}

fn numbered_from_one(fields: bool) -> String {
    if fields {
        "fields are numbered from 1".to_string()
    } else {
        "byte/character positions are numbered from 1".to_string()
    }
}

fn complement(ranges: &Ranges) -> Ranges {
    let mut out = Vec::new();
    let mut next = 1usize;
    for &(lo, hi) in ranges {
        if lo > next {
            out.push((next, lo - 1));
        }
        if hi == usize::MAX {
            return out;
        }
        next = hi + 1;
    }
    out.push((next, usize::MAX));
    out
}

struct Config {
    ranges: Ranges,
    fields: bool,
    delimiter: u8,
    output_delimiter: Option<Vec<u8>>,
    only_delimited: bool,
    line_end: u8,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut list: Option<(String, bool)> = None;
    let mut delimiter: Option<u8> = None;
    let mut output_delimiter = None;
    let mut only_delimited = false;
    let mut complemented = false;
    let mut line_end = b'\n';
    let mut files = CUT.operands(&args, io, &mut |_, id, value| {
        let value = value.unwrap_or_default();
        match id {
            "b" | "c" | "f" => {
                if list.is_some() {
                    return Err(UError::usage(1, "only one list may be specified"));
                }
                list = Some((value.to_string_lossy().into_owned(), id == "f"));
            }
            "d" => match os_bytes(&value) {
                [] => delimiter = Some(0),
                [c] => delimiter = Some(*c),
                _ => return Err(UError::usage(1, "the delimiter must be a single character")),
            },
            "complement" => complemented = true,
            "s" => only_delimited = true,
            "output-delimiter" => output_delimiter = Some(os_bytes(&value).to_vec()),
            "z" => line_end = 0,
            _ => {}
        }
        Ok(())
    })?;
    let (list, fields) = match list {
        Some(l) => l,
        None => return Err(UError::usage(1, "you must specify a list of bytes, characters, or fields")),
    };
    if !fields && delimiter.is_some() {
        return Err(UError::usage(1, "an input delimiter may be specified only when operating on fields"));
    }
    if !fields && only_delimited {
        return Err(UError::usage(1, "suppressing non-delimited lines makes sense\n\tonly when operating on fields"));
    }
    let mut ranges = match parse_list(&list, fields) {
        Ok(r) => r,
        Err(message) => return Err(UError::usage(1, &message)),
    };
    if complemented {
        ranges = complement(&ranges);
    }
    let config = Config { ranges, fields, delimiter: delimiter.unwrap_or(b'\t'), output_delimiter, only_delimited, line_end };
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    filter_inputs(io, &files, &mut |reader, out| cut(reader, out, &config))
}

fn cut(reader: &mut dyn BufRead, out: &mut dyn Write, c: &Config) -> Result<(), Failure> {
    let mut line = Vec::new();
    let mut buf = Vec::new();
    loop {
        line.clear();
        if reader.read_until(c.line_end, &mut line).map_err(Failure::Read)? == 0 {
            return Ok(());
        }
        if line.last() == Some(&c.line_end) {
            line.pop();
        }
        buf.clear();
        if c.fields {
            if !cut_fields(&line, c, &mut buf) {
                continue;
            }
        } else {
            cut_bytes(&line, c, &mut buf);
        }
        buf.push(c.line_end);
        out.write_all(&buf).map_err(Failure::Write)?;
    }
}

fn cut_bytes(line: &[u8], c: &Config, buf: &mut Vec<u8>) {
    let mut printed = false;
    for &(lo, hi) in &c.ranges {
        if lo > line.len() {
            break;
        }
        let end = hi.min(line.len());
        if let (Some(d), true) = (&c.output_delimiter, printed) {
            buf.extend_from_slice(d);
        }
        buf.extend_from_slice(&line[lo - 1..end]);
        printed = true;
    }
}

/// Appends the selected fields; false when the line is to be left out (-s).
fn cut_fields(line: &[u8], c: &Config, buf: &mut Vec<u8>) -> bool {
    if memchr::memchr(c.delimiter, line).is_none() {
        if c.only_delimited {
            return false;
        }
        buf.extend_from_slice(line);
        return true;
    }
    let out_delim: &[u8] = match &c.output_delimiter {
        Some(d) => d,
        None => std::slice::from_ref(&c.delimiter),
    };
    let mut printed = false;
    let mut range = 0;
    for (i, field) in line.split(|b| *b == c.delimiter).enumerate() {
        let n = i + 1;
        while range < c.ranges.len() && c.ranges[range].1 < n {
            range += 1;
        }
        if range >= c.ranges.len() {
            break;
        }
        if c.ranges[range].0 <= n {
            if printed {
                buf.extend_from_slice(out_delim);
            }
            buf.extend_from_slice(field);
            printed = true;
        }
    }
    true
}
