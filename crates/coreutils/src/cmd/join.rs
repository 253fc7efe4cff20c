//! `join`: joins lines of two sorted files on a common field, following GNU join's loop:
//! groups of equal keys give their cross product; unpaired lines are printed with -a/-v;
//! -o picks output fields (`auto` from the first lines), -e fills empty ones. Input order
//! is checked as GNU does (a warning once unpaired lines were seen, fatal with
//! --check-order).

use std::ffi::OsString;
use std::io::{self, Write};

use common::args::{os_bytes, Command};
use common::io::{open_input, quote, Input};
use common::{strerror, Io, UError};

use super::cmd_comm::CheckOrder;

const SPEC: &str = "a: e: i,ignore-case j: o: t: v: 1: 2: check-order nocheck-order header z,zero-terminated";

const JOIN: Command = Command::compact("join", SPEC, HELP).operands_between(2, 2);

const HELP: &str = "Usage: join [OPTION]... FILE1 FILE2
For each pair of input lines with identical join fields, write a line to
standard output.  The default join field is the first, delimited by blanks.

When FILE1 or FILE2 (not both) is -, read standard input.

  -a FILENUM        also print unpairable lines from file FILENUM, where
                      FILENUM is 1 or 2, corresponding to FILE1 or FILE2
  -e STRING         replace missing (empty) input fields with STRING;
                      I.e., missing fields specified with '-12jo' options
  -i, --ignore-case  ignore differences in case when comparing fields
  -j FIELD          equivalent to '-1 FIELD -2 FIELD'
  -o FORMAT         obey FORMAT while constructing output line
  -t CHAR           use CHAR as input and output field separator
  -v FILENUM        like -a FILENUM, but suppress joined output lines
  -1 FIELD          join on this FIELD of file 1
  -2 FIELD          join on this FIELD of file 2
      --check-order   check that the input is correctly sorted, even
                      if all input lines are pairable
      --nocheck-order  do not check that the input is correctly sorted
      --header      treat the first line in each file as field headers,
                      print them without trying to pair them
  -z, --zero-terminated     line delimiter is NUL, not newline
{standard}";


/// A line and its fields (byte ranges).
#[derive(Default, Clone)]
struct Line {
    text: Vec<u8>,
    fields: Vec<(usize, usize)>,
}

impl Line {
    fn field(&self, n: usize) -> &[u8] {
        match self.fields.get(n) {
            Some(&(s, e)) => &self.text[s..e],
            None => &[],
        }
    }
}

struct Config {
    tab: Option<u8>,
    fields: [usize; 2],
    unpaired: [bool; 2],
    paired: bool,
    empty: Option<Vec<u8>>,
    format: Option<Vec<(usize, usize)>>,
    auto: bool,
    ignore_case: bool,
    check: CheckOrder,
    header: bool,
    eol: u8,
}

struct Source<'a> {
    input: Input<'a>,
    name: String,
    line_no: u64,
    prev: Option<Line>,
    warned: bool,
}

fn split_fields(text: &[u8], tab: Option<u8>) -> Vec<(usize, usize)> {
    let mut fields = Vec::new();
    if text.is_empty() {
        return fields;
    }
    match tab {
        Some(t) if t != b'\n' => {
            let mut start = 0;
            for p in memchr::memchr_iter(t, text) {
                fields.push((start, p));
                start = p + 1;
            }
            fields.push((start, text.len()));
        }
        Some(_) => fields.push((0, text.len())),
        None => {
            let blank = |b: u8| b == b' ' || b == b'\t' || b == b'\n';
            let mut p = 0;
            while p < text.len() && blank(text[p]) {
                p += 1;
            }
            if p == text.len() {
                return fields;
            }
            while p < text.len() {
                let start = p;
                while p < text.len() && !blank(text[p]) {
                    p += 1;
                }
                fields.push((start, p));
                if p == text.len() {
                    return fields;
                }
                while p < text.len() && blank(text[p]) {
                    p += 1;
                }
            }
            // Trailing blanks end with an empty field, as in GNU's xfields.
            fields.push((text.len(), text.len()));
        }
    }
    fields
}

impl Config {
    fn compare(&self, a: &Line, fa: usize, b: &Line, fb: usize) -> std::cmp::Ordering {
        let (x, y) = (a.field(fa), b.field(fb));
        if self.ignore_case {
            x.iter().map(|c| c.to_ascii_lowercase()).cmp(y.iter().map(|c| c.to_ascii_lowercase()))
        } else {
            x.cmp(y)
        }
    }
}

fn parse_field(value: &OsString) -> Result<usize, String> {
    match value.to_str().and_then(|s| s.parse::<u64>().ok()) {
        Some(n) if n >= 1 => Ok(usize::try_from(n - 1).unwrap_or(usize::MAX)),
        _ => Err(format!("invalid field number: {}", quote(value))),
    }
}

fn parse_file_number(value: &OsString) -> Result<usize, String> {
    match value.to_str() {
        Some("1") => Ok(0),
        Some("2") => Ok(1),
        _ => Err(format!("invalid field number: {}", quote(value))),
    }
}

fn parse_format(value: &OsString) -> Result<Vec<(usize, usize)>, String> {
    let text = value.to_string_lossy();
    let mut out = Vec::new();
    for item in text.split(|c| c == ',' || c == ' ' || c == '\t').filter(|s| !s.is_empty()) {
        if item == "0" {
            out.push((0, 0));
            continue;
        }
        let bad = || format!("invalid file number in field spec: {}", quote(OsString::from(item).as_os_str()));
        let (file, field) = item.split_once('.').ok_or_else(bad)?;
        let file = match file {
            "1" => 1,
            "2" => 2,
            _ => return Err(bad()),
        };
        let field = parse_field(&OsString::from(field)).map_err(|_| format!("invalid field number: {}", quote(OsString::from(field).as_os_str())))?;
        out.push((file, field));
    }
    Ok(out)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut c = Config { tab: None, fields: [0, 0], unpaired: [false, false], paired: true, empty: None, format: None, auto: false, ignore_case: false, check: CheckOrder::Default, header: false, eol: b'\n' };
    let files = JOIN.operands(&args, io, &mut |_, id, value| {
        let value = value.unwrap_or_default();
        if let Some(setting) = CheckOrder::from_option(id) {
            c.check = setting;
        }
        let result: Result<(), String> = match id {
            "a" => parse_file_number(&value).map(|n| c.unpaired[n] = true),
            "v" => parse_file_number(&value).map(|n| {
                c.unpaired[n] = true;
                c.paired = false;
            }),
            "e" => Ok(c.empty = Some(os_bytes(&value).to_vec())),
            "i" => Ok(c.ignore_case = true),
            "j" => parse_field(&value).map(|n| c.fields = [n, n]),
            "1" => parse_field(&value).map(|n| c.fields[0] = n),
            "2" => parse_field(&value).map(|n| c.fields[1] = n),
            "o" => {
                if value == "auto" {
                    Ok(c.auto = true)
                } else {
                    parse_format(&value).map(|f| c.format.get_or_insert_with(Vec::new).extend(f))
                }
            }
            "t" => match os_bytes(&value) {
                [] => Ok(c.tab = Some(b'\n')),
                [t] => Ok(c.tab = Some(*t)),
                b"\\0" => Ok(c.tab = Some(0)),
                _ => Err(format!("multi-character tab {}", quote(&value))),
            },
            "header" => Ok(c.header = true),
            "z" => Ok(c.eol = 0),
            _ => Ok(()),
        };
        if let Err(message) = result {
            return Err(UError::new(1, message));
        }
        Ok(())
    })?;
    let mut empty: &[u8] = &[];
    let name = io.name.clone();
    // When both operands are `-`, the second reads what the first left: nothing.
    let first = open_input(&files[0], &mut *io.stdin);
    let second = open_input(&files[1], &mut empty);
    let mut sources = Vec::new();
    for (file, opened) in files.iter().zip([first, second]) {
        match opened {
            Ok(input) => sources.push(Source { input, name: file.to_string_lossy().into_owned(), line_no: 0, prev: None, warned: false }),
            Err(e) => {
                let _ = writeln!(io.stderr, "{}: {}: {}", name, file.to_string_lossy(), strerror(&e));
                return Ok(1);
            }
        }
    }
    let mut joiner = Joiner { c: &c, out: &mut *io.stdout, err: &mut *io.stderr, name, seen_unpaired: false, autocount: [0, 0] };
    let result = joiner.join(&mut sources);
    drop(sources);
    match result {
        Ok(status) => Ok(status),
        Err(Failure::Write(e)) => Err(UError::write(&e)),
        Err(Failure::Read(e)) => Err(UError::new(1, strerror(&e))),
        Err(Failure::Disorder) => Ok(1),
    }
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
    /// --check-order found a line out of order (already reported).
    Disorder,
}

struct Joiner<'a, 'b> {
    c: &'a Config,
    out: &'b mut dyn Write,
    err: &'b mut dyn Write,
    name: String,
    seen_unpaired: bool,
    autocount: [usize; 2],
}

impl<'a, 'b> Joiner<'a, 'b> {
    /// The run of lines of source `i` from `first` on whose join field equals `other`'s (a
    /// line of the other source), and the line after it.
    fn group(&mut self, sources: &mut [Source], i: usize, first: &Line, other: &Line) -> Result<(Vec<Line>, Option<Line>), Failure> {
        let f = self.c.fields;
        let mut group = vec![first.clone()];
        let mut next = self.next_line(sources, i)?;
        while let Some(l) = next.as_ref() {
            // Compared in the order of the sources, file 1's line first.
            let order = if i == 0 { self.c.compare(l, f[0], other, f[1]) } else { self.c.compare(other, f[0], l, f[1]) };
            if order != std::cmp::Ordering::Equal {
                break;
            }
            group.push(l.clone());
            next = self.next_line(sources, i)?;
        }
        Ok((group, next))
    }

    /// Reads the next line of source `i`, checking its order; Ok(None) at the end.
    fn next_line(&mut self, sources: &mut [Source], i: usize) -> Result<Option<Line>, Failure> {
        let s = &mut sources[i];
        let mut text = Vec::new();
        if s.input.reader().read_until(self.c.eol, &mut text).map_err(Failure::Read)? == 0 {
            return Ok(None);
        }
        if text.last() == Some(&self.c.eol) {
            text.pop();
        }
        s.line_no += 1;
        let fields = split_fields(&text, self.c.tab);
        let line = Line { text, fields };
        if s.line_no == 1 && self.c.auto {
            self.autocount[i] = line.fields.len();
        }
        let checking = self.c.check.applies(self.seen_unpaired);
        if let Some(prev) = &s.prev {
            if checking && !s.warned && self.c.compare(prev, self.c.fields[i], &line, self.c.fields[i]) == std::cmp::Ordering::Greater {
                let mut message = format!("{}: {}:{}: is not sorted: ", self.name, s.name, s.line_no).into_bytes();
                message.extend_from_slice(&line.text);
                message.push(b'\n');
                let _ = self.out.flush();
                let _ = self.err.write_all(&message);
                s.warned = true;
                if self.c.check == CheckOrder::Enabled {
                    return Err(Failure::Disorder);
                }
            }
        }
        s.prev = Some(line.clone());
        Ok(Some(line))
    }

    fn join(&mut self, sources: &mut [Source]) -> Result<i32, Failure> {
        match self.join_inner(sources) {
            Err(Failure::Disorder) => Ok(1),
            other => other,
        }
    }

    fn join_inner(&mut self, sources: &mut [Source]) -> Result<i32, Failure> {
        let f = self.c.fields;
        let mut a = self.next_line(sources, 0)?;
        let mut b = self.next_line(sources, 1)?;
        if self.c.header {
            if a.is_some() || b.is_some() {
                self.print(a.as_ref(), b.as_ref())?;
            }
            if a.is_some() {
                a = self.next_line(sources, 0)?;
            }
            if b.is_some() {
                b = self.next_line(sources, 1)?;
            }
        }
        while let (Some(la), Some(lb)) = (a.as_ref(), b.as_ref()) {
            match self.c.compare(la, f[0], lb, f[1]) {
                std::cmp::Ordering::Less => {
                    if self.c.unpaired[0] {
                        self.print(Some(la), None)?;
                    }
                    self.seen_unpaired = true;
                    a = self.next_line(sources, 0)?;
                }
                std::cmp::Ordering::Greater => {
                    if self.c.unpaired[1] {
                        self.print(None, Some(lb))?;
                    }
                    self.seen_unpaired = true;
                    b = self.next_line(sources, 1)?;
                }
                std::cmp::Ordering::Equal => {
                    let (group_a, next_a) = self.group(sources, 0, la, lb)?;
                    let (group_b, next_b) = self.group(sources, 1, lb, la)?;
                    if self.c.paired {
                        for x in &group_a {
                            for y in &group_b {
                                self.print(Some(x), Some(y))?;
                            }
                        }
                    }
                    a = next_a;
                    b = next_b;
                }
            }
        }
        // The tails: printed when asked for, and read through for the order check.
        for (i, rest) in [(0usize, a), (1usize, b)] {
            if let Some(first) = rest {
                if !self.c.unpaired[i] && self.c.check == CheckOrder::Disabled {
                    continue;
                }
                let mut line = Some(first);
                while let Some(l) = line {
                    if self.c.unpaired[i] {
                        if i == 0 {
                            self.print(Some(&l), None)?;
                        } else {
                            self.print(None, Some(&l))?;
                        }
                    } else if sources[i].warned {
                        break;
                    }
                    line = self.next_line(sources, i)?;
                }
            }
        }
        if sources.iter().any(|s| s.warned) {
            let _ = self.out.flush();
            let _ = writeln!(self.err, "{}: input is not in sorted order", self.name);
            return Ok(1);
        }
        Ok(0)
    }

    fn put_field(&self, buf: &mut Vec<u8>, line: Option<&Line>, n: usize) {
        let value = line.map(|l| l.field(n)).unwrap_or(&[]);
        if value.is_empty() {
            if let Some(e) = &self.c.empty {
                buf.extend_from_slice(e);
            }
        } else {
            buf.extend_from_slice(value);
        }
    }

    /// GNU's prjoin.
    fn print(&mut self, a: Option<&Line>, b: Option<&Line>) -> Result<(), Failure> {
        let sep = match self.c.tab {
            Some(t) if t != b'\n' => t,
            _ => b' ',
        };
        let mut buf = Vec::new();
        let (join_line, join_field) = if a.is_none() { (b, self.c.fields[1]) } else { (a, self.c.fields[0]) };
        let format: Option<Vec<(usize, usize)>> = match &self.c.format {
            Some(f) => Some(f.clone()),
            None if self.c.auto => {
                let mut f = vec![(0, 0)];
                for (file, count) in [(1usize, self.autocount[0]), (2usize, self.autocount[1])] {
                    f.extend((0..count).filter(|n| *n != self.c.fields[file - 1]).map(|n| (file, n)));
                }
                Some(f)
            }
            None => None,
        };
        match format {
            Some(items) => {
                for (k, &(file, field)) in items.iter().enumerate() {
                    if k > 0 {
                        buf.push(sep);
                    }
                    match file {
                        0 => self.put_field(&mut buf, join_line, join_field),
                        1 => self.put_field(&mut buf, a, field),
                        _ => self.put_field(&mut buf, b, field),
                    }
                }
            }
            None => {
                self.put_field(&mut buf, join_line, join_field);
                for (line, jf) in [(a, self.c.fields[0]), (b, self.c.fields[1])] {
                    let count = line.map_or(0, |l| l.fields.len());
                    for n in (0..count).filter(|n| *n != jf) {
                        buf.push(sep);
                        self.put_field(&mut buf, line, n);
                    }
                }
            }
        }
        buf.push(self.c.eol);
        self.out.write_all(&buf).map_err(Failure::Write)
    }
}
