//! command: gzip
//! `gzip` (1.12's interface): compress or decompress files in place (`a` ↔ `a.gz`, keeping
//! mode and mtime), or stdin to stdout; -c, -d, -k, -f, -l, -t, -r, -n/-N, -S, -1…-9, -v/-q.
//! `gunzip` and `zcat` are this command with -d and -dc. Output is deflate from flate2, so
//! it need not be byte-identical to GNU gzip's, but it round-trips with it both ways.
//! Status: 0 ok, 1 error, 2 warning (as GNU).

#[path = "gzip/format.rs"]
mod format;

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use common::args::{bytes_os, os_bytes, Command};
use common::fsext;
use common::fsops::{self, SetTime};
use common::{strerror, Io, UError};

use format::{Ending, GzError};

const SPEC: &str = "ascii,a stdout,c stdout=to-stdout decompress,d decompress=uncompress force,f help,h keep,k list,l license,L no-name,n name,N quiet,q recursive,r suffix,S: test,t verbose,v version,V rsyncable synchronous fast best 1 2 3 4 5 6 7 8 9";

struct Opts {
    decompress: bool,
    stdout: bool,
    force: bool,
    keep: bool,
    list: bool,
    test: bool,
    recursive: bool,
    /// None: the default (save when compressing, don't restore when decompressing).
    name: Option<bool>,
    quiet: bool,
    verbose: bool,
    suffix: String,
    level: u32,
}

/// Worst outcome so far: 0, 2 (warning) or 1 (error), as gzip combines them.
struct Status(i32);

impl Status {
    fn error(&mut self) {
        self.0 = 1;
    }
    /// `gzip: SUBJECT: reason`, and the error status.
    fn fail(&mut self, io: &mut Io, subject: &str, e: &io::Error) {
        io.error(format!("{}: {}", subject, strerror(e)));
        self.error();
    }
    /// The file opened or created, or None once why it could not be is reported.
    fn opened(&mut self, io: &mut Io, subject: &str, file: io::Result<File>) -> Option<File> {
        file.map_err(|e| self.fail(io, subject, &e)).ok()
    }
    fn warning(&mut self) {
        if self.0 == 0 {
            self.0 = 2;
        }
    }
}

const GZIP: Command = Command { version: "gzip 1.12 (Airlock)\n", ..Command::compact("gzip", SPEC, HELP) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    run_as(args, io, false, false)
}

/// The shared entry point: gunzip is `decompress`, zcat `decompress` and `stdout`.
pub fn run_as(args: Vec<OsString>, io: &mut Io, decompress: bool, stdout: bool) -> Result<i32, UError> {
    // The suffix and --license act in the getopt loop, so they win over a later --help.
    let seen = GZIP.seen_checking(&args, io, &mut |io, id, value| match id {
        "suffix" => {
            let s = value.map(|v| v.to_string_lossy()).unwrap_or_default();
            if s.is_empty() || s.contains('/') {
                return Err(UError::new(1, format!("invalid suffix '{}'", s)));
            }
            Ok(())
        }
        "license" => {
            let _ = io.out(GZIP.version.as_bytes());
            Err(UError::exit(0))
        }
        _ => Ok(()),
    })?;
    let test = seen.flag("test");
    let loudness = seen.last_of(&["quiet", "verbose"]);
    // The last of --fast, --best and -1 ... -9 sets the level.
    let level = seen.opts.iter().rev().find_map(|(id, _)| match *id {
        "fast" => Some(1),
        "best" => Some(9),
        digit => digit.parse().ok(),
    });
    let o = Opts {
        decompress: decompress || test || seen.flag("decompress"),
        stdout: stdout || seen.flag("stdout"),
        force: seen.flag("force"),
        keep: seen.flag("keep"),
        list: seen.flag("list"),
        test,
        recursive: seen.flag("recursive"),
        name: seen.last_of(&["name", "no-name"]).map(|id| id == "name"),
        quiet: loudness == Some("quiet"),
        verbose: loudness == Some("verbose"),
        suffix: seen.value("suffix").map_or_else(|| ".gz".to_string(), |s| s.to_string_lossy().into_owned()),
        level: level.unwrap_or(6),
    };
    let mut files = seen.operands;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let mut status = Status(0);
    let mut list_totals = ListTotals::default();
    for f in &files {
        if io_process(io, &o, f, &mut status, &mut list_totals).is_err() {
            return Ok(status.0.max(1));
        }
    }
    if o.list && list_totals.count > 1 {
        let line = list_line(&o, "(totals)", list_totals.compressed, list_totals.uncompressed, list_totals.header, None);
        let _ = io.out(line.as_bytes());
    }
    Ok(status.0)
}

#[derive(Default)]
struct ListTotals {
    count: usize,
    compressed: u64,
    uncompressed: u64,
    header: u64,
}

const LIST_HEADER: &str = "         compressed        uncompressed  ratio uncompressed_name\n";
const LIST_HEADER_VERBOSE: &str = "method  crc     date  time           compressed        uncompressed  ratio uncompressed_name\n";

fn ratio(num: f64, den: f64) -> String {
    format!("{:5.1}%", if den == 0.0 { 0.0 } else { 100.0 * num / den })
}

fn list_line(o: &Opts, name: &str, compressed: u64, uncompressed: u64, header: u64, verbose: Option<(u32, i64)>) -> String {
    let mut line = String::new();
    if o.verbose {
        match verbose {
            Some((crc, mtime)) => {
                let tm = common::timefmt::Tm::at(mtime, 0, common::timefmt::local_offset());
                line.push_str(&format!("defla {:08x} {} {:2} {:02}:{:02} ", crc, common::timefmt::MONTHS[(tm.month - 1) as usize], tm.day, tm.hour, tm.minute));
            }
            None => line.push_str(&format!("{:24}", "")),
        }
    }
    let data = compressed as f64 - header as f64;
    line.push_str(&format!("{:19} {:19} {} {}\n", compressed, uncompressed, ratio(uncompressed as f64 - data, uncompressed as f64), name));
    line
}

fn warn(io: &mut Io, o: &Opts, status: &mut Status, message: String) {
    if !o.quiet {
        io.error(message);
    }
    status.warning();
}

/// Names: the known compressed suffixes gzip recognises when decompressing.
fn strip_suffix(name: &[u8], suffix: &str) -> Option<Vec<u8>> {
    let mut candidates: Vec<&[u8]> = vec![suffix.as_bytes()];
    for s in [&b".gz"[..], b"-gz", b".z", b"-z", b"_z", b".Z"] {
        candidates.push(s);
    }
    let lower = name.to_ascii_lowercase();
    for s in candidates {
        if name.len() > s.len() && (name.ends_with(s) || lower.ends_with(&s.to_ascii_lowercase())) {
            return Some(name[..name.len() - s.len()].to_vec());
        }
    }
    for (s, repl) in [(&b".tgz"[..], &b".tar"[..]), (b".taz", b".tar")] {
        if name.len() > s.len() && lower.ends_with(s) {
            let mut out = name[..name.len() - s.len()].to_vec();
            out.extend_from_slice(repl);
            return Some(out);
        }
    }
    None
}

fn has_gz_suffix(name: &[u8], suffix: &str) -> bool {
    let base = name.rsplit(|b| *b == b'/').next().unwrap_or(name);
    strip_suffix(base, suffix).is_some()
}

fn io_process(io: &mut Io, o: &Opts, file: &OsStr, status: &mut Status, totals: &mut ListTotals) -> Result<(), ()> {
    if os_bytes(file) == b"-" {
        return process_stdin(io, o, status, totals);
    }
    let mut path = PathBuf::from(file);
    let mut meta = fsext::metadata(&path, false);
    if meta.is_err() && o.decompress {
        // `gunzip a` finds `a.gz`.
        let mut with = os_bytes(file).to_vec();
        with.extend_from_slice(o.suffix.as_bytes());
        let alt = PathBuf::from(bytes_os(&with));
        if let Ok(m) = fsext::metadata(&alt, false) {
            path = alt;
            meta = Ok(m);
        } else {
            let display = String::from_utf8_lossy(&with).into_owned();
            if let Err(e) = fsext::metadata(&path, false) {
                let _ = io.stdout.flush();
                io.error(format!("{}: {}", display, strerror(&e)));
            }
            status.error();
            return Ok(());
        }
    }
    let meta = match meta {
        Ok(m) => m,
        Err(e) => {
            let _ = io.stdout.flush();
            status.fail(io, &file.to_string_lossy(), &e);
            return Ok(());
        }
    };
    let display = path.to_string_lossy().into_owned();
    if meta.is_dir() {
        if !o.recursive {
            warn(io, o, status, format!("{} is a directory -- ignored", display));
            return Ok(());
        }
        let mut entries: Vec<PathBuf> = match fs::read_dir(&path) {
            Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
            Err(e) => {
                status.fail(io, &display, &e);
                return Ok(());
            }
        };
        entries.sort();
        for e in entries {
            io_process(io, o, e.as_os_str(), status, totals)?;
        }
        return Ok(());
    }
    if meta.is_symlink() && !o.force && !o.stdout {
        warn(io, o, status, format!("{}: Too many levels of symbolic links", display));
        return Ok(());
    }
    if !meta.is_file() && !meta.is_symlink() && !o.force {
        warn(io, o, status, format!("{} is not a directory or a regular file - ignored", display));
        return Ok(());
    }
    if o.list {
        return list_file(io, o, &path, &display, status, totals);
    }
    let name = os_bytes(path.as_os_str()).to_vec();
    let to_stdout = o.stdout || o.test;
    let output: Option<PathBuf> = if to_stdout {
        None
    } else if o.decompress {
        match strip_suffix(&name, &o.suffix) {
            Some(out) => Some(PathBuf::from(bytes_os(&out))),
            None => {
                warn(io, o, status, format!("{}: unknown suffix -- ignored", display));
                return Ok(());
            }
        }
    } else {
        if has_gz_suffix(&name, &o.suffix) && !o.force {
            // GNU gzip says so but does not count it as a warning in the exit status.
            if !o.quiet {
                io.error(format!("{} already has {} suffix -- unchanged", display, o.suffix));
            }
            return Ok(());
        }
        let mut out = name.clone();
        out.extend_from_slice(o.suffix.as_bytes());
        Some(PathBuf::from(bytes_os(&out)))
    };
    let input = match status.opened(io, &display, File::open(&path)) {
        Some(f) => f,
        None => return Ok(()),
    };
    let mut reader = BufReader::with_capacity(common::io::BUFFER_SIZE, input);
    match output {
        None => {
            let result = if o.test { run_codec(o, &mut reader, &mut io::sink(), Some(&name), &meta) } else { run_codec(o, &mut reader, &mut *io.stdout, Some(&name), &meta) };
            report(io, o, status, &display, result, None)
        }
        Some(out_path) => to_file(io, o, status, (&path, &display), &name, &meta, &mut reader, out_path),
    }
}

/// Compresses or decompresses `path` into the file `out_path`, then gives it the input's
/// mode and times (or, with -N, the stored name and time) and removes the input unless -k.
fn to_file(io: &mut Io, o: &Opts, status: &mut Status, (path, display): (&Path, &str), name: &[u8], meta: &fsext::Meta, reader: &mut BufReader<File>, out_path: PathBuf) -> Result<(), ()> {
    let mut out_path = out_path;
    let out_display = out_path.to_string_lossy().into_owned();
    if fsext::metadata(&out_path, false).is_ok() {
        if !o.force {
            warn(io, o, status, format!("{} already exists;\tnot overwritten", out_display));
            return Ok(());
        }
        let _ = fs::remove_file(&out_path);
    }
    let file = match status.opened(io, &out_display, File::create(&out_path)) {
        Some(f) => f,
        None => return Ok(()),
    };
    let mut writer = BufWriter::with_capacity(common::io::BUFFER_SIZE, file);
    let result = run_codec(o, reader, &mut writer, Some(name), meta).and_then(|r| writer.flush().map(|_| r).map_err(GzError::Io));
    drop(writer);
    let ok = result.is_ok();
    let mut restored_mtime: Option<i64> = None;
    if let Ok((Some(header), _, _)) = &result {
        if o.name == Some(true) {
            if header.mtime != 0 {
                restored_mtime = Some(header.mtime as i64);
            }
            if let Some(original) = &header.name {
                // -N: the name stored in the header, in the same directory.
                let base: &[u8] = original.rsplit(|b| *b == b'/').next().unwrap_or(original);
                let renamed = path.parent().unwrap_or(Path::new("")).join(bytes_os(base));
                if renamed != out_path && fs::rename(&out_path, &renamed).is_ok() {
                    out_path = renamed;
                }
            }
        }
    }
    let out_display = out_path.to_string_lossy().into_owned();
    report(io, o, status, display, result, Some(&out_display))?;
    if !ok {
        let _ = fs::remove_file(&out_path);
        return Ok(());
    }
    let _ = fsext::set_mode(&out_path, meta.permissions());
    let (atime, atime_ns) = common::timefmt::split_ns(meta.atime_ns);
    let (mtime, mtime_ns) = match restored_mtime {
        Some(t) => (t, 0),
        None => common::timefmt::split_ns(meta.mtime_ns),
    };
    let _ = fsops::set_times(&out_path, SetTime::At(atime, atime_ns), SetTime::At(mtime, mtime_ns), true);
    if !o.keep {
        if let Err(e) = fs::remove_file(path) {
            status.fail(io, &display, &e);
        }
    }
    Ok(())
}

type CodecResult = Result<(Option<format::Header>, u64, u64), GzError>;

/// Compresses or decompresses `input` into `out`. Returns the header read (when
/// decompressing), bytes in and bytes out; trailing garbage comes back as a warning.
fn run_codec(o: &Opts, input: &mut BufReader<File>, out: &mut dyn Write, name: Option<&[u8]>, meta: &fsext::Meta) -> CodecResult {
    let size = meta.size;
    if o.decompress {
        let (header, written, ending) = format::decompress(input, out)?;
        if let Ending::TrailingGarbage = ending {
            return Err(GzError::Format(format!("trailing:{}:{}", size, written)));
        }
        return Ok((Some(header), size, written));
    }
    let save_name = o.name != Some(false);
    let base = name.map(|n| n.rsplit(|b| *b == b'/').next().unwrap_or(n).to_vec());
    let mtime = if save_name { (meta.mtime_ns / 1_000_000_000).max(0) as u32 } else { 0 };
    let (read, written) = format::compress(input, out, o.level, if save_name { base.as_deref() } else { None }, mtime)?;
    Ok((None, read, written))
}

/// Prints gzip's messages for one file; Err(()) when stdout went away.
fn report(io: &mut Io, o: &Opts, status: &mut Status, display: &str, result: CodecResult, output: Option<&str>) -> Result<(), ()> {
    match result {
        Ok((_, read, written)) => {
            if o.verbose {
                let (orig, packed) = if o.decompress { (written, read) } else { (read, written) };
                let mut message = format!("{}:\t{}", display, ratio(orig as f64 - packed as f64, orig as f64));
                if o.test {
                    message = format!("{}:\t OK", display);
                } else if let Some(out) = output {
                    message.push_str(&format!(" -- replaced with {}", out));
                }
                let _ = writeln!(io.stderr, "{}", message);
            }
            Ok(())
        }
        Err(GzError::Format(m)) if m.starts_with("trailing:") => {
            warn(io, o, status, format!("{}: decompression OK, trailing garbage ignored", display));
            Ok(())
        }
        Err(GzError::Io(e)) if common::error::is_broken_pipe(&e) => Err(()),
        Err(e) => {
            let message = match e {
                GzError::NotGzip => "not in gzip format".to_string(),
                GzError::UnexpectedEof => "unexpected end of file".to_string(),
                GzError::Crc => "invalid compressed data--crc error".to_string(),
                GzError::Length => "invalid compressed data--length error".to_string(),
                GzError::Corrupt => "invalid compressed data--format violated".to_string(),
                GzError::Format(m) => m,
                GzError::Io(e) => strerror(&e),
            };
            let _ = io.stdout.flush();
            io.error(format!("{}: {}", display, message));
            status.error();
            Ok(())
        }
    }
}

fn process_stdin(io: &mut Io, o: &Opts, status: &mut Status, totals: &mut ListTotals) -> Result<(), ()> {
    if o.list {
        let mut data = Vec::new();
        if io.stdin.read_to_end(&mut data).is_err() {
            status.error();
            return Ok(());
        }
        return list_bytes(io, o, &data, "stdout", status, totals);
    }
    let Io { stdin, stdout, .. } = io;
    let result: CodecResult = if o.decompress {
        let sink = &mut io::sink();
        let out: &mut dyn Write = if o.test { sink } else { &mut **stdout };
        format::decompress(&mut **stdin, out).and_then(|(h, w, ending)| match ending {
            Ending::TrailingGarbage => Err(GzError::Format("trailing:0:0".to_string())),
            Ending::Clean => Ok((Some(h), 0, w)),
        })
    } else {
        let mut reader = &mut **stdin;
        format::compress(&mut reader, &mut **stdout, o.level, None, 0).map(|(r, w)| (None, r, w)).map_err(GzError::Io)
    };
    let shown = if o.test { "stdin" } else { "-" };
    report(io, o, status, shown, result.map(|(h, r, w)| (h, r, w)), None)
}

fn list_file(io: &mut Io, o: &Opts, path: &Path, display: &str, status: &mut Status, totals: &mut ListTotals) -> Result<(), ()> {
    let mut f = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            status.fail(io, &display, &e);
            return Ok(());
        }
    };
    // The header from the start, the CRC and size from the last 8 bytes.
    let mut head = vec![0u8; 4096];
    let n = f.read(&mut head).unwrap_or(0);
    head.truncate(n);
    let mut tail = [0u8; 8];
    let len = f.seek(SeekFrom::End(0)).unwrap_or(0);
    let ok_tail = len >= 8 && f.seek(SeekFrom::End(-8)).is_ok() && f.read_exact(&mut tail).is_ok();
    let mut bytes = head;
    if ok_tail {
        bytes.extend_from_slice(&tail);
    }
    let name = os_bytes(path.as_os_str()).to_vec();
    let shown = strip_suffix(&name, &o.suffix).map(|n| String::from_utf8_lossy(&n).into_owned()).unwrap_or_else(|| display.to_string());
    let mtime = fsext::metadata(path, true).map(|m| (m.mtime_ns / 1_000_000_000) as i64).unwrap_or(0);
    list_parsed(io, o, &bytes, len, ok_tail.then(|| tail), &shown, display, mtime, status, totals)
}

fn list_bytes(io: &mut Io, o: &Opts, data: &[u8], shown: &str, status: &mut Status, totals: &mut ListTotals) -> Result<(), ()> {
    let tail = if data.len() >= 8 {
        let mut t = [0u8; 8];
        t.copy_from_slice(&data[data.len() - 8..]);
        Some(t)
    } else {
        None
    };
    list_parsed(io, o, data, data.len() as u64, tail, shown, "stdin", 0, status, totals)
}

#[allow(clippy::too_many_arguments)]
fn list_parsed(io: &mut Io, o: &Opts, data: &[u8], len: u64, tail: Option<[u8; 8]>, shown: &str, display: &str, file_mtime: i64, status: &mut Status, totals: &mut ListTotals) -> Result<(), ()> {
    let header = match format::read_header(&mut &data[..], true) {
        Ok(Some(h)) => h,
        Ok(None) | Err(_) => {
            io.error(format!("{}: not in gzip format", display));
            status.error();
            return Ok(());
        }
    };
    let tail = match tail {
        Some(t) => t,
        None => {
            io.error(format!("{}: unexpected end of file", display));
            status.error();
            return Ok(());
        }
    };
    let crc = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let size = u32::from_le_bytes([tail[4], tail[5], tail[6], tail[7]]) as u64;
    let overhead = header.len as u64 + 8;
    let name = if o.name == Some(true) { header.name.as_ref().map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_else(|| shown.to_string()) } else { shown.to_string() };
    let line = list_line(o, &name, len, size, overhead, Some((crc, file_mtime)));
    if totals.count == 0 && io.out(if o.verbose { LIST_HEADER_VERBOSE } else { LIST_HEADER }.as_bytes()).is_err() {
        return Err(());
    }
    totals.count += 1;
    totals.compressed += len;
    totals.uncompressed += size;
    totals.header = overhead;
    if io.out(line.as_bytes()).is_err() {
        return Err(());
    }
    Ok(())
}

const HELP: &str = "Usage: gzip [OPTION]... [FILE]...
Compress or uncompress FILEs (by default, compress FILES in-place).

Mandatory arguments to long options are mandatory for short options too.

  -c, --stdout      write on standard output, keep original files unchanged
  -d, --decompress  decompress
  -f, --force       force overwrite of output file and compress links
  -h, --help        give this help
  -k, --keep        keep (don't delete) input files
  -l, --list        list compressed file contents
  -L, --license     display software license
  -n, --no-name     do not save or restore the original name and timestamp
  -N, --name        save or restore the original name and timestamp
  -q, --quiet       suppress all warnings
  -r, --recursive   operate recursively on directories
      --rsyncable   make rsync-friendly archive
  -S, --suffix=SUF  use suffix SUF on compressed files
      --synchronous synchronous output (safer if system crashes, but slower)
  -t, --test        test compressed file integrity
  -v, --verbose     verbose mode
  -V, --version     display version number
  -1, --fast        compress faster
  -9, --best        compress better

With no FILE, or when FILE is -, read standard input.
";
