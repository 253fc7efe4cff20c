//! `tac`: prints records in reverse order. A record ends with the separator (-s, default
//! newline; a BRE with -r) or, with -b, starts with it. Each input is read whole.

use std::ffi::OsString;
use std::io::{self, Write};

use common::args::{os_bytes, Command};
use common::io::open_input;
use common::regex::{Flags, Flavor, Regex};
use common::{strerror, Io, UError};

const SPEC: &str = "b,before r,regex s,separator:";

const TAC: Command = Command::compact("tac", SPEC, HELP);

const HELP: &str = "Usage: tac [OPTION]... [FILE]...
Write each FILE to standard output, last line first.

With no FILE, or when FILE is -, read standard input.

  -b, --before             attach the separator before instead of after
  -r, --regex              interpret the separator as a regular expression
  -s, --separator=STRING   use STRING as the separator instead of newline
{standard}";

enum Separator {
    Bytes(Vec<u8>),
    Pattern(Regex),
}

impl Separator {
    /// Every separator occurrence, left to right, not overlapping.
    fn find_all(&self, data: &[u8]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        match self {
            Separator::Bytes(s) if s.len() == 1 => found.extend(memchr::memchr_iter(s[0], data).map(|p| (p, p + 1))),
            Separator::Bytes(s) => {
                if !s.is_empty() {
                    found.extend(memchr::memmem::find_iter(data, s).map(|p| (p, p + s.len())));
                    found.dedup_by(|later, earlier| later.0 < earlier.1);
                }
            }
            Separator::Pattern(re) => {
                let mut at = 0;
                while at < data.len() {
                    match re.find_at(data, at) {
                        Some((s, e)) if e > s => {
                            found.push((s, e));
                            at = e;
                        }
                        Some((s, _)) => at = s + 1,
                        None => break,
                    }
                }
            }
        }
        found
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = TAC.seen(&args, io)?;
    let (before, regex) = (seen.flag("b"), seen.flag("r"));
    let separator = seen.value("s").map_or(b"\n".to_vec(), |s| os_bytes(s).to_vec());
    let mut files = seen.operands;
    let separator = if regex && !separator.is_empty() {
        match Regex::new(&separator, Flavor::Basic, Flags::default()) {
            Ok(re) => Separator::Pattern(re),
            Err(e) => {
                return Err(UError::new(1, e.to_string()));
            }
        }
    } else {
        Separator::Bytes(separator)
    };
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let mut status = 0;
    for file in &files {
        let mut data = Vec::new();
        let read = open_input(file, &mut *io.stdin).and_then(|mut input| input.reader().read_to_end(&mut data));
        if let Err(e) = read {
            if std::fs::metadata(file).map(|m| m.is_dir()).unwrap_or(false) {
                io.error(format!("{}: read error: {}", common::io::quote(file), strerror(&e)));
            } else {
                io.error(format!("failed to open {} for reading: {}", common::io::quote(file), strerror(&e)));
            }
            status = 1;
            continue;
        }
        if let Err(e) = tac(&data, &separator, before, io.stdout) {
            return Err(UError::write(&e));
        }
    }
    Ok(status)
}

fn tac(data: &[u8], separator: &Separator, before: bool, out: &mut dyn Write) -> io::Result<()> {
    let found = separator.find_all(data);
    // Record boundaries: after each separator, or (with -b) at each separator's start.
    let mut cuts: Vec<usize> = Vec::with_capacity(found.len() + 2);
    cuts.push(0);
    cuts.extend(found.iter().map(|&(s, e)| if before { s } else { e }));
    cuts.push(data.len());
    for w in cuts.windows(2).rev() {
        if w[1] > w[0] {
            out.write_all(&data[w[0]..w[1]])?;
        }
    }
    Ok(())
}
