//! `rev` (util-linux): reverses the characters of each line. UTF-8 sequences stay whole;
//! like util-linux in a UTF-8 locale, an invalid sequence is an error that ends the file.

use std::ffi::OsString;
use std::io::{self, BufRead};

use common::args::{Command, Parsed};
use common::io::open_input;
use common::{strerror, Io, UError};

use crate::registry::cmd_head::operands::Failure;

const SPEC: &str = "0,zero h,help V,version";

const REV: Command = Command::compact("rev", SPEC, HELP);

const HELP: &str = "
Usage:
 rev [options] [file ...]

Reverse lines characterwise.

Options:
 -0, --zero     zero termination, use NUL as the line separator
 -h, --help     display this help
 -V, --version  display version
";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut eol = b'\n';
    let mut files = Vec::new();
    REV.options(&args, io, &mut |io, p| {
        match p {
            Parsed::Operand(f) => files.push(f),
            Parsed::Opt { id, .. } => match id {
                "0" => eol = 0,
                "h" => {
                    let _ = io.out(HELP.as_bytes());
                    return Err(UError::exit(0));
                }
                "V" => {
                    let _ = io.out(common::version_text("rev").as_bytes());
                    return Err(UError::exit(0));
                }
                _ => {}
            },
        }
        Ok(())
    })?;
    // util-linux reads stdin only without operands: `-` is a file name to it.
    let use_stdin = files.is_empty();
    if use_stdin {
        files.push(OsString::from("-"));
    }
    let mut status = 0;
    for file in &files {
        let name = if use_stdin { "stdin".to_string() } else { file.to_string_lossy().into_owned() };
        let path = if use_stdin { file.clone() } else { std::path::Path::new(".").join(file).into_os_string() };
        let mut input = match open_input(if file.to_string_lossy().starts_with('/') { file } else { &path }, &mut *io.stdin) {
            Ok(i) => i,
            Err(e) => {
                io.error(format!("cannot open {}: {}", name, strerror(&e)));
                status = 1;
                continue;
            }
        };
        match rev(input.reader(), io.stdout, eol) {
            Ok(true) => {}
            Ok(false) => {
                drop(input);
                io.error(format!("{}: 0: Invalid or incomplete multibyte or wide character", name));
                status = 1;
            }
            Err(Failure::Read(e)) => {
                drop(input);
                io.error(format!("{}: {}", name, strerror(&e)));
                status = 1;
            }
            Err(Failure::Write(e)) => {
                drop(input);
                return Err(UError::write(&e));
            }
        }
    }
    Ok(status)
}


/// Reverses each line; Ok(false) when an invalid sequence stopped it.
fn rev(reader: &mut dyn BufRead, out: &mut dyn io::Write, eol: u8) -> Result<bool, Failure> {
    let mut line = Vec::new();
    let mut buf = Vec::new();
    loop {
        line.clear();
        if reader.read_until(eol, &mut line).map_err(Failure::Read)? == 0 {
            return Ok(true);
        }
        let ended = line.last() == Some(&eol);
        let body = if ended { &line[..line.len() - 1] } else { &line[..] };
        let text = match std::str::from_utf8(body) {
            Ok(t) => t,
            Err(_) => return Ok(false),
        };
        buf.clear();
        for c in text.chars().rev() {
            let mut tmp = [0u8; 4];
            buf.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
        }
        if ended {
            buf.push(eol);
        }
        out.write_all(&buf).map_err(Failure::Write)?;
    }
}
