//! `truncate`: shrink or extend files to a size (-s with + - < > / % and suffixes, -r, -c).

use std::ffi::OsString;
use std::path::Path;

use common::args::Command;
use common::io::quote;
use common::size::{parse_size, SizeError};
use common::{strerror, Io, UError};

const SPEC: &str = "no-create,c io-blocks,o reference,r: size,s:";

const TRUNCATE: Command = Command { missing: "file operand", ..Command::compact("truncate", SPEC, HELP).operands_between(1, usize::MAX) };

const HELP: &str = "Usage: truncate OPTION... FILE...
Shrink or extend the size of each FILE to the specified size

A FILE argument that does not exist is created.

If a FILE is larger than the specified size, the extra data is lost.
If a FILE is shorter, it is extended and the sparse extended part (hole)
reads as zero bytes.

Mandatory arguments to long options are mandatory for short options too.
  -c, --no-create        do not create any files
  -o, --io-blocks        treat SIZE as number of IO blocks instead of bytes
  -r, --reference=RFILE  base size on RFILE
  -s, --size=SIZE        set or adjust the file size by SIZE bytes
{standard}
The SIZE argument is an integer and optional unit (example: 10K is 10*1024).
Units are K,M,G,T,P,E,Z,Y,R,Q (powers of 1024) or KB,MB,... (powers of 1000).
Binary prefixes can be used, too: KiB=K, MiB=M, and so on.

SIZE may also be prefixed by one of the following modifying characters:
'+' extend by, '-' reduce by, '<' at most, '>' at least,
'/' round down to multiple of, '%' round up to multiple of.
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Set,
    Extend,
    Reduce,
    AtMost,
    AtLeast,
    RoundDown,
    RoundUp,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut no_create = false;
    let mut size: Option<(Op, u64)> = None;
    let mut reference: Option<OsString> = None;
    let files = TRUNCATE.operands(&args, io, &mut |_, id, value| {
        match id {
            "no-create" => no_create = true,
            "io-blocks" => {
                return Err(UError::new(1, "option not supported in the sandbox: --io-blocks"));
            }
            "reference" => reference = value,
            "size" => {
                let text = value.unwrap_or_default().to_string_lossy().into_owned();
                match parse_spec(&text) {
                    Ok(s) => size = Some(s),
                    Err(SizeError::TooLarge) => {
                        return Err(UError::new(1, format!("Invalid number: {}: Value too large for defined data type", quote(text.as_ref()))));
                    }
                    Err(SizeError::Invalid) => {
                        return Err(UError::new(1, format!("Invalid number: {}", quote(text.as_ref()))));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    if size.is_none() && reference.is_none() {
        return Err(UError::usage(1, "you must specify either '--size' or '--reference'"));
    }
    if let (Some((op, _)), Some(_)) = (size, &reference) {
        if op == Op::Set {
            return Err(UError::usage(1, "you must specify a relative '--size' with '--reference'"));
        }
    }
    if let Some((Op::RoundDown | Op::RoundUp, 0)) = size {
        return Err(UError::new(1, "division by zero"));
    }
    let reference_size = match &reference {
        Some(r) => match common::fsext::metadata(Path::new(r), true) {
            Ok(m) => Some(m.size),
            Err(e) => {
                return Err(UError::new(1, format!("cannot stat {}: {}", quote(r), strerror(&e))));
            }
        },
        None => None,
    };
    let mut status = 0;
    for file in files {
        let path = Path::new(&file);
        let file_handle = match std::fs::OpenOptions::new().write(true).create(!no_create).open(path) {
            Ok(f) => f,
            Err(e) => {
                if no_create && e.kind() == std::io::ErrorKind::NotFound {
                    continue;
                }
                io.error(format!("cannot open {} for writing: {}", quote(&file), strerror(&e)));
                status = 1;
                continue;
            }
        };
        let current = match reference_size {
            Some(s) => s,
            None => file_handle.metadata().map(|m| m.len()).unwrap_or(0),
        };
        let new_size = match size {
            None => current,
            Some((op, n)) => match op {
                Op::Set => n,
                Op::Extend => current.saturating_add(n),
                Op::Reduce => current.saturating_sub(n),
                Op::AtMost => current.min(n),
                Op::AtLeast => current.max(n),
                Op::RoundDown => current / n * n,
                Op::RoundUp => (current + n - 1) / n * n,
            },
        };
        if let Err(e) = file_handle.set_len(new_size) {
            io.error(format!("failed to truncate {} at {} bytes: {}", quote(&file), new_size, strerror(&e)));
            status = 1;
        }
    }
    Ok(status)
}

fn parse_spec(text: &str) -> Result<(Op, u64), SizeError> {
    let trimmed = text.trim_start();
    let (op, rest) = match trimmed.chars().next() {
        Some('+') => (Op::Extend, &trimmed[1..]),
        Some('-') => (Op::Reduce, &trimmed[1..]),
        Some('<') => (Op::AtMost, &trimmed[1..]),
        Some('>') => (Op::AtLeast, &trimmed[1..]),
        Some('/') => (Op::RoundDown, &trimmed[1..]),
        Some('%') => (Op::RoundUp, &trimmed[1..]),
        _ => (Op::Set, trimmed),
    };
    let rest = rest.trim_start();
    if rest.starts_with('-') || (op != Op::Set && rest.starts_with('+')) {
        return Err(SizeError::Invalid);
    }
    let n = parse_size(rest.strip_prefix('+').unwrap_or(rest), "EgGkKmMPQRtTYZ0")?;
    if n > i64::MAX as u64 {
        return Err(SizeError::TooLarge);
    }
    Ok((op, n))
}
