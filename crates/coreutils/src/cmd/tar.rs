//! `tar` (GNU tar 1.34's interface): create (-c), list (-t) and extract (-x) archives in
//! GNU format, gzip-compressed with -z (or detected when reading), with -f, -C, -v,
//! --strip-components, --exclude, -O, -k, -p, --sort=name, --owner/--group/--mtime and
//! old-style bundles (`tar xzf a.tgz`). Errors let the run go on and exit 2 at the end
//! with "Exiting with failure status due to previous errors", as GNU tar does.

#[path = "tar/create.rs"]
mod create;
#[path = "tar/extract.rs"]
mod extract;
#[path = "tar/header.rs"]
mod header;

use std::ffi::OsString;

use common::args::{os_bytes, Command, Parsed};
use common::{Io, UError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Create,
    List,
    Extract,
}

/// What -c/-t/-x need to know.
pub struct Options {
    pub mode: Mode,
    pub archive: Option<OsString>,
    pub gzip: bool,
    pub verbose: u32,
    pub strip: usize,
    pub preserve: bool,
    pub excludes: Vec<String>,
    pub to_stdout: bool,
    pub keep_old: bool,
    pub skip_old: bool,
    pub touch: bool,
    pub dereference: bool,
    pub recursion: bool,
    pub sort_names: bool,
    pub owner: Option<(String, Option<u64>)>,
    pub group: Option<(String, Option<u64>)>,
    pub numeric_owner: bool,
    pub mtime: Option<i64>,
    pub absolute: bool,
    pub remove_files: bool,
    pub totals: bool,
    pub ignore_zeros: bool,
    /// Operands: files to add, or members to list/extract, each with the -C in force.
    pub operands: Vec<(Option<OsString>, OsString)>,
    /// The last -C (where extraction happens).
    pub directory: Option<OsString>,
}

const SPEC: &str = "create,c extract,x extract=get list,t append,r update,u catenate,A catenate=concatenate delete diff,d diff=compare file,f: gzip,z gzip=gunzip gzip=ungzip bzip2,j xz,J compress,Z zstd lzma auto-compress,a directory,C: verbose,v strip-components: preserve-permissions,p preserve-permissions=same-permissions no-same-permissions exclude: exclude-from,X: to-stdout,O keep-old-files,k skip-old-files overwrite unlink-first,U no-same-owner same-owner touch,m dereference,h no-recursion recursion files-from,T: null sort: owner: group: numeric-owner mtime: absolute-names,P format,H: remove-files totals ignore-zeros,i blocking-factor,b: warning: wildcards checkpoint::";

const TAR: Command = Command { usage_status: 2, version: "tar (GNU tar) 1.34 (Airlock)\n", ..Command::compact("tar", SPEC, HELP) };

/// Letters of old-style bundles (`tar xzf a.tgz`) that take the next word as argument.
const TAKES_ARG: &[u8] = b"fCTXbHg";

/// Expands an old-style first word into ordinary options, as GNU tar does.
fn expand_old_style(args: &[OsString]) -> Vec<OsString> {
    let first = match args.first() {
        Some(f) => os_bytes(f).to_vec(),
        None => return Vec::new(),
    };
    if first.is_empty() || first[0] == b'-' {
        return args.to_vec();
    }
    let mut out = Vec::new();
    let mut next = 1;
    for &c in &first {
        out.push(OsString::from(format!("-{}", c as char)));
        if TAKES_ARG.contains(&c) && next < args.len() {
            out.push(args[next].clone());
            next += 1;
        }
    }
    out.extend(args[next..].iter().cloned());
    out
}

/// `NAME[:ID]` for --owner/--group.
fn owner_spec(text: &str) -> (String, Option<u64>) {
    match text.split_once(':') {
        Some((name, id)) => (name.to_string(), id.parse().ok()),
        None => match text.strip_prefix('+').unwrap_or(text).parse::<u64>() {
            Ok(id) if text.starts_with('+') || text.bytes().all(|b| b.is_ascii_digit()) => (String::new(), Some(id)),
            _ => (text.to_string(), None),
        },
    }
}

fn fatal(message: &str) -> UError {
    UError::usage(2, message)
}

/// The options before any is given.
fn default_options() -> Options {
    Options {
        mode: Mode::List,
        archive: None,
        gzip: false,
        verbose: 0,
        strip: 0,
        preserve: false,
        excludes: Vec::new(),
        to_stdout: false,
        keep_old: false,
        skip_old: false,
        touch: false,
        dereference: false,
        recursion: true,
        sort_names: false,
        owner: None,
        group: None,
        numeric_owner: false,
        mtime: None,
        absolute: false,
        remove_files: false,
        totals: false,
        ignore_zeros: false,
        operands: Vec::new(),
        directory: None,
    }
}

/// `-T FILE`: the names each list holds (NUL-separated with --null) become operands.
fn read_files_from(io: &mut Io, lists: Vec<OsString>, null: bool, o: &mut Options) -> Result<(), UError> {
    for list in lists {
        let data = if os_bytes(&list) == b"-" {
            let mut d = Vec::new();
            let _ = std::io::Read::read_to_end(&mut *io.stdin, &mut d);
            d
        } else {
            std::fs::read(&list).map_err(|e| cannot_open(&list.to_string_lossy(), &e))?
        };
        let sep = if null { 0 } else { b'\n' };
        for name in data.split(|b| *b == sep).filter(|n| !n.is_empty()) {
            o.operands.push((o.directory.clone(), common::args::bytes_os(name)));
        }
    }
    Ok(())
}

/// `NAME: Cannot open: reason`, exit 2.
fn cannot_open(name: &str, error: &std::io::Error) -> UError {
    UError::io(2, format_args!("{}: Cannot open", name), error)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let expanded = expand_old_style(&args[1..]);
    let mut mode: Option<Mode> = None;
    let mut o = default_options();
    let mut auto_compress = false;
    let mut null = false;
    let mut files_from: Vec<OsString> = Vec::new();
    TAR.options_after_name(&expanded, io, &mut |_, p| {
        let (id, value) = match p {
            Parsed::Operand(f) => {
                o.operands.push((o.directory.clone(), f));
                return Ok(());
            }
            Parsed::Opt { id, value } => (id, value),
        };
        let text = value.as_ref().map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
        let set_mode = |m: Mode, mode: &mut Option<Mode>| -> Result<(), ()> {
            match mode {
                Some(old) if *old != m => Err(()),
                _ => {
                    *mode = Some(m);
                    Ok(())
                }
            }
        };
        let conflict = match id {
            "create" => set_mode(Mode::Create, &mut mode),
            "extract" => set_mode(Mode::Extract, &mut mode),
            "list" => set_mode(Mode::List, &mut mode),
            _ => Ok(()),
        };
        if conflict.is_err() {
            return Err(fatal("You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option"));
        }
        match id {
            "create" | "extract" | "list" => {}
            "append" | "update" | "catenate" | "delete" | "diff" => return Err(UError::new(2, format!("option not supported in the sandbox: --{}", id))),
            "bzip2" | "xz" | "compress" | "zstd" | "lzma" => return Err(UError::new(2, format!("option not supported in the sandbox: --{} (only gzip compression is available)", id))),
            "file" => o.archive = value,
            "gzip" => o.gzip = true,
            "auto-compress" => auto_compress = true,
            // Each -C is relative to the one before, like successive chdir calls.
            "directory" => {
                let next = value.unwrap_or_default();
                o.directory = Some(match &o.directory {
                    Some(prev) if !os_bytes(&next).starts_with(b"/") => std::path::Path::new(prev).join(&next).into_os_string(),
                    _ => next,
                });
            }
            "verbose" => o.verbose += 1,
            "strip-components" => o.strip = text.parse().map_err(|_| fatal(&format!("Invalid number of elements: {}", common::io::quote(&OsString::from(&text)))))?,
            "preserve-permissions" => o.preserve = true,
            "no-same-permissions" => o.preserve = false,
            "exclude" => o.excludes.push(text),
            "exclude-from" => {
                let data = std::fs::read(&text).map_err(|e| cannot_open(&text, &e))?;
                o.excludes.extend(data.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| String::from_utf8_lossy(l).into_owned()));
            }
            "to-stdout" => o.to_stdout = true,
            "keep-old-files" => o.keep_old = true,
            "skip-old-files" => o.skip_old = true,
            "touch" => o.touch = true,
            "dereference" => o.dereference = true,
            "no-recursion" => o.recursion = false,
            "recursion" => o.recursion = true,
            "files-from" => files_from.push(value.unwrap_or_default()),
            "null" => null = true,
            "sort" => match text.as_str() {
                "name" => o.sort_names = true,
                "none" | "inode" => o.sort_names = false,
                _ => return Err(fatal(&format!("invalid argument '{}' for '--sort'", text))),
            },
            "owner" => o.owner = Some(owner_spec(&text)),
            "group" => o.group = Some(owner_spec(&text)),
            "numeric-owner" => o.numeric_owner = true,
            "mtime" => {
                let parsed = if let Some(num) = text.strip_prefix('@') { num.parse::<i64>().ok() } else { common::timefmt::parse_date(&text, common::timefmt::now()).map(|(s, _)| s) };
                match parsed {
                    Some(t) => o.mtime = Some(t),
                    None => return Err(UError::new(2, format!("Substituting -9223372036854775807 for unknown date format '{}'", text))),
                }
            }
            "absolute-names" => o.absolute = true,
            "format" => {
                if !matches!(text.as_str(), "gnu" | "oldgnu" | "ustar" | "posix" | "pax" | "v7") {
                    return Err(fatal(&format!("Invalid archive format '{}'", text)));
                }
            }
            "remove-files" => o.remove_files = true,
            "totals" => o.totals = true,
            "ignore-zeros" => o.ignore_zeros = true,
            // Accepted and meaningless here: ownership is never changed, records are
            // always 20 blocks, patterns are matched as globs.
            _ => {}
        }
        Ok(())
    })?;
    read_files_from(io, files_from, null, &mut o)?;
    o.mode = match mode {
        Some(m) => m,
        None => return Err(fatal("You must specify one of the '-Acdtrux', '--delete' or '--test-label' options")),
    };
    if auto_compress && o.mode == Mode::Create {
        if let Some(a) = &o.archive {
            let name = a.to_string_lossy();
            if name.ends_with(".gz") || name.ends_with(".tgz") || name.ends_with(".taz") {
                o.gzip = true;
            }
        }
    }
    let status = match o.mode {
        Mode::Create => create::run(io, &o),
        Mode::List | Mode::Extract => extract::run(io, &o),
    };
    if status == 2 {
        let _ = std::io::Write::flush(&mut *io.stdout);
        return Err(UError::new(2, "Exiting with failure status due to previous errors"));
    }
    Ok(status)
}

/// GNU tar's --exclude matching: the pattern may match the whole name or any tail of it
/// that starts after a `/`, and a match of leading directories counts (FNM_LEADING_DIR).
pub fn excluded(patterns: &[String], name: &[u8]) -> bool {
    let name = name.strip_suffix(b"/").unwrap_or(name);
    let flags = common::fnmatch::FnFlags::default();
    let matches_leading = |p: &[u8], text: &[u8]| {
        if common::fnmatch::fnmatch(p, text, flags) {
            return true;
        }
        text.iter().enumerate().any(|(i, b)| *b == b'/' && common::fnmatch::fnmatch(p, &text[..i], flags))
    };
    patterns.iter().any(|p| {
        let p = p.trim_end_matches('/').as_bytes();
        if matches_leading(p, name) {
            return true;
        }
        name.iter().enumerate().any(|(i, b)| *b == b'/' && matches_leading(p, &name[i + 1..]))
    })
}

const HELP: &str = "Usage: tar [OPTION...] [FILE]...
GNU 'tar' saves many files together into a single tape or disk archive, and can
restore individual files from the archive.

Examples:
  tar -cf archive.tar foo bar  # Create archive.tar from files foo and bar.
  tar -tvf archive.tar         # List all files in archive.tar verbosely.
  tar -xf archive.tar          # Extract all files from archive.tar.

 Main operation mode:
  -c, --create               create a new archive
  -t, --list                 list the contents of an archive
  -x, --extract, --get       extract files from an archive

 Common options:
  -C, --directory=DIR        change to directory DIR
  -f, --file=ARCHIVE         use archive file or device ARCHIVE
  -z, --gzip                 filter the archive through gzip
  -v, --verbose              verbosely list files processed
  -O, --to-stdout            extract files to standard output
  -k, --keep-old-files       don't replace existing files when extracting
  -p, --preserve-permissions extract information about file permissions
      --strip-components=NUMBER   strip NUMBER leading components from file
                             names on extraction
      --exclude=PATTERN      exclude files, given as a PATTERN
      --sort=ORDER           directory sorting order: none (default), name
";
