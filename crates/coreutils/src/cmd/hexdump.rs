//! `hexdump` (util-linux 2.38): every display, the built-in ones (`-C`, `-b`, `-c`, `-d`,
//! `-o`, `-x`, and the default) included, is a list of format strings applied to each
//! block of input; `*` marks repeated blocks unless `-v`; `-s` skips and `-n` limits.

#[path = "hexdump/format.rs"]
mod format;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

use common::{strerror, Command, Io, UError};

use format::{Conv, Format};

const SPEC: &str = "b,one-byte-octal c,one-byte-char C,canonical d,two-bytes-decimal o,two-bytes-octal x,two-bytes-hex color,L:: e,format: f,format-file: n,length: s,skip: v,no-squeezing help,h version,V";

const HEXDUMP: Command = Command { version: "hexdump from util-linux 2.38.1 (Airlock)\n", ..Command::compact("hexdump", SPEC, HELP) };

const ADDRESS_7: &str = "\"%07.7_Ax\\n\"";

fn builtin(id: &str) -> Vec<String> {
    let body = match id {
        "b" => "\"%07.7_ax \" 16/1 \"%03o \" \"\\n\"",
        "c" => "\"%07.7_ax\" 16/1 \"%4_c\" \"\\n\"",
        "d" => "\"%07.7_ax \" 8/2 \"  %05u \" \"\\n\"",
        "o" => "\"%07.7_ax \" 8/2 \" %06o \" \"\\n\"",
        "x" => "\"%07.7_ax \" 8/2 \"   %04x \" \"\\n\"",
        "C" => {
            return vec!["\"%08.8_Ax\\n\"".to_string(), "\"%08.8_ax  \" 8/1 \"%02x \" \"  \" 8/1 \"%02x \"".to_string(), "\"  |\" 16/1 \"%_p\" \"|\\n\"".to_string()];
        }
        _ => "\"%07.7_ax \" 8/2 \"%04x \" \"\\n\"",
    };
    vec![ADDRESS_7.to_string(), body.to_string()]
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut sources: Vec<Vec<u8>> = Vec::new();
    let mut length: Option<u64> = None;
    let mut skip = 0u64;
    let mut verbose = false;
    let files = HEXDUMP.operands(&args, io, &mut |_, id, value| {
        let value = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
        match id {
            "b" | "c" | "C" | "d" | "o" | "x" => sources.extend(builtin(id).into_iter().map(String::into_bytes)),
            "e" => sources.push(value.into_bytes()),
            "f" => {
                let text = std::fs::read(&value).map_err(|e| UError::io(1, &value, &e))?;
                for line in text.split(|b| *b == b'\n') {
                    let trimmed: Vec<u8> = line.iter().copied().skip_while(|b| b.is_ascii_whitespace()).collect();
                    if !trimmed.is_empty() && trimmed[0] != b'#' {
                        sources.push(line.to_vec());
                    }
                }
            }
            "n" | "s" => match super::cmd_od::parse_count(&value) {
                Some(v) if id == "n" => length = Some(v),
                Some(v) => skip = v,
                None => {
                    let what = if id == "n" { "length" } else { "offset" };
                    return Err(UError::new(1, format!("failed to parse {}: '{}': Invalid argument", what, value)));
                }
            },
            "v" => verbose = true,
            _ => {}
        }
        Ok(())
    })?;
    if sources.is_empty() {
        sources.extend(builtin("default").into_iter().map(String::into_bytes));
    }
    let mut formats = Vec::new();
    for s in &sources {
        formats.push(format::parse(s).map_err(|message| UError::new(1, message))?);
    }
    let block = formats.iter().map(|f| f.bytes).max().unwrap_or(0);
    format::finish(&mut formats, block);
    let mut input = Input { files: &files, next: 0, current: None, skip, address: 0, left: length, failed: 0, opened: 0 };
    let result = display(io, &formats, block, verbose, &mut input);
    if let Err(e) = result {
        if !common::error::is_broken_pipe(&e) {
            io.error(strerror(&e));
        }
        return Ok(1);
    }
    if input.failed > 0 {
        if input.failed == files.len() {
            io.error("all input file arguments failed");
        }
        return Ok(1);
    }
    Ok(0)
}

enum Source {
    Stdin,
    File(BufReader<File>),
}

/// The operands as one stream, with -s applied file by file as util-linux does.
struct Input<'f> {
    files: &'f [OsString],
    next: usize,
    current: Option<Source>,
    skip: u64,
    address: u64,
    left: Option<u64>,
    failed: usize,
    opened: usize,
}

impl<'f> Input<'f> {
    fn open_next(&mut self, io: &mut Io) -> bool {
        loop {
            if self.files.is_empty() {
                if self.opened > 0 {
                    return false;
                }
                self.opened += 1;
                self.current = Some(Source::Stdin);
            } else {
                if self.next >= self.files.len() {
                    return false;
                }
                let name = &self.files[self.next];
                self.next += 1;
                match File::open(name) {
                    Ok(f) => self.current = Some(Source::File(BufReader::with_capacity(common::io::BUFFER_SIZE, f))),
                    Err(e) => {
                        let _ = io::Write::flush(&mut *io.stdout);
                        io.error(format!("{}: {}", name.to_string_lossy(), strerror(&e)));
                        self.failed += 1;
                        continue;
                    }
                }
            }
            if self.skip > 0 && !self.apply_skip(io) {
                self.current = None;
                continue;
            }
            return true;
        }
    }

    /// Skips what -s asks for in the file just opened; false when it is used up entirely.
    fn apply_skip(&mut self, io: &mut Io) -> bool {
        match self.current.as_mut() {
            Some(Source::File(f)) => {
                let size = f.get_ref().metadata().map(|m| if m.is_file() { Some(m.len()) } else { None }).unwrap_or(None);
                if let Some(size) = size {
                    if self.skip >= size {
                        self.skip -= size;
                        self.address += size;
                        return false;
                    }
                    if f.seek(SeekFrom::Start(self.skip)).is_ok() {
                        self.address += self.skip;
                        self.skip = 0;
                        return true;
                    }
                }
                let skipped = io::copy(&mut f.take(self.skip), &mut io::sink()).unwrap_or(0);
                self.address += skipped;
                self.skip -= skipped;
                self.skip == 0
            }
            Some(Source::Stdin) => {
                let skipped = io::copy(&mut (&mut *io.stdin).take(self.skip), &mut io::sink()).unwrap_or(0);
                self.address += skipped;
                self.skip -= skipped;
                self.skip == 0
            }
            None => false,
        }
    }

    /// Fills `buf` as far as the input and -n allow.
    fn fill(&mut self, io: &mut Io, buf: &mut [u8]) -> io::Result<usize> {
        let want = match self.left {
            Some(l) => (l.min(buf.len() as u64)) as usize,
            None => buf.len(),
        };
        let mut got = 0;
        while got < want {
            if self.current.is_none() && !self.open_next(io) {
                break;
            }
            let result = match self.current.as_mut() {
                Some(Source::Stdin) => io.stdin.read(&mut buf[got..want]),
                Some(Source::File(f)) => f.read(&mut buf[got..want]),
                None => Ok(0),
            };
            match result {
                Ok(0) => self.current = None,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    io.error(strerror(&e));
                    self.failed += 1;
                    self.current = None;
                }
            }
        }
        if let Some(l) = self.left.as_mut() {
            *l -= got as u64;
        }
        Ok(got)
    }
}

#[derive(PartialEq, Eq)]
enum Squeeze {
    All,
    First,
    Wait,
    Dup,
}

fn display(io: &mut Io, formats: &[Format], block: usize, verbose: bool, input: &mut Input) -> io::Result<()> {
    let mut squeeze = if verbose { Squeeze::All } else { Squeeze::First };
    let mut current = vec![0u8; block];
    let mut previous = vec![0u8; block];
    let mut end_address: Option<u64> = None;
    let mut out = Vec::with_capacity(4096);
    if block > 0 {
        loop {
            let n = input.fill(io, &mut current)?;
            if n == 0 {
                break;
            }
            if n < block {
                current[n..].iter_mut().for_each(|b| *b = 0);
                end_address = Some(input.address + n as u64);
            } else if squeeze != Squeeze::All && squeeze != Squeeze::First && current == previous {
                if squeeze == Squeeze::Wait {
                    io.out(b"*\n")?;
                }
                squeeze = Squeeze::Dup;
                input.address += block as u64;
                continue;
            } else if squeeze == Squeeze::Dup || squeeze == Squeeze::First {
                squeeze = Squeeze::Wait;
            }
            out.clear();
            show_block(formats, &current, input.address, end_address, &mut out);
            io.out(&out)?;
            std::mem::swap(&mut current, &mut previous);
            if n < block {
                input.address += n as u64;
                break;
            }
            input.address += block as u64;
        }
    }
    // The `%_A` unit (the last one given) prints the final offset.
    let end_unit = formats.iter().flat_map(|f| f.units.iter()).filter(|u| u.ignore).last();
    if let Some(unit) = end_unit {
        let address = match end_address {
            Some(a) => a,
            None if input.address == 0 => return Ok(()),
            None => input.address,
        };
        out.clear();
        for pr in &unit.prs {
            match pr.conv {
                Conv::Address(_) | Conv::EndAddress(_) | Conv::Text => format::print(pr, &[], address, false, &mut out),
                _ => {}
            }
        }
        io.out(&out)?;
    }
    Ok(())
}

fn show_block(formats: &[Format], data: &[u8], start: u64, end: Option<u64>, out: &mut Vec<u8>) {
    for f in formats {
        let mut address = start;
        let mut offset = 0usize;
        for unit in &f.units {
            if unit.ignore {
                break;
            }
            for count in (1..=unit.reps).rev() {
                for pr in &unit.prs {
                    let past_end = end.map_or(false, |e| address >= e) && pr.conv != Conv::Text;
                    let slice = if offset < data.len() { &data[offset..] } else { &[][..] };
                    if past_end || slice.len() < pr.bytes {
                        let mut blank = pr.clone();
                        blank.conv = Conv::Blank;
                        blank.flags.clear();
                        format::print(&blank, &[], address, count == 1, out);
                    } else {
                        format::print(pr, slice, address, count == 1, out);
                    }
                    address += pr.bytes as u64;
                    offset += pr.bytes;
                }
            }
        }
    }
}

const HELP: &str = "
Usage:
 hexdump [options] <file>...

Display file contents in hexadecimal, decimal, octal, or ascii.

Options:
 -b, --one-byte-octal      one-byte octal display
 -c, --one-byte-char       one-byte character display
 -C, --canonical           canonical hex+ASCII display
 -d, --two-bytes-decimal   two-byte decimal display
 -o, --two-bytes-octal     two-byte octal display
 -x, --two-bytes-hex       two-byte hexadecimal display
 -L, --color[=<mode>]      interpret color formatting specifiers
                             colors are enabled by default
 -e, --format <format>     format string to be used for displaying data
 -f, --format-file <file>  file that contains format strings
 -n, --length <length>     interpret only length bytes of input
 -s, --skip <offset>       skip offset bytes from the beginning
 -v, --no-squeezing        output identical lines

 -h, --help                display this help
 -V, --version             display version

Arguments:
 <length> and <offset> arguments may be followed by the suffixes for
   GiB, TiB, PiB, EiB, ZiB, and YiB (the \"iB\" is optional)

For more details see hexdump(1).
";
