//! `shuf`: random permutations of input lines (`-e` arguments, `-i LO-HI` numbers), `-n`
//! to limit, `-r` to repeat, `-o` output file, `-z` NUL lines. Randomness is consumed
//! exactly as GNU shuf (gnulib randint/randperm) consumes it, so `--random-source=FILE`
//! gives GNU's permutation for the same file; without it the bytes come from
//! /dev/urandom. Like GNU, `-n` on a pipe or a big file uses reservoir sampling.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};

use common::args::{bytes_os, os_bytes};
use common::io::quote;
use common::{strerror, Command, Io, UError};

const SPEC: &str = "echo,e input-range,i: head-count,n: output,o: random-source: repeat,r zero-terminated,z";

const SHUF: Command = Command::compact("shuf", SPEC, HELP);

/// Input bigger than this (or of unknown size) is sampled with a reservoir under -n.
const RESERVOIR_MIN_INPUT: u64 = 8 * 1024 * 1024;

/// gnulib's randint source: random bytes turned into uniform integers without waste.
struct RandInt {
    source: Box<dyn Read>,
    name: String,
    randnum: u64,
    randmax: u64,
}

impl RandInt {
    fn bytes(&mut self, buf: &mut [u8]) -> Result<(), String> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.source.read(&mut buf[filled..]) {
                Ok(0) => return Err(format!("{}: end of file", quote(&bytes_os(self.name.as_bytes())))),
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("{}: {}", self.name, strerror(&e))),
            }
        }
        Ok(())
    }

    /// A uniform integer in 0..=genmax (randint_genmax).
    fn genmax(&mut self, genmax: u64) -> Result<u64, String> {
        let mut randnum = self.randnum;
        let mut randmax = self.randmax;
        let choices = genmax.wrapping_add(1);
        loop {
            if randmax < genmax {
                let mut count = 0;
                let mut rmax = randmax;
                loop {
                    rmax = (rmax << 8).wrapping_add(255);
                    count += 1;
                    if rmax >= genmax {
                        break;
                    }
                }
                let mut buf = [0u8; 8];
                self.bytes(&mut buf[..count])?;
                let mut i = 0;
                loop {
                    randnum = (randnum << 8).wrapping_add(buf[i] as u64);
                    randmax = (randmax << 8).wrapping_add(255);
                    i += 1;
                    if randmax >= genmax {
                        break;
                    }
                }
            }
            if randmax == genmax {
                self.randnum = 0;
                self.randmax = 0;
                return Ok(randnum);
            }
            let excess = randmax - genmax;
            let unusable = excess % choices;
            let last_usable = randmax - unusable;
            let reduced = randnum % choices;
            if randnum <= last_usable {
                self.randnum = randnum / choices;
                self.randmax = excess / choices;
                return Ok(reduced);
            }
            randnum = reduced;
            randmax = unusable - 1;
        }
    }

    /// A uniform integer in 0..n (randint_choose).
    fn choose(&mut self, n: u64) -> Result<u64, String> {
        self.genmax(n.wrapping_sub(1))
    }
}

/// The first `h` entries of a random permutation of 0..n (randperm_new).
fn permutation(r: &mut RandInt, h: usize, n: usize) -> Result<Vec<usize>, String> {
    match h {
        0 => Ok(Vec::new()),
        1 => Ok(vec![r.choose(n as u64)? as usize]),
        _ => {
            // A sparse map stands in for the full 0..n array when n is large.
            let mut swapped: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
            let mut out = Vec::with_capacity(h);
            for i in 0..h {
                let j = i + r.choose((n - i) as u64)? as usize;
                let vi = *swapped.get(&i).unwrap_or(&i);
                let vj = *swapped.get(&j).unwrap_or(&j);
                swapped.insert(j, vi);
                out.push(vj);
            }
            Ok(out)
        }
    }
}

/// floor(log2(n)) + 1 bits per choice, as randperm_bound estimates.
fn randperm_bound(h: usize, n: usize) -> u64 {
    let lg = if n == 0 { 0 } else { 64 - (n as u64).leading_zeros() as u64 };
    (lg * h as u64 + 7) / 8
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut echo, mut repeat) = (false, false);
    let mut range: Option<(u64, u64)> = None;
    let mut head: Option<u64> = None;
    let mut output: Option<OsString> = None;
    let mut random_source: Option<OsString> = None;
    let mut eol = b'\n';
    let operands = SHUF.operands(&args, io, &mut |_, id, value| {
        match id {
            "echo" => echo = true,
            "repeat" => repeat = true,
            "zero-terminated" => eol = 0,
            "input-range" => {
                let text = value.unwrap_or_default();
                if range.is_some() {
                    return Err(UError::new(1, "multiple -i options specified"));
                }
                match parse_range(&text.to_string_lossy()) {
                    Some(r) => range = Some(r),
                    None => {
                        return Err(UError::new(1, format!("invalid input range: {}", quote(&text))));
                    }
                }
            }
            "head-count" => {
                let text = value.unwrap_or_default().to_string_lossy().into_owned();
                let count = if !text.is_empty() && text.bytes().all(|c| c.is_ascii_digit()) { Some(text.parse::<u64>().unwrap_or(u64::MAX)) } else { None };
                match count {
                    Some(n) => head = Some(head.map_or(n, |h| h.min(n))),
                    None => {
                        return Err(UError::new(1, format!("invalid line count: {}", quote(&OsString::from(&text)))));
                    }
                }
            }
            "output" => output = value,
            "random-source" => {
                if random_source.is_some() && random_source != value {
                    return Err(UError::new(1, "multiple random sources specified"));
                }
                random_source = value;
            }
            _ => {}
        }
        Ok(())
    })?;
    if echo && range.is_some() {
        return Err(UError::usage(1, "cannot combine -e and -i options"));
    }
    if (range.is_some() && !operands.is_empty()) || (range.is_none() && !echo && operands.len() > 1) {
        let extra = &operands[if range.is_some() { 0 } else { 1 }];
        return Err(UError::usage(1, format!("extra operand {}", quote(extra))));
    }
    let head_lines = head.unwrap_or(u64::MAX);
    Ok(match shuffle(io, echo, repeat, range, head_lines, output, random_source, eol, &operands) {
        Ok(()) => 0,
        Err(message) => {
            if !message.is_empty() {
                io.error(message);
            }
            1
        }
    })
}

/// `LO-HI`.
fn parse_range(text: &str) -> Option<(u64, u64)> {
    let (lo, hi) = text.split_once('-')?;
    let number = |t: &str| if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) { t.parse::<u64>().ok() } else { None };
    let (lo, hi) = (number(lo)?, number(hi)?);
    if lo > hi.wrapping_add(1) || (lo == 0 && hi == u64::MAX) {
        return None;
    }
    Some((lo, hi))
}

/// Lines of `data` with their terminator (one is added to an unterminated last line).
fn split_lines(mut data: Vec<u8>, eol: u8) -> Vec<Vec<u8>> {
    if !data.is_empty() && data.last() != Some(&eol) {
        data.push(eol);
    }
    data.split_inclusive(|c| *c == eol).map(|l| l.to_vec()).collect()
}

#[allow(clippy::too_many_arguments)]
fn shuffle(io: &mut Io, echo: bool, repeat: bool, range: Option<(u64, u64)>, head_lines: u64, output: Option<OsString>, random_source: Option<OsString>, eol: u8, operands: &[OsString]) -> Result<(), String> {
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut n_lines: u64;
    let mut file_reader: Option<BufReader<File>> = None;
    let mut use_reservoir = false;
    if head_lines == 0 {
        n_lines = 0;
    } else if echo {
        lines = operands
            .iter()
            .map(|o| {
                let mut l = os_bytes(o).to_vec();
                l.push(eol);
                l
            })
            .collect();
        n_lines = lines.len() as u64;
    } else if let Some((lo, hi)) = range {
        n_lines = hi.wrapping_sub(lo).wrapping_add(1);
    } else {
        let size = match operands.first().filter(|f| os_bytes(f) != b"-") {
            Some(path) => {
                let f = File::open(path).map_err(|e| format!("{}: {}", path.to_string_lossy(), strerror(&e)))?;
                let size = f.metadata().map(|m| if m.is_file() { m.len() } else { u64::MAX }).unwrap_or(u64::MAX);
                file_reader = Some(BufReader::new(f));
                size
            }
            // A pipe has no size: GNU then samples with a reservoir under -n.
            None => std::fs::metadata("/dev/stdin").map(|m| if m.is_file() { m.len() } else { u64::MAX }).unwrap_or(u64::MAX),
        };
        use_reservoir = !(repeat || head_lines == u64::MAX || size <= RESERVOIR_MIN_INPUT);
        if use_reservoir {
            n_lines = u64::MAX;
        } else {
            let reader: &mut dyn BufRead = match file_reader.as_mut() {
                Some(r) => r,
                None => &mut *io.stdin,
            };
            let mut data = Vec::new();
            reader.read_to_end(&mut data).map_err(|e| format!("read error: {}", strerror(&e)))?;
            lines = split_lines(data, eol);
            n_lines = lines.len() as u64;
        }
    }
    let mut ahead = if repeat || head_lines < n_lines { head_lines } else { n_lines };
    let bound = if use_reservoir || repeat { u64::MAX } else { randperm_bound(ahead as usize, n_lines as usize) };
    let mut rand = open_source(random_source, bound)?;
    if use_reservoir {
        let reader: &mut dyn BufRead = match file_reader.as_mut() {
            Some(r) => r,
            None => &mut *io.stdin,
        };
        lines = reservoir(reader, eol, ahead, &mut rand)?;
        n_lines = lines.len() as u64;
        ahead = n_lines;
    }
    let order = if repeat { Vec::new() } else { permutation(&mut rand, ahead as usize, n_lines as usize)? };
    let mut file_out;
    let out: &mut dyn Write = match &output {
        Some(path) => {
            file_out = File::create(path).map_err(|e| format!("{}: {}", path.to_string_lossy(), strerror(&e)))?;
            &mut file_out
        }
        None => &mut *io.stdout,
    };
    let mut buffer = Vec::new();
    let number = |n: u64, eol: u8, buffer: &mut Vec<u8>| {
        buffer.extend_from_slice(n.to_string().as_bytes());
        buffer.push(eol);
    };
    let flush = |buffer: &mut Vec<u8>, force: bool, out: &mut dyn Write| -> Result<bool, String> {
        if force || buffer.len() >= common::io::BUFFER_SIZE {
            if out.write_all(buffer).is_err() {
                return Ok(false);
            }
            buffer.clear();
        }
        Ok(true)
    };
    if repeat {
        if head_lines == 0 {
            return Ok(());
        }
        if n_lines == 0 {
            return Err("no lines to repeat".to_string());
        }
        let mut i = 0u64;
        while i < ahead {
            match range {
                Some((lo, _)) => number(lo + rand.choose(n_lines)?, eol, &mut buffer),
                None => buffer.extend_from_slice(&lines[rand.choose(n_lines)? as usize]),
            }
            if !flush(&mut buffer, false, out)? {
                return Ok(());
            }
            i += 1;
        }
    } else {
        for index in order {
            match range {
                Some((lo, _)) => number(lo + index as u64, eol, &mut buffer),
                None => buffer.extend_from_slice(&lines[index]),
            }
            if !flush(&mut buffer, false, out)? {
                return Ok(());
            }
        }
    }
    flush(&mut buffer, true, out)?;
    Ok(())
}

/// The random byte source: `--random-source`, else /dev/urandom. No file is opened when
/// no randomness will be needed, as in GNU.
fn open_source(name: Option<OsString>, bound: u64) -> Result<RandInt, String> {
    if bound == 0 {
        return Ok(RandInt { source: Box::new(std::io::empty()), name: String::new(), randnum: 0, randmax: 0 });
    }
    let path = name.unwrap_or_else(|| OsString::from("/dev/urandom"));
    let file = File::open(&path).map_err(|e| format!("{}: {}", path.to_string_lossy(), strerror(&e)))?;
    Ok(RandInt { source: Box::new(BufReader::new(file)), name: path.to_string_lossy().into_owned(), randnum: 0, randmax: 0 })
}

/// GNU's reservoir sampling: keep `k` lines, each later line replacing a random slot.
fn reservoir(input: &mut dyn BufRead, eol: u8, k: u64, rand: &mut RandInt) -> Result<Vec<Vec<u8>>, String> {
    let read_line = |input: &mut dyn BufRead| -> Result<Option<Vec<u8>>, String> {
        let mut line = Vec::new();
        match input.read_until(eol, &mut line) {
            Ok(0) => Ok(None),
            Ok(_) => {
                if line.last() != Some(&eol) {
                    line.push(eol);
                }
                Ok(Some(line))
            }
            Err(e) => Err(format!("read error: {}", strerror(&e))),
        }
    };
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let mut n_lines: u64 = 0;
    let mut more = true;
    while n_lines < k {
        match read_line(input)? {
            Some(line) => {
                kept.push(line);
                n_lines += 1;
            }
            None => {
                more = false;
                break;
            }
        }
    }
    if more {
        loop {
            let j = rand.choose(n_lines + 1)?;
            match read_line(input)? {
                Some(line) => {
                    if j < k {
                        kept[j as usize] = line;
                    }
                    n_lines += 1;
                }
                None => break,
            }
        }
    }
    Ok(kept)
}

const HELP: &str = "Usage: {} [OPTION]... [FILE]\n  or:  {} -e [OPTION]... [ARG]...\n  or:  {} -i LO-HI [OPTION]...\nWrite a random permutation of the input lines to standard output.\n\nWith no FILE, or when FILE is -, read standard input.\n\n  -e, --echo                treat each ARG as an input line\n  -i, --input-range=LO-HI   treat each number LO through HI as an input line\n  -n, --head-count=COUNT    output at most COUNT lines\n  -o, --output=FILE         write result to FILE instead of standard output\n      --random-source=FILE  get random bytes from FILE\n  -r, --repeat              output lines can be repeated\n  -z, --zero-terminated     line delimiter is NUL, not newline\n{standard}";
