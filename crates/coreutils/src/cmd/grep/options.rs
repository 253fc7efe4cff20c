//! grep's options: GNU's `-NUM`, the option table, and what each option sets before the
//! patterns are compiled.

use std::ffi::{OsStr, OsString};
use std::io;

use common::args::{bytes_os, os_bytes};
use common::regex::{Flags, Flavor};
use common::{strerror, Io};

use super::{files, BinaryMode, Config, Walk};

pub(super) const SPEC: &str = "E,extended-regexp F,fixed-strings G,basic-regexp P,perl-regexp e,regexp: f,file: i,ignore-case i=y no-ignore-case w,word-regexp x,line-regexp z,null-data s,no-messages v,invert-match V,version help m,max-count: b,byte-offset n,line-number line-buffered H,with-filename h,no-filename label: o,only-matching q,quiet q=silent binary-files: a,text I d,directories: D,devices: r,recursive R,dereference-recursive include: exclude: exclude-from: exclude-dir: L,files-without-match l,files-with-matches c,count T,initial-tab Z,null A,after-context: B,before-context: C,context: color:: color=colour:: U,binary group-separator: no-group-separator";

pub(super) fn usage(io: &mut Io) -> i32 {
    let _ = writeln!(io.stderr, "Usage: {} [OPTION]... PATTERNS [FILE]...", io.name);
    io.try_help();
    2
}

/// GNU's `-NUM` (context NUM) becomes `--context=NUM` before option parsing.
pub(super) fn expand_digit_options(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut rest = false;
    for a in args {
        let b = os_bytes(a);
        if !rest && b.len() > 1 && b[0] == b'-' && b[1..].iter().all(u8::is_ascii_digit) {
            let mut s = b"--context=".to_vec();
            s.extend_from_slice(&b[1..]);
            out.push(bytes_os(&s));
        } else {
            rest |= b == b"--";
            out.push(a.clone());
        }
    }
    out
}

pub(super) fn context_number(value: &OsStr, io: &mut Io) -> Result<usize, i32> {
    match value.to_str().and_then(|s| s.parse::<u64>().ok()) {
        Some(n) => Ok(n.min(usize::MAX as u64 / 2) as usize),
        None => {
            io.error(format!("{}: invalid context length argument", value.to_string_lossy()));
            Err(2)
        }
    }
}

/// What grep's options ask for, before the patterns are compiled.
pub(super) struct Setup {
    pub(super) flavor: Flavor,
    pub(super) patterns: Vec<Vec<u8>>,
    pub(super) have_patterns: bool,
    pub(super) flags: Flags,
    pub(super) config: Config,
    pub(super) walk: Walk,
    pub(super) before: Option<usize>,
    pub(super) after: Option<usize>,
    pub(super) context: Option<usize>,
    pub(super) color: bool,
    pub(super) operands: Vec<OsString>,
}

pub(super) fn setup(flavor: Flavor) -> Setup {
    let config = Config {
        invert: false,
        count_only: false,
        list_files: None,
        quiet: false,
        only_matching: false,
        line_number: false,
        byte_offset: false,
        initial_tab: false,
        null_after_name: false,
        max_count: None,
        before: 0,
        after: 0,
        colors: None,
        eol: b'\n',
        binary: BinaryMode::Binary,
        line_buffered: false,
        group_separator: Some(b"--".to_vec()),
        needs_line_numbers: false,
        context_given: false,
        heading: false,
        block_search: true,
    };
    let walk = Walk { recursive: false, dereference: false, includes: Vec::new(), excludes: Vec::new(), exclude_dirs: Vec::new(), skip_dirs: false, no_messages: false, with_filename: None, label: b"(standard input)".to_vec() };
    Setup { flavor, patterns: Vec::new(), have_patterns: false, flags: Flags { newline: true, ..Flags::default() }, config, walk, before: None, after: None, context: None, color: false, operands: Vec::new() }
}

/// Applies one option to `o`; `Ok(Err(status))` ends grep with that status (after printing
/// the reason, or the help or version text).
pub(super) fn apply(o: &mut Setup, id: &str, value: OsString, io: &mut Io) -> io::Result<Result<(), i32>> {
    match id {
            "E" => o.flavor = Flavor::Extended,
        "F" => o.flavor = Flavor::Fixed,
        "G" => o.flavor = Flavor::Basic,
        "P" => o.flavor = Flavor::Perl,
        "e" => {
            o.patterns.extend(os_bytes(&value).split(|b| *b == b'\n').map(|s| s.to_vec()));
            o.have_patterns = true;
        }
        "f" => {
            let data = if value == "-" {
                let mut d = Vec::new();
                io.stdin.read_to_end(&mut d).map(|_| d)
            } else {
                std::fs::read(&value)
            };
            match data {
                Ok(mut d) => {
                    if d.last() == Some(&b'\n') {
                        d.pop();
                    }
                    if !d.is_empty() {
                        o.patterns.extend(d.split(|b| *b == b'\n').map(|s| s.to_vec()));
                    }
                    o.have_patterns = true;
                }
                Err(e) => {
                    io.error(format!("{}: {}", value.to_string_lossy(), strerror(&e)));
                    return Ok(Err(2));
                }
            }
        }
        "i" => o.flags.icase = true,
        "no-ignore-case" => o.flags.icase = false,
        "w" => o.flags.whole_word = true,
        "x" => o.flags.whole_line = true,
        "z" => o.config.eol = 0,
        "s" => o.walk.no_messages = true,
        "v" => o.config.invert = true,
        "V" => {
            io.out(common::version_text("grep").as_bytes())?;
            return Ok(Err(0));
        }
        "help" => {
            io.out(files::HELP.replace("NAME", &io.name).as_bytes())?;
            return Ok(Err(0));
        }
        "m" => match value.to_str().and_then(|s| s.parse::<i64>().ok()) {
            Some(n) => o.config.max_count = if n < 0 { None } else { Some(n as u64) },
            None => {
                io.error("invalid max count");
                return Ok(Err(2));
            }
        },
        "b" => o.config.byte_offset = true,
        "n" => o.config.line_number = true,
        "line-buffered" => o.config.line_buffered = true,
        "H" => o.walk.with_filename = Some(true),
        "h" => o.walk.with_filename = Some(false),
        "label" => o.walk.label = os_bytes(&value).to_vec(),
        "o" => o.config.only_matching = true,
        "q" => o.config.quiet = true,
        "binary-files" => {
            o.config.binary = match value.to_str() {
                Some("binary") => BinaryMode::Binary,
                Some("text") => BinaryMode::Text,
                Some("without-match") => BinaryMode::WithoutMatch,
                _ => {
                    io.error("invalid argument for --binary-files");
                    return Ok(Err(2));
                }
            }
        }
        "a" => o.config.binary = BinaryMode::Text,
        "I" => o.config.binary = BinaryMode::WithoutMatch,
        "d" => match value.to_str() {
            Some("read") => o.walk.skip_dirs = false,
            Some("skip") => o.walk.skip_dirs = true,
            Some("recurse") => o.walk.recursive = true,
            _ => {
                io.error(format!("invalid argument {} for '--directories'", common::io::quote(&value)));
                return Ok(Err(2));
            }
        },
        "D" => {}
        "r" => o.walk.recursive = true,
        "R" => {
            o.walk.recursive = true;
            o.walk.dereference = true;
        }
        "include" => o.walk.includes.push(os_bytes(&value).to_vec()),
        "exclude" => o.walk.excludes.push(os_bytes(&value).to_vec()),
        "exclude-from" => match std::fs::read(&value) {
            Ok(d) => o.walk.excludes.extend(d.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec())),
            Err(e) => {
                io.error(format!("{}: {}", value.to_string_lossy(), strerror(&e)));
                return Ok(Err(2));
            }
        },
        "exclude-dir" => o.walk.exclude_dirs.push(os_bytes(&value).to_vec()),
        "L" => o.config.list_files = Some(false),
        "l" => o.config.list_files = Some(true),
        "c" => o.config.count_only = true,
        "T" => o.config.initial_tab = true,
        "Z" => o.config.null_after_name = true,
        "A" => match context_number(&value, io) {
            Ok(n) => o.after = Some(n),
            Err(status) => return Ok(Err(status)),
        },
        "B" => match context_number(&value, io) {
            Ok(n) => o.before = Some(n),
            Err(status) => return Ok(Err(status)),
        },
        "C" => match context_number(&value, io) {
            Ok(n) => o.context = Some(n),
            Err(status) => return Ok(Err(status)),
        },
        "color" => {
            o.color = match value.to_str() {
                // grep's auto: a terminal that is not a dumb one.
                Some("") | Some("auto") | Some("tty") | Some("if-tty") => common::fsops::is_terminal(1) && std::env::var("TERM").map_or(false, |t| t != "dumb"),
                Some("never") | Some("no") | Some("none") => false,
                Some("always") | Some("yes") | Some("force") => true,
                _ => {
                    // GNU grep 3.8 answers an unknown WHEN with its help text and status 0.
                    io.out(files::HELP.replace("NAME", &io.name).as_bytes())?;
                    return Ok(Err(0));
                }
            }
        }
        "U" => {}
        "group-separator" => o.config.group_separator = Some(os_bytes(&value).to_vec()),
        "no-group-separator" => o.config.group_separator = None,
        _ => {}
    }
    Ok(Ok(()))
}
