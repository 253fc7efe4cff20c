//! `nl`: numbers lines. Body, header and footer sections (delimited by lines of `\:\:\:`,
//! `\:\:`, `\:`) each have a numbering style: all, nonempty, none, or lines matching a BRE.

use std::ffi::OsString;
use std::io::{BufRead, Write};

use common::args::{self, os_bytes, Command};
use common::io::{filter_inputs, quote, Failure};
use common::regex::{Flags, Flavor, Regex};
use common::{Io, UError};

const SPEC: &str = "b,body-numbering: d,section-delimiter: f,footer-numbering: h,header-numbering: i,line-increment: l,join-blank-lines: n,number-format: p,no-renumber s,number-separator: v,starting-line-number: w,number-width:";

const NL: Command = Command::compact("nl", SPEC, HELP);

const HELP: &str = "Usage: nl [OPTION]... [FILE]...
Write each FILE to standard output, with line numbers added.

With no FILE, or when FILE is -, read standard input.

  -b, --body-numbering=STYLE      use STYLE for numbering body lines
  -d, --section-delimiter=CC      use CC for logical page delimiters
  -f, --footer-numbering=STYLE    use STYLE for numbering footer lines
  -h, --header-numbering=STYLE    use STYLE for numbering header lines
  -i, --line-increment=NUMBER     line number increment at each line
  -l, --join-blank-lines=NUMBER   group of NUMBER empty lines counted as one
  -n, --number-format=FORMAT      insert line numbers according to FORMAT
  -p, --no-renumber               do not reset line numbers for each section
  -s, --number-separator=STRING   add STRING after (possible) line number
  -v, --starting-line-number=NUMBER  first line number for each section
  -w, --number-width=NUMBER       use NUMBER columns for line numbers
{standard}
Default options are: -bt -d'\\:' -fn -hn -i1 -l1 -n'rn' -s<TAB> -v1 -w6

CC are two delimiter characters used to construct logical page delimiters;
a missing second character implies ':'.

STYLE is one of:

  a      number all lines
  t      number only nonempty lines
  n      number no lines
  pBRE   number only lines that contain a match for the basic regular
         expression, BRE

FORMAT is one of:

  ln     left justified, no leading zeros
  rn     right justified, no leading zeros
  rz     right justified, leading zeros
";

enum Style {
    All,
    NonEmpty,
    None,
    Matching(Regex),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Left,
    Right,
    Zeros,
}

struct Config {
    styles: [Style; 3],
    delimiter: Vec<u8>,
    increment: i64,
    join_blank: u64,
    format: Format,
    renumber: bool,
    separator: Vec<u8>,
    start: i64,
    width: usize,
}

struct State {
    number: i64,
    section: usize,
    blank_run: u64,
}

fn parse_style(value: &[u8], what: &str) -> Result<Style, String> {
    match value {
        b"a" => Ok(Style::All),
        b"t" => Ok(Style::NonEmpty),
        b"n" => Ok(Style::None),
        [b'p', re @ ..] => Regex::new(re, Flavor::Basic, Flags::default()).map(Style::Matching).map_err(|e| e.to_string()),
        _ => Err(format!("invalid {} numbering style: {}", what, quote(&args::bytes_os(value)))),
    }
}

fn parse_number(value: &OsString, what: &str, min: i64) -> Result<i64, String> {
    match value.to_str().and_then(|s| s.trim_start().parse::<i64>().ok()) {
        Some(n) if n >= min => Ok(n),
        Some(_) => Err(format!("invalid {}: {}: Numerical result out of range", what, quote(value))),
        None => Err(format!("invalid {}: {}", what, quote(value))),
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut c = Config {
        styles: [Style::None, Style::NonEmpty, Style::None],
        delimiter: b"\\:".to_vec(),
        increment: 1,
        join_blank: 1,
        format: Format::Right,
        renumber: true,
        separator: b"\t".to_vec(),
        start: 1,
        width: 6,
    };
    let mut files = NL.operands(&args, io, &mut |_, id, value| {
        let value = value.unwrap_or_default();
        let bytes = os_bytes(&value);
        let result: Result<(), String> = match id {
            "h" => parse_style(bytes, "header").map(|s| c.styles[0] = s),
            "b" => parse_style(bytes, "body").map(|s| c.styles[1] = s),
            "f" => parse_style(bytes, "footer").map(|s| c.styles[2] = s),
            "d" => {
                c.delimiter = match bytes {
                    [one] => vec![*one, b':'],
                    other => other.to_vec(),
                };
                Ok(())
            }
            "i" => parse_number(&value, "line number increment", i64::MIN).map(|n| c.increment = n),
            "l" => parse_number(&value, "line number of blank lines", 1).map(|n| c.join_blank = n as u64),
            "n" => match bytes {
                b"ln" => Ok(c.format = Format::Left),
                b"rn" => Ok(c.format = Format::Right),
                b"rz" => Ok(c.format = Format::Zeros),
                _ => Err(format!("invalid line numbering format: {}", quote(&value))),
            },
            "p" => Ok(c.renumber = false),
            "s" => Ok(c.separator = bytes.to_vec()),
            "v" => parse_number(&value, "starting line number", i64::MIN).map(|n| c.start = n),
            "w" => parse_number(&value, "line number field width", 1).map(|n| c.width = n as usize),
            _ => Ok(()),
        };
        if let Err(message) = result {
            return Err(UError::usage(1, message));
        }
        Ok(())
    })?;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let mut state = State { number: c.start, section: 1, blank_run: 0 };
    filter_inputs(io, &files, &mut |reader, out| number_lines(reader, out, &c, &mut state))
}

/// Which section a delimiter line starts (0 header, 1 body, 2 footer), if it is one.
fn section_of(line: &[u8], delimiter: &[u8]) -> Option<usize> {
    if delimiter.is_empty() || line.is_empty() || line.len() % delimiter.len() != 0 {
        return None;
    }
    if !line.chunks(delimiter.len()).all(|c| c == delimiter) {
        return None;
    }
    match line.len() / delimiter.len() {
        3 => Some(0),
        2 => Some(1),
        1 => Some(2),
        _ => None,
    }
}

fn number_lines(reader: &mut dyn BufRead, out: &mut dyn Write, c: &Config, st: &mut State) -> Result<(), Failure> {
    let mut line = Vec::new();
    let mut buf = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(Failure::Read)? == 0 {
            return Ok(());
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        buf.clear();
        if let Some(section) = section_of(&line, &c.delimiter) {
            st.section = section;
            st.blank_run = 0;
            if c.renumber {
                st.number = c.start;
            }
            buf.push(b'\n');
            out.write_all(&buf).map_err(Failure::Write)?;
            continue;
        }
        let numbered = match &c.styles[st.section] {
            Style::All => {
                if line.is_empty() {
                    st.blank_run += 1;
                    if st.blank_run >= c.join_blank {
                        st.blank_run = 0;
                        true
                    } else {
                        false
                    }
                } else {
                    st.blank_run = 0;
                    true
                }
            }
            Style::NonEmpty => !line.is_empty(),
            Style::None => false,
            Style::Matching(re) => re.is_match(&line),
        };
        if numbered {
            let n = st.number;
            let text = match c.format {
                Format::Left => format!("{:<1$}", n, c.width),
                Format::Right => format!("{:>1$}", n, c.width),
                Format::Zeros if n < 0 => format!("-{:0>1$}", -(n as i128), c.width.saturating_sub(1)),
                Format::Zeros => format!("{:0>1$}", n, c.width),
            };
            buf.extend_from_slice(text.as_bytes());
            buf.extend_from_slice(&c.separator);
            st.number = st.number.wrapping_add(c.increment);
        } else {
            buf.resize(c.width + c.separator.len(), b' ');
        }
        buf.extend_from_slice(&line);
        buf.push(b'\n');
        out.write_all(&buf).map_err(Failure::Write)?;
    }
}
