//! `xxd` (vim 9's, 2022-01-14): hex dumps in xxd's layout (grouped hex + ASCII column),
//! `-p` plain, `-i` C include, `-b` bits, `-e` little-endian groups, and `-r` (with `-p`)
//! to turn a dump back into bytes. Options are parsed as xxd does: each word is an option
//! recognised by its first two characters (`-ps`, `-cols 8`, `--len=...` is not a thing).
//! Here: the dump formats; the option syntax is `xxd/options.rs`, `-r` is `xxd/revert.rs`.

#[path = "xxd/options.rs"]
mod options;
#[path = "xxd/revert.rs"]
mod revert;

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};

use common::args::os_bytes;
use common::{strerror, Io, UError};

use options::{options, Mode, Options, USAGE};
use revert::{revert, Patch};

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let words: Vec<&[u8]> = args.iter().skip(1).map(|a| os_bytes(a)).collect();
    let (mut o, i, cols_given) = match options(&words, io) {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    let files = &words[i..];
    if files.len() > 2 {
        let _ = io.stderr.write_all(USAGE.as_bytes());
        return Ok(1);
    }
    if o.cols == 0 || (o.mode == Mode::Plain && o.cols < 0) {
        o.cols = match o.mode {
            Mode::Plain => 30,
            Mode::Include => 12,
            Mode::Bits => 6,
            _ => 16,
        };
        // `-p -c 0` means one unbroken line.
        if o.mode == Mode::Plain && cols_given {
            o.cols = i64::MAX;
        }
    }
    if o.cols < 1 || (matches!(o.mode, Mode::Normal | Mode::Bits | Mode::LittleEndian) && o.cols > 256) {
        return Err(UError::new(1, "invalid number of columns (max. 256)."));
    }
    if o.group < 0 {
        o.group = match o.mode {
            Mode::Bits => 1,
            Mode::Normal => 2,
            Mode::LittleEndian => 4,
            _ => 0,
        };
    }
    if o.group < 1 || o.group > o.cols {
        o.group = o.cols;
    }
    if o.mode == Mode::LittleEndian && (o.group & (o.group - 1)) != 0 {
        return Err(UError::new(1, "number of octets per group must be a power of 2 with -e."));
    }
    let input_name = files.first().copied().filter(|f| *f != b"-");
    let output_name = files.get(1).copied().filter(|f| *f != b"-");
    let mut file_input = match input_name {
        Some(name) => match File::open(common::args::bytes_os(name)) {
            Ok(f) => Some(f),
            Err(e) => {
                return Err(UError::new(2, format!("{}: {}", String::from_utf8_lossy(name), strerror(&e))));
            }
        },
        None => None,
    };
    let file_output = match output_name {
        Some(name) => {
            let mut options = OpenOptions::new();
            options.write(true).create(true);
            if !o.revert {
                options.truncate(true);
            }
            match options.open(common::args::bytes_os(name)) {
                Ok(f) => Some(io::BufWriter::with_capacity(common::io::BUFFER_SIZE, f)),
                Err(e) => {
                    return Err(UError::new(3, format!("{}: {}", String::from_utf8_lossy(name), strerror(&e))));
                }
            }
        }
        None => None,
    };
    // Seek before dumping: files can seek (also from the end); stdin skips by reading.
    let mut start = 0i64;
    if o.seek_given && !o.revert {
        let target = if o.negative_seek { -o.seek } else { o.seek };
        match file_input.as_mut() {
            Some(f) => {
                let position = if o.negative_seek && !o.relative_seek { f.seek(SeekFrom::End(target)) } else { f.seek(SeekFrom::Start(target.max(0) as u64)) };
                match position {
                    Ok(p) => start = p as i64,
                    Err(_) => {
                        return Err(UError::new(4, "sorry cannot seek."));
                    }
                }
            }
            None => {
                if o.negative_seek {
                    return Err(UError::new(4, "sorry cannot seek."));
                }
                let _ = io::copy(&mut (&mut *io.stdin).take(target.max(0) as u64), &mut io::sink());
                start = target;
            }
        }
    }
    let Io { stdin, stdout, .. } = io;
    let mut file_reader = file_input.map(|f| BufReader::with_capacity(common::io::BUFFER_SIZE, f));
    let reader: &mut dyn BufRead = match file_reader.as_mut() {
        Some(r) => r,
        None => &mut **stdin,
    };
    let mut file_output = file_output;
    let result = if o.revert {
        if !matches!(o.mode, Mode::Normal | Mode::Plain) {
            return Err(UError::new(255, "Sorry, cannot revert this type of hexdump"));
        }
        let base = if o.negative_seek { -o.seek } else { o.seek };
        let mut patch = match file_output.as_mut() {
            Some(f) => Patch::File(f),
            None => Patch::Stream(&mut **stdout),
        };
        match revert(reader, &mut patch, &o, base) {
            Ok(true) => Ok(()),
            Ok(false) => {
                return Err(UError::new(5, "Sorry, cannot seek backwards."));
            }
            Err(e) => Err(e),
        }
    } else {
        match file_output.as_mut() {
            Some(f) => dump(reader, f, &o, input_name, start),
            None => dump(reader, &mut **stdout, &o, input_name, start),
        }
    };
    let result = result.and_then(|_| file_output.as_mut().map_or(Ok(()), |f| f.flush()));
    match result {
        Ok(()) => Ok(0),
        Err(e) if common::error::is_broken_pipe(&e) => Ok(0),
        Err(e) => Err(UError::new(3, strerror(&e))),
    }
}

/// Reads up to `length` bytes (all when negative) one at a time through the buffer.
fn bytes_of<'r>(reader: &'r mut dyn BufRead, length: i64) -> impl Iterator<Item = io::Result<u8>> + 'r {
    let limit = if length < 0 { u64::MAX } else { length as u64 };
    reader.take(limit).bytes()
}

fn dump(reader: &mut dyn BufRead, out: &mut dyn Write, o: &Options, name: Option<&[u8]>, start: i64) -> io::Result<()> {
    let hex: &[u8; 16] = if o.upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    match o.mode {
        Mode::Include => include(reader, out, o, name, hex),
        Mode::Plain => {
            let mut column = 0i64;
            let mut line = Vec::with_capacity(128);
            for b in bytes_of(reader, o.length) {
                let b = b?;
                line.push(hex[(b >> 4) as usize]);
                line.push(hex[(b & 15) as usize]);
                column += 1;
                if column == o.cols {
                    line.push(b'\n');
                    out.write_all(&line)?;
                    line.clear();
                    column = 0;
                }
            }
            if column > 0 {
                line.push(b'\n');
                out.write_all(&line)?;
            }
            Ok(())
        }
        _ => normal(reader, out, o, start, hex),
    }
}

fn include(reader: &mut dyn BufRead, out: &mut dyn Write, o: &Options, name: Option<&[u8]>, hex: &[u8; 16]) -> io::Result<()> {
    let var: Option<Vec<u8>> = match (&o.name, name) {
        (Some(n), _) => Some(n.clone()),
        (None, Some(path)) => {
            let mut v = Vec::new();
            if path.first().map_or(false, |c| c.is_ascii_digit()) {
                v.extend_from_slice(b"__");
            }
            v.extend(path.iter().map(|c| if c.is_ascii_alphanumeric() { *c } else { b'_' }));
            Some(v)
        }
        (None, None) => None,
    };
    let var = var.map(|v| if o.capitalize { v.to_ascii_uppercase() } else { v });
    if let Some(v) = &var {
        out.write_all(b"unsigned char ")?;
        out.write_all(v)?;
        out.write_all(b"[] = {\n")?;
    }
    let prefix: &[u8] = if o.upper { b"0X" } else { b"0x" };
    let mut count = 0i64;
    let mut text = Vec::with_capacity(128);
    for b in bytes_of(reader, o.length) {
        let b = b?;
        if count == 0 {
            text.extend_from_slice(b"  ");
        } else if count % o.cols == 0 {
            text.extend_from_slice(b",\n  ");
        } else {
            text.extend_from_slice(b", ");
        }
        text.extend_from_slice(prefix);
        text.push(hex[(b >> 4) as usize]);
        text.push(hex[(b & 15) as usize]);
        count += 1;
        if text.len() > 60000 {
            out.write_all(&text)?;
            text.clear();
        }
    }
    if count > 0 {
        text.push(b'\n');
    }
    if var.is_some() {
        text.extend_from_slice(b"};\n");
    }
    out.write_all(&text)?;
    if let Some(v) = &var {
        out.write_all(b"unsigned int ")?;
        out.write_all(v)?;
        write!(out, "{} = {};\n", if o.capitalize { "_LEN" } else { "_len" }, count)?;
    }
    Ok(())
}

/// The classic dump (also -b and -e), with xxd's column arithmetic and -a autoskip.
fn normal(reader: &mut dyn BufRead, out: &mut dyn Write, o: &Options, start: i64, hex: &[u8; 16]) -> io::Result<()> {
    let cols = o.cols as usize;
    let group = o.group as usize;
    let group_len = if o.mode == Mode::Bits { 8 * group + 1 } else { 2 * group + 1 };
    let mut line: Vec<u8> = Vec::new();
    let mut skip = AutoSkip { zero_seen: 0, saved: Vec::new() };
    let mut p = 0usize;
    let mut n = 0i64;
    let mut address_len = 0usize;
    let mut nonzero = 0;
    for b in bytes_of(reader, o.length) {
        let e = b?;
        if p == 0 {
            let offset = n + start + o.display_offset;
            let address = if o.decimal { format!("{:08}:", offset) } else { format!("{:08x}:", offset) };
            address_len = address.len();
            line.clear();
            line.extend_from_slice(address.as_bytes());
            line.resize(address_len + 3 + (group_len * cols - 1) / group + cols + 1, b' ');
        }
        let x = if o.mode == Mode::LittleEndian { p ^ (group - 1) } else { p };
        let c = address_len + 1 + (group_len * x) / group;
        if o.mode == Mode::Bits {
            for bit in 0..8 {
                line[c + bit] = if e & (0x80 >> bit) != 0 { b'1' } else { b'0' };
            }
        } else {
            line[c] = hex[(e >> 4) as usize];
            line[c + 1] = hex[(e & 15) as usize];
        }
        let ascii = address_len + 3 + (group_len * cols - 1) / group + p;
        line[ascii] = if e > 31 && e < 127 { e } else { b'.' };
        if e != 0 {
            nonzero += 1;
        }
        n += 1;
        p += 1;
        if p == cols {
            let end = address_len + 3 + (group_len * cols - 1) / group + p;
            line.truncate(end);
            line.push(b'\n');
            skip.line(out, &line, if o.autoskip { nonzero } else { 1 })?;
            nonzero = 0;
            p = 0;
        }
    }
    if p > 0 {
        let end = address_len + 3 + (group_len * cols - 1) / group + p;
        line.truncate(end);
        line.push(b'\n');
        skip.line(out, &line, 1)?;
    } else if o.autoskip {
        skip.line(out, &line, -1)?;
    }
    Ok(())
}

/// xxd's `xxdline`: with -a, runs of all-zero lines become one `*`.
struct AutoSkip {
    zero_seen: i32,
    saved: Vec<u8>,
}

impl AutoSkip {
    fn line(&mut self, out: &mut dyn Write, l: &[u8], nz: i32) -> io::Result<()> {
        if nz == 0 && self.zero_seen == 1 {
            self.saved = l.to_vec();
        }
        let seen_before = self.zero_seen;
        if nz == 0 {
            self.zero_seen += 1;
        }
        if nz != 0 || seen_before == 0 {
            if nz != 0 {
                if nz < 0 {
                    self.zero_seen -= 1;
                }
                if self.zero_seen == 2 {
                    out.write_all(&self.saved)?;
                }
                if self.zero_seen > 2 {
                    out.write_all(b"*\n")?;
                }
            }
            if nz >= 0 || self.zero_seen > 0 {
                out.write_all(l)?;
            }
            if nz != 0 {
                self.zero_seen = 0;
            }
        }
        Ok(())
    }
}
