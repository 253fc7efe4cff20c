//! command: grep egrep fgrep
//! `grep`: print lines that match patterns (GNU grep 3.8). Options, inputs and recursion
//! live here; searching one input and printing is `grep/search.rs`. Patterns compile with
//! the shared `common::regex` layer.

/// Also used by rg (same line search, context and prefixes).
#[path = "grep/search.rs"]
pub mod search;

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use common::args::{bytes_os, os_bytes, parse, Order};
use common::fnmatch::{fnmatch, FnFlags};
use common::regex::{Flags, Flavor, Regex};
use common::{strerror, HasArg, Io, OptSpec, Parsed};

const SPEC: &[OptSpec] = &[
    OptSpec::flag("E", 'E', "extended-regexp"),
    OptSpec::flag("F", 'F', "fixed-strings"),
    OptSpec::flag("G", 'G', "basic-regexp"),
    OptSpec::flag("P", 'P', "perl-regexp"),
    OptSpec::both("e", 'e', "regexp", HasArg::Required),
    OptSpec::both("f", 'f', "file", HasArg::Required),
    OptSpec::flag("i", 'i', "ignore-case"),
    OptSpec::short("i", 'y', HasArg::No),
    OptSpec::long("no-ignore-case", "no-ignore-case", HasArg::No),
    OptSpec::flag("w", 'w', "word-regexp"),
    OptSpec::flag("x", 'x', "line-regexp"),
    OptSpec::flag("z", 'z', "null-data"),
    OptSpec::flag("s", 's', "no-messages"),
    OptSpec::flag("v", 'v', "invert-match"),
    OptSpec::flag("V", 'V', "version"),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::both("m", 'm', "max-count", HasArg::Required),
    OptSpec::flag("b", 'b', "byte-offset"),
    OptSpec::flag("n", 'n', "line-number"),
    OptSpec::long("line-buffered", "line-buffered", HasArg::No),
    OptSpec::flag("H", 'H', "with-filename"),
    OptSpec::flag("h", 'h', "no-filename"),
    OptSpec::long("label", "label", HasArg::Required),
    OptSpec::flag("o", 'o', "only-matching"),
    OptSpec::flag("q", 'q', "quiet"),
    OptSpec::long("q", "silent", HasArg::No),
    OptSpec::long("binary-files", "binary-files", HasArg::Required),
    OptSpec::flag("a", 'a', "text"),
    OptSpec::short("I", 'I', HasArg::No),
    OptSpec::both("d", 'd', "directories", HasArg::Required),
    OptSpec::both("D", 'D', "devices", HasArg::Required),
    OptSpec::flag("r", 'r', "recursive"),
    OptSpec::flag("R", 'R', "dereference-recursive"),
    OptSpec::long("include", "include", HasArg::Required),
    OptSpec::long("exclude", "exclude", HasArg::Required),
    OptSpec::long("exclude-from", "exclude-from", HasArg::Required),
    OptSpec::long("exclude-dir", "exclude-dir", HasArg::Required),
    OptSpec::flag("L", 'L', "files-without-match"),
    OptSpec::flag("l", 'l', "files-with-matches"),
    OptSpec::flag("c", 'c', "count"),
    OptSpec::flag("T", 'T', "initial-tab"),
    OptSpec::flag("Z", 'Z', "null"),
    OptSpec::both("A", 'A', "after-context", HasArg::Required),
    OptSpec::both("B", 'B', "before-context", HasArg::Required),
    OptSpec::both("C", 'C', "context", HasArg::Required),
    OptSpec::long("color", "color", HasArg::Optional),
    OptSpec::long("color", "colour", HasArg::Optional),
    OptSpec::flag("U", 'U', "binary"),
    OptSpec::long("group-separator", "group-separator", HasArg::Required),
    OptSpec::long("no-group-separator", "no-group-separator", HasArg::No),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryMode {
    Binary,
    Text,
    WithoutMatch,
    /// rg, files found while walking: stop reading at the first NUL, silently.
    Quit,
    /// rg, files named on the command line: no lines, one "binary file matches" report.
    Report,
}

/// Everything that shapes the search and the output.
pub struct Config {
    pub invert: bool,
    pub count_only: bool,
    /// -l (true) or -L (false).
    pub list_files: Option<bool>,
    pub quiet: bool,
    pub only_matching: bool,
    pub line_number: bool,
    pub byte_offset: bool,
    pub initial_tab: bool,
    pub null_after_name: bool,
    pub max_count: Option<u64>,
    pub before: usize,
    pub after: usize,
    pub color: bool,
    pub eol: u8,
    pub binary: BinaryMode,
    pub line_buffered: bool,
    pub group_separator: Option<Vec<u8>>,
    pub needs_line_numbers: bool,
    /// Some -A/-B/-C was given (even 0): groups are separated by `--`.
    pub context_given: bool,
    /// rg --heading: the file name on its own line before its first line, a blank line
    /// between files.
    pub heading: bool,
    /// The regex may search a whole block of lines at once (not with -z or \` \').
    pub block_search: bool,
}

impl Config {
    /// Whether lines are never printed (only counts, names or the status).
    pub fn quiet_output(&self) -> bool {
        self.quiet || self.count_only || self.list_files.is_some()
    }

    pub fn match_color(&self) -> Option<&'static [u8]> {
        if self.color {
            Some(b"01;31")
        } else {
            None
        }
    }
}

struct Walk {
    recursive: bool,
    dereference: bool,
    includes: Vec<Vec<u8>>,
    excludes: Vec<Vec<u8>>,
    exclude_dirs: Vec<Vec<u8>>,
    skip_dirs: bool,
    no_messages: bool,
    with_filename: Option<bool>,
    label: Vec<u8>,
}

struct State {
    matched: bool,
    error: bool,
    printed_any: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    match run_inner(args, io) {
        Ok(status) => status,
        Err(e) if common::error::is_broken_pipe(&e) => 0,
        Err(e) => {
            io.error(format!("write error: {}", strerror(&e)));
            2
        }
    }
}

fn usage(io: &mut Io) -> i32 {
    let _ = writeln!(io.stderr, "Usage: {} [OPTION]... PATTERNS [FILE]...", io.name);
    io.try_help();
    2
}

/// GNU's `-NUM` (context NUM) becomes `--context=NUM` before option parsing.
fn expand_digit_options(args: &[OsString]) -> Vec<OsString> {
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

fn context_number(value: &OsStr, io: &mut Io) -> Result<usize, i32> {
    match value.to_str().and_then(|s| s.parse::<u64>().ok()) {
        Some(n) => Ok(n.min(usize::MAX as u64 / 2) as usize),
        None => {
            io.error(format!("{}: invalid context length argument", value.to_string_lossy()));
            Err(2)
        }
    }
}

fn run_inner(args: Vec<OsString>, io: &mut Io) -> io::Result<i32> {
    let invoked = Path::new(&args[0]).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut flavor = match invoked.as_str() {
        "egrep" => Flavor::Extended,
        "fgrep" => Flavor::Fixed,
        _ => Flavor::Basic,
    };
    let parsed = match parse(&expand_digit_options(&args[1..]), SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return Ok(io.usage_error(&e, 2)),
    };
    let mut patterns: Vec<Vec<u8>> = Vec::new();
    let mut have_patterns = false;
    let mut flags = Flags { newline: true, ..Flags::default() };
    let mut config = Config {
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
        color: false,
        eol: b'\n',
        binary: BinaryMode::Binary,
        line_buffered: false,
        group_separator: Some(b"--".to_vec()),
        needs_line_numbers: false,
        context_given: false,
        heading: false,
        block_search: true,
    };
    let mut walk = Walk { recursive: false, dereference: false, includes: Vec::new(), excludes: Vec::new(), exclude_dirs: Vec::new(), skip_dirs: false, no_messages: false, with_filename: None, label: b"(standard input)".to_vec() };
    let (mut before, mut after, mut context) = (None, None, None);
    let mut operands = Vec::new();
    for p in parsed {
        let (id, value) = match p {
            Parsed::Operand(o) => {
                operands.push(o);
                continue;
            }
            Parsed::Opt { id, value } => (id, value.unwrap_or_default()),
        };
        match id {
            "E" => flavor = Flavor::Extended,
            "F" => flavor = Flavor::Fixed,
            "G" => flavor = Flavor::Basic,
            "P" => flavor = Flavor::Perl,
            "e" => {
                patterns.extend(os_bytes(&value).split(|b| *b == b'\n').map(|s| s.to_vec()));
                have_patterns = true;
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
                            patterns.extend(d.split(|b| *b == b'\n').map(|s| s.to_vec()));
                        }
                        have_patterns = true;
                    }
                    Err(e) => {
                        io.error(format!("{}: {}", value.to_string_lossy(), strerror(&e)));
                        return Ok(2);
                    }
                }
            }
            "i" => flags.icase = true,
            "no-ignore-case" => flags.icase = false,
            "w" => flags.whole_word = true,
            "x" => flags.whole_line = true,
            "z" => config.eol = 0,
            "s" => walk.no_messages = true,
            "v" => config.invert = true,
            "V" => {
                io.out(common::version_text("grep").as_bytes())?;
                return Ok(0);
            }
            "help" => {
                io.out(HELP.replace("NAME", &io.name).as_bytes())?;
                return Ok(0);
            }
            "m" => match value.to_str().and_then(|s| s.parse::<i64>().ok()) {
                Some(n) => config.max_count = if n < 0 { None } else { Some(n as u64) },
                None => {
                    io.error("invalid max count");
                    return Ok(2);
                }
            },
            "b" => config.byte_offset = true,
            "n" => config.line_number = true,
            "line-buffered" => config.line_buffered = true,
            "H" => walk.with_filename = Some(true),
            "h" => walk.with_filename = Some(false),
            "label" => walk.label = os_bytes(&value).to_vec(),
            "o" => config.only_matching = true,
            "q" => config.quiet = true,
            "binary-files" => {
                config.binary = match value.to_str() {
                    Some("binary") => BinaryMode::Binary,
                    Some("text") => BinaryMode::Text,
                    Some("without-match") => BinaryMode::WithoutMatch,
                    _ => {
                        io.error("invalid argument for --binary-files");
                        return Ok(2);
                    }
                }
            }
            "a" => config.binary = BinaryMode::Text,
            "I" => config.binary = BinaryMode::WithoutMatch,
            "d" => match value.to_str() {
                Some("read") => walk.skip_dirs = false,
                Some("skip") => walk.skip_dirs = true,
                Some("recurse") => walk.recursive = true,
                _ => {
                    io.error(format!("invalid argument {} for '--directories'", common::io::quote(&value)));
                    return Ok(2);
                }
            },
            "D" => {}
            "r" => walk.recursive = true,
            "R" => {
                walk.recursive = true;
                walk.dereference = true;
            }
            "include" => walk.includes.push(os_bytes(&value).to_vec()),
            "exclude" => walk.excludes.push(os_bytes(&value).to_vec()),
            "exclude-from" => match std::fs::read(&value) {
                Ok(d) => walk.excludes.extend(d.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec())),
                Err(e) => {
                    io.error(format!("{}: {}", value.to_string_lossy(), strerror(&e)));
                    return Ok(2);
                }
            },
            "exclude-dir" => walk.exclude_dirs.push(os_bytes(&value).to_vec()),
            "L" => config.list_files = Some(false),
            "l" => config.list_files = Some(true),
            "c" => config.count_only = true,
            "T" => config.initial_tab = true,
            "Z" => config.null_after_name = true,
            "A" => match context_number(&value, io) {
                Ok(n) => after = Some(n),
                Err(s) => return Ok(s),
            },
            "B" => match context_number(&value, io) {
                Ok(n) => before = Some(n),
                Err(s) => return Ok(s),
            },
            "C" => match context_number(&value, io) {
                Ok(n) => context = Some(n),
                Err(s) => return Ok(s),
            },
            "color" => {
                config.color = match value.to_str() {
                    Some("") | Some("auto") | Some("tty") | Some("if-tty") | Some("never") | Some("no") | Some("none") => false,
                    Some("always") | Some("yes") | Some("force") => true,
                    _ => {
                        // GNU grep 3.8 answers an unknown WHEN with its help text and status 0.
                        io.out(HELP.replace("NAME", &io.name).as_bytes())?;
                        return Ok(0);
                    }
                }
            }
            "U" => {}
            "group-separator" => config.group_separator = Some(os_bytes(&value).to_vec()),
            "no-group-separator" => config.group_separator = None,
            _ => {}
        }
    }
    config.context_given = before.is_some() || after.is_some() || context.is_some();
    config.before = before.or(context).unwrap_or(0);
    config.after = after.or(context).unwrap_or(0);
    if !have_patterns {
        if operands.is_empty() {
            return Ok(usage(io));
        }
        let first = operands.remove(0);
        patterns.extend(os_bytes(&first).split(|b| *b == b'\n').map(|s| s.to_vec()));
    }
    if config.eol == 0 {
        flags.newline = false;
    }
    let pattern_refs: Vec<&[u8]> = patterns.iter().map(|p| p.as_slice()).collect();
    let re = if pattern_refs.is_empty() {
        // `-f /dev/null`: no pattern matches nothing.
        Regex::new(b"\\`a\\'\\`", Flavor::Basic, flags)
    } else {
        Regex::new_many(&pattern_refs, flavor, flags)
    };
    let re = match re {
        Ok(re) => re,
        Err(e) => {
            io.error(e);
            return Ok(2);
        }
    };
    config.block_search = config.eol == b'\n' && !patterns.is_empty() && !(flavor != Flavor::Fixed && patterns.iter().any(|p| p.windows(2).any(|w| w == b"\\`" || w == b"\\'")));
    config.needs_line_numbers = config.line_number || config.context_given;
    if config.only_matching || config.quiet_output() {
        config.before = 0;
        config.after = 0;
        config.context_given = false;
    }
    let recursive_default = operands.is_empty() && walk.recursive;
    if operands.is_empty() {
        operands.push(OsString::from(if walk.recursive { "." } else { "-" }));
    }
    let show_names = walk.with_filename.unwrap_or(operands.len() > 1);
    if config.max_count == Some(0) {
        // GNU reads nothing at all.
        return Ok(1);
    }
    let mut state = State { matched: false, error: false, printed_any: false };
    for operand in &operands {
        let display: Vec<u8> = if recursive_default { Vec::new() } else { os_bytes(operand).to_vec() };
        let show = walk.with_filename.unwrap_or(show_names);
        let quit = search_operand(operand, &display, show, &config, &re, &walk, io, &mut state)?;
        if quit {
            return Ok(0);
        }
    }
    io.stdout.flush()?;
    Ok(if state.error && !(config.quiet && state.matched) {
        2
    } else if state.matched {
        0
    } else {
        1
    })
}

/// One command-line operand: a file, stdin, or (with -r) a tree. Returns true for -q's
/// early exit.
#[allow(clippy::too_many_arguments)]
fn search_operand(operand: &OsStr, display: &[u8], show: bool, config: &Config, re: &Regex, walk: &Walk, io: &mut Io, state: &mut State) -> io::Result<bool> {
    if os_bytes(operand) == b"-" {
        let label = walk.label.clone();
        let stdin: &mut dyn BufRead = io.stdin;
        return search_one(stdin, &label, show, config, re, io.stdout, io.stderr, state);
    }
    let path = Path::new(operand);
    let name = os_bytes(operand);
    if !walk.includes.is_empty() || !walk.excludes.is_empty() {
        if !walk.recursive || !path.is_dir() {
            if excluded(name, walk, true) {
                return Ok(false);
            }
        }
    }
    let meta = std::fs::metadata(path);
    if let Ok(m) = &meta {
        if m.is_dir() {
            if walk.recursive {
                let show = walk.with_filename.unwrap_or(true);
                return walk_dir(path, display, show, config, re, walk, io, state);
            }
            if walk.skip_dirs {
                return Ok(false);
            }
            if !walk.no_messages {
                io.error(format!("{}: Is a directory", String::from_utf8_lossy(name)));
            }
            state.error = true;
            return Ok(false);
        }
    }
    match std::fs::File::open(path) {
        Ok(file) => search_one(&mut io::BufReader::new(file), name, show, config, re, io.stdout, io.stderr, state),
        Err(e) => {
            if !walk.no_messages {
                io.error(format!("{}: {}", String::from_utf8_lossy(name), strerror(&e)));
            }
            state.error = true;
            Ok(false)
        }
    }
}

fn excluded(name: &[u8], walk: &Walk, command_line: bool) -> bool {
    let base = name.rsplit(|b| *b == b'/').find(|s| !s.is_empty()).unwrap_or(name);
    let hit = |globs: &[Vec<u8>]| globs.iter().any(|g| fnmatch(g, base, FnFlags::default()) || (command_line && fnmatch(g, name, FnFlags::default())));
    if hit(&walk.excludes) {
        return true;
    }
    !walk.includes.is_empty() && !hit(&walk.includes)
}

#[allow(clippy::too_many_arguments)]
fn walk_dir(dir: &Path, display: &[u8], show: bool, config: &Config, re: &Regex, walk: &Walk, io: &mut Io, state: &mut State) -> io::Result<bool> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            if !walk.no_messages {
                io.error(format!("{}: {}", String::from_utf8_lossy(display), strerror(&e)));
            }
            state.error = true;
            return Ok(false);
        }
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let base = os_bytes(&file_name);
        let mut child_display = display.to_vec();
        if !child_display.is_empty() && child_display.last() != Some(&b'/') {
            child_display.push(b'/');
        }
        child_display.extend_from_slice(base);
        let child: PathBuf = entry.path();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(_) => continue,
        };
        let is_link = file_type.is_symlink();
        if is_link && !walk.dereference {
            continue;
        }
        let is_dir = if is_link { child.is_dir() } else { file_type.is_dir() };
        if is_dir {
            if walk.exclude_dirs.iter().any(|g| fnmatch(g, base, FnFlags::default())) {
                continue;
            }
            if walk_dir(&child, &child_display, show, config, re, walk, io, state)? {
                return Ok(true);
            }
            continue;
        }
        if excluded(base, walk, false) {
            continue;
        }
        match std::fs::File::open(&child) {
            Ok(file) => {
                if search_one(&mut io::BufReader::new(file), &child_display, show, config, re, io.stdout, io.stderr, state)? {
                    return Ok(true);
                }
            }
            Err(e) => {
                if !walk.no_messages {
                    io.error(format!("{}: {}", String::from_utf8_lossy(&child_display), strerror(&e)));
                }
                state.error = true;
            }
        }
    }
    Ok(false)
}

#[allow(clippy::too_many_arguments)]
fn search_one(input: &mut dyn BufRead, name: &[u8], show: bool, config: &Config, re: &Regex, out: &mut dyn Write, err: &mut dyn Write, state: &mut State) -> io::Result<bool> {
    let searcher = search::Searcher::new(config, re, out, name, show, &mut state.printed_any);
    let (outcome, binary_report) = match searcher.run(input).map(|(o, r)| (o, r.is_some())) {
        Ok(r) => r,
        Err(e) if common::error::is_broken_pipe(&e) => return Err(e),
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "grep: {}: {}", String::from_utf8_lossy(name), strerror(&e));
            state.error = true;
            return Ok(false);
        }
    };
    if outcome.count > 0 {
        state.matched = true;
    }
    if outcome.quit {
        return Ok(true);
    }
    let name_end: &[u8] = if config.null_after_name { b"\0" } else { b"\n" };
    if config.count_only {
        if show {
            write_name(out, name, config)?;
            out.write_all(if config.null_after_name { b"\0" } else { b":" })?;
        }
        writeln!(out, "{}", outcome.count)?;
    }
    match config.list_files {
        Some(true) if outcome.count > 0 => {
            write_name(out, name, config)?;
            out.write_all(name_end)?;
        }
        Some(false) if outcome.count == 0 => {
            write_name(out, name, config)?;
            out.write_all(name_end)?;
        }
        _ => {}
    }
    if binary_report {
        out.flush()?;
        let _ = writeln!(err, "grep: {}: binary file matches", String::from_utf8_lossy(name));
    }
    Ok(false)
}

fn write_name(out: &mut dyn Write, name: &[u8], config: &Config) -> io::Result<()> {
    if config.color {
        out.write_all(b"\x1b[35m\x1b[K")?;
        out.write_all(name)?;
        out.write_all(b"\x1b[m\x1b[K")
    } else {
        out.write_all(name)
    }
}

const HELP: &str = "Usage: NAME [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE.
Example: NAME -i 'hello world' menu.h main.c
PATTERNS can contain multiple patterns separated by newlines.

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -P, --perl-regexp         PATTERNS are Perl-like regular expressions (no look-around)
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           a data line ends in 0 byte, not newline

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines
  -V, --version             display version information and exit
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
      --line-buffered       flush output on every line
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   assume that binary files are TYPE;
                            TYPE is 'binary', 'text', or 'without-match'
  -a, --text                equivalent to --binary-files=text
  -I                        equivalent to --binary-files=without-match
  -d, --directories=ACTION  how to handle directories;
                            ACTION is 'read', 'recurse', or 'skip'
  -r, --recursive           like --directories=recurse
  -R, --dereference-recursive  likewise, but follow all symlinks
      --include=GLOB        search only files that match GLOB (a file pattern)
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any file pattern from FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -T, --initial-tab         make tabs line up (if needed)
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN],
      --colour[=WHEN]       use markers to highlight the matching strings;
                            WHEN is 'always', 'never', or 'auto'
  -U, --binary              do not strip CR characters at EOL (MSDOS/Windows)

When FILE is '-', read standard input.  With no FILE, read '.' if
recursive, '-' otherwise.  With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.
";
