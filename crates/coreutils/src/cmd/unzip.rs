//! `unzip` (Info-ZIP UnZip 6.0's interface): extract (`-d`, `-o`, `-n`, `-j`, `-q`), list
//! (`-l`, `-v`, `-Z1`), test (`-t`) or pipe (`-p`) members, selected by wildcard patterns
//! and `-x` exclusions, with UnZip's messages and exit statuses (1 warnings, 9 not a zip
//! file, 11 no matching member).

use std::ffi::OsString;
use std::fs;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use common::args::{bytes_os, os_bytes};
use common::fsops::{self, SetTime};
use common::{strerror, Io, UError};

use super::cmd_zip::format::{self, Member};
use super::cmd_zip::{options_or_exit, wildmatch};

#[derive(Default)]
struct Opts {
    list: bool,
    verbose: bool,
    test: bool,
    pipe: bool,
    overwrite: Option<bool>,
    quiet: u32,
    junk: bool,
    names_only: bool,
    exdir: Option<OsString>,
    zipfile: Option<OsString>,
    patterns: Vec<Vec<u8>>,
    excludes: Vec<Vec<u8>>,
}

fn parse(args: &[OsString]) -> Result<Opts, String> {
    let mut o = Opts::default();
    let mut in_excludes = false;
    let mut i = 0;
    while i < args.len() {
        let b = os_bytes(&args[i]);
        i += 1;
        if b.len() > 1 && b[0] == b'-' {
            in_excludes = false;
            let mut j = 1;
            while j < b.len() {
                let c = b[j];
                j += 1;
                match c {
                    b'l' => o.list = true,
                    b'v' => o.verbose = true,
                    b't' => o.test = true,
                    b'p' | b'c' => o.pipe = true,
                    b'o' => o.overwrite = Some(true),
                    b'n' => o.overwrite = Some(false),
                    b'q' => o.quiet += 1,
                    b'j' => o.junk = true,
                    b'x' => in_excludes = true,
                    b'Z' => {
                        // zipinfo mode: only -1 (names) is offered.
                        o.names_only = true;
                    }
                    b'1' if o.names_only => {}
                    b'd' => {
                        if j < b.len() {
                            o.exdir = Some(bytes_os(&b[j..]));
                            j = b.len();
                        } else if i < args.len() {
                            o.exdir = Some(args[i].clone());
                            i += 1;
                        } else {
                            return Err("error:  must specify directory to which to extract with -d option".to_string());
                        }
                    }
                    b'a' | b'b' | b'C' | b'L' | b'U' | b'X' | b'K' | b'D' | b'T' | b'u' | b'f' => {}
                    b'h' => return Err("help".to_string()),
                    b'P' => return Err("option not supported in the sandbox: -P (encryption)".to_string()),
                    _ => return Err(format!("error:  unknown option -{}", c as char)),
                }
            }
            continue;
        }
        if in_excludes {
            o.excludes.push(b.to_vec());
        } else if o.zipfile.is_none() {
            o.zipfile = Some(args[i - 1].clone());
        } else {
            o.patterns.push(b.to_vec());
        }
    }
    Ok(o)
}

/// Info-ZIP's command line is not getopt's (`-x` and `-i` make the words after them
/// patterns, `-Z1` is one mode) and its messages do not start with `NAME:`, so the option
/// reading and the reports stay Info-ZIP's own; the exit status is the contract's.
pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    Ok(unzip(args, io))
}

fn unzip(args: Vec<OsString>, io: &mut Io) -> i32 {
    let o = match options_or_exit(parse(&args[1..]), io, HELP, "", 10) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let zipfile = match &o.zipfile {
        Some(z) => z.clone(),
        None => {
            let _ = io.out(HELP.as_bytes());
            return 0;
        }
    };
    let shown = zipfile.to_string_lossy().into_owned();
    let candidates = [PathBuf::from(&zipfile), PathBuf::from(format!("{}.zip", shown)), PathBuf::from(format!("{}.ZIP", shown))];
    let data = match candidates.iter().find_map(|p| fs::read(p).ok()) {
        Some(d) => d,
        None => {
            let _ = writeln!(io.stderr, "unzip:  cannot find or open {}, {}.zip or {}.ZIP.", shown, shown, shown);
            return 9;
        }
    };
    let members = match format::read_archive(&data) {
        Ok(m) => m,
        Err(_) => {
            if o.quiet < 2 && !o.pipe {
                let _ = io.out(format!("Archive:  {}\n", shown).as_bytes());
            }
            let _ = write!(
                io.stderr,
                "  End-of-central-directory signature not found.  Either this file is not\n  a zipfile, or it constitutes one disk of a multi-part archive.  In the\n  latter case the central directory and zipfile comment will be found on\n  the last disk(s) of this archive.\nunzip:  cannot find zipfile directory in one of {0} or\n        {0}.zip, and cannot find {0}.ZIP, period.\n",
                shown
            );
            return 9;
        }
    };
    let mut matched = vec![false; o.patterns.len()];
    let selected: Vec<&Member> = members
        .iter()
        .filter(|m| {
            let wanted = o.patterns.is_empty() || {
                let mut any = false;
                for (i, p) in o.patterns.iter().enumerate() {
                    if wildmatch(p, &m.name) {
                        matched[i] = true;
                        any = true;
                    }
                }
                any
            };
            wanted && !o.excludes.iter().any(|p| wildmatch(p, &m.name))
        })
        .collect();
    let mut status = if o.names_only {
        for m in &selected {
            let mut line = m.name.clone();
            line.push(b'\n');
            if io.out(&line).is_err() {
                return 0;
            }
        }
        0
    } else if o.list || o.verbose {
        list(io, &o, &shown, &selected)
    } else if o.test {
        test(io, &o, &shown, &selected)
    } else if o.pipe {
        let mut s = 0;
        for m in &selected {
            match m.data() {
                Ok(d) => {
                    if io.out(&d).is_err() {
                        return 0;
                    }
                }
                Err(_) => s = 1,
            }
        }
        s
    } else {
        extract(io, &o, &shown, &selected)
    };
    let missing: Vec<String> = o.patterns.iter().zip(&matched).filter(|(_, m)| !**m).map(|(p, _)| String::from_utf8_lossy(p).into_owned()).collect();
    if !missing.is_empty() {
        let _ = io.stdout.flush();
        for p in &missing {
            let _ = writeln!(io.stderr, "caution: filename not matched:  {}", p);
        }
        status = 11;
    }
    status
}

fn date_time(m: &Member) -> String {
    let tm = common::timefmt::Tm::at(format::dos_to_epoch(m.dos_time, m.dos_date, 0), 0, 0);
    format!("{:04}-{:02}-{:02} {:02}:{:02}", tm.year, tm.month, tm.day, tm.hour, tm.minute)
}

/// UnZip's compression factor: per mille rounded, then to a whole percent.
fn ratio(size: u64, compressed: u64) -> i64 {
    if size == 0 {
        return 0;
    }
    let (uc, c) = (size as i64, compressed as i64);
    let per_mille = if uc >= c { (1000 * (uc - c) + uc / 2) / uc } else { -((1000 * (c - uc) + uc / 2) / uc) };
    if per_mille >= 0 {
        (per_mille + 5) / 10
    } else {
        -((-per_mille + 5) / 10)
    }
}

fn list(io: &mut Io, o: &Opts, shown: &str, members: &[&Member]) -> i32 {
    let mut out = String::new();
    if o.quiet == 0 {
        out.push_str(&format!("Archive:  {}\n", shown));
    }
    let files = |n: usize| if n == 1 { "1 file".to_string() } else { format!("{} files", n) };
    if o.verbose {
        if o.quiet < 2 {
            out.push_str(" Length   Method    Size  Cmpr    Date    Time   CRC-32   Name\n--------  ------  ------- ---- ---------- ----- --------  ----\n");
        }
        let (mut total, mut total_c) = (0u64, 0u64);
        for m in members {
            let method = match (m.method, (m.flags >> 1) & 3) {
                (format::METHOD_STORED, _) => "Stored".to_string(),
                (format::METHOD_DEFLATED, 0) => "Defl:N".to_string(),
                (format::METHOD_DEFLATED, 1) => "Defl:X".to_string(),
                (format::METHOD_DEFLATED, 2) => "Defl:F".to_string(),
                (format::METHOD_DEFLATED, _) => "Defl:S".to_string(),
                (other, _) => format!("Unk:{:03}", other),
            };
            let c = m.compressed.len() as u64;
            out.push_str(&format!("{:>8}  {:<6} {:>8} {:>3}% {} {:08x}  {}\n", m.size, method, c, ratio(m.size, c), date_time(m), m.crc, String::from_utf8_lossy(&m.name)));
            total += m.size;
            total_c += c;
        }
        if o.quiet < 2 {
            out.push_str(&format!("--------          -------  ---                            -------\n{:>8}         {:>8} {:>3}%                            {}\n", total, total_c, ratio(total, total_c), files(members.len())));
        }
    } else {
        if o.quiet < 2 {
            out.push_str("  Length      Date    Time    Name\n---------  ---------- -----   ----\n");
        }
        let mut total = 0u64;
        for m in members {
            out.push_str(&format!("{:>9}  {}   {}\n", m.size, date_time(m), String::from_utf8_lossy(&m.name)));
            total += m.size;
        }
        if o.quiet < 2 {
            out.push_str(&format!("---------                     -------\n{:>9}                     {}\n", total, files(members.len())));
        }
    }
    let _ = io.out(out.as_bytes());
    0
}

fn test(io: &mut Io, o: &Opts, shown: &str, members: &[&Member]) -> i32 {
    let mut out = String::new();
    if o.quiet == 0 {
        out.push_str(&format!("Archive:  {}\n", shown));
    }
    let mut errors = 0;
    for m in members {
        let ok = m.data().map(|d| {
            let mut h = crc32fast::Hasher::new();
            h.update(&d);
            h.finalize() == m.crc
        });
        let verdict = match ok {
            Ok(true) => "OK".to_string(),
            Ok(false) => {
                errors += 1;
                "bad CRC".to_string()
            }
            Err(_) => {
                errors += 1;
                "error".to_string()
            }
        };
        if o.quiet == 0 {
            out.push_str(&format!("    testing: {:<22}   {}\n", String::from_utf8_lossy(&m.name), verdict));
        }
    }
    if errors == 0 {
        if o.quiet < 2 {
            out.push_str(&format!("No errors detected in compressed data of {}.\n", shown));
        }
    } else {
        out.push_str(&format!("At least one error was detected in {}.\n", shown));
    }
    let _ = io.out(out.as_bytes());
    if errors > 0 {
        2
    } else {
        0
    }
}

/// Where a member is written: no leading `/`, no `..` components (with UnZip's warning).
fn destination(o: &Opts, name: &[u8], stderr: &mut dyn Write) -> Option<PathBuf> {
    let parts: Vec<&[u8]> = name.split(|b| *b == b'/').filter(|p| !p.is_empty() && *p != b".").collect();
    if parts.iter().any(|p| *p == b"..") {
        let _ = writeln!(stderr, "warning:  skipped \"../\" path component(s) in {}", String::from_utf8_lossy(name));
    }
    let mut clean: Vec<&[u8]> = parts.into_iter().filter(|p| *p != b"..").collect();
    if o.junk {
        clean = clean.split_last().map(|(l, _)| vec![*l]).unwrap_or_default();
    }
    if clean.is_empty() {
        return None;
    }
    let rel = PathBuf::from(bytes_os(&clean.join(&b'/')));
    Some(match &o.exdir {
        Some(d) => Path::new(d).join(rel),
        None => rel,
    })
}

fn extract(io: &mut Io, o: &Opts, shown: &str, members: &[&Member]) -> i32 {
    let Io { stdin, stdout, stderr, .. } = io;
    if o.quiet == 0 {
        let _ = writeln!(stdout, "Archive:  {}", shown);
    }
    let mut status = 0;
    let mut replace_all: Option<bool> = o.overwrite;
    let mut dir_times: Vec<(PathBuf, i64)> = Vec::new();
    if let Some(d) = &o.exdir {
        let _ = fs::create_dir_all(d);
    }
    for m in members {
        let path = match destination(o, &m.name, &mut **stderr) {
            Some(p) => p,
            None => continue,
        };
        let shown_path = path.to_string_lossy().into_owned();
        if m.is_dir() {
            if o.junk {
                continue;
            }
            if !path.is_dir() {
                if o.quiet == 0 {
                    let _ = writeln!(stdout, "   creating: {}/", shown_path);
                }
                if let Err(e) = fs::create_dir_all(&path) {
                    let _ = writeln!(stderr, "checkdir error:  cannot create {}\n                 {}", shown_path, strerror(&e));
                    status = 1;
                    continue;
                }
            }
            if let Some(mode) = m.mode {
                let _ = common::fsext::set_mode(&path, mode & 0o7777);
            }
            dir_times.push((path, m.mtime));
            continue;
        }
        if common::fsext::metadata(&path, false).is_ok() {
            let replace = match replace_all {
                Some(r) => r,
                None => {
                    let _ = stdout.flush();
                    let _ = write!(stderr, "replace {}? [y]es, [n]o, [A]ll, [N]one, [r]ename: ", shown_path);
                    let mut answer = String::new();
                    let n = stdin.read_line(&mut answer).unwrap_or(0);
                    if n == 0 {
                        let _ = writeln!(stderr, " NULL\n(EOF or read error, treating as \"[N]one\" ...)");
                        replace_all = Some(false);
                        status = 1;
                        false
                    } else {
                        match answer.trim() {
                            "y" | "yes" => true,
                            "A" => {
                                replace_all = Some(true);
                                true
                            }
                            "N" => {
                                replace_all = Some(false);
                                false
                            }
                            _ => false,
                        }
                    }
                }
            };
            if !replace {
                continue;
            }
            let _ = fs::remove_file(&path);
        }
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() {
                let _ = fs::create_dir_all(parent);
            }
        }
        let data = match m.data() {
            Ok(d) => d,
            Err(e) => {
                let _ = writeln!(stderr, "  error:  {}: {}", shown_path, e);
                status = 2;
                continue;
            }
        };
        if o.quiet == 0 {
            let verb = if m.method == format::METHOD_STORED { "extracting" } else { "inflating" };
            let _ = writeln!(stdout, "{:>11}: {:<22}  ", verb, shown_path);
        }
        if let Err(e) = fs::write(&path, &data) {
            let _ = writeln!(stderr, "error:  cannot create {}\n        {}", shown_path, strerror(&e));
            status = 1;
            continue;
        }
        if let Some(mode) = m.mode {
            let _ = common::fsext::set_mode(&path, mode & 0o7777);
        }
        let _ = fsops::set_times(&path, SetTime::At(m.mtime, 0), SetTime::At(m.mtime, 0), true);
        let mut h = crc32fast::Hasher::new();
        h.update(&data);
        if h.finalize() != m.crc {
            let _ = writeln!(stderr, "{}:  bad CRC", shown_path);
            status = 2;
        }
    }
    for (path, mtime) in dir_times.into_iter().rev() {
        let _ = fsops::set_times(&path, SetTime::At(mtime, 0), SetTime::At(mtime, 0), true);
    }
    status
}

const HELP: &str = "UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.

Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]
  Default action is to extract files in list, except those in xlist, to exdir;
  file[.zip] may be a wildcard.  -Z => ZipInfo mode (\"unzip -Z\" for usage).

  -p  extract files to pipe, no messages     -l  list files (short format)
  -f  freshen existing files, create none    -t  test compressed archive data
  -u  update files, create if necessary      -z  display archive comment only
  -v  list verbosely/show version info       -T  timestamp archive to latest
  -x  exclude files that follow (in xlist)   -d  extract files into exdir
";
