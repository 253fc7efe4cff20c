//! command: grep egrep fgrep
//! `grep`: print lines that match patterns (GNU grep 3.8). Options, inputs and recursion
//! live here; searching one input and printing is `grep/search.rs`. Patterns compile with
//! the shared `common::regex` layer.

#[path = "grep/files.rs"]
mod files;
/// Also used by rg (same line search, context and prefixes).
#[path = "grep/search.rs"]
pub mod search;

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, Write};
use std::path::Path;

use common::args::{bytes_os, os_bytes, parse, Order};
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

/// The sequences that colour the output, each written before its kind of text (empty: that
/// kind is not coloured) and `end` after it: GREP_COLORS's for grep, ripgrep's for rg.
#[derive(Clone)]
pub struct Palette {
    pub selected_match: Vec<u8>,
    pub context_match: Vec<u8>,
    pub selected_line: Vec<u8>,
    pub context_line: Vec<u8>,
    pub file_name: Vec<u8>,
    pub line_number: Vec<u8>,
    pub byte_offset: Vec<u8>,
    pub separator: Vec<u8>,
    pub end: Vec<u8>,
    /// GREP_COLORS's `rv`: with -v, selected and context lines swap `sl` and `cx`.
    pub reverse: bool,
}

impl Palette {
    /// GNU grep 3.8's colours: its defaults (`ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36`),
    /// GREP_COLOR (deprecated, with grep's warning) and GREP_COLORS over them, parsed as
    /// grep's parse_grep_colors does: unknown names are skipped, a value holds only digits
    /// and `;`, and anything malformed ends the parsing with what was read so far.
    fn from_env(io: &mut Io) -> Palette {
        let mut codes: Vec<(&str, String)> = ["ms=01;31", "mc=01;31", "sl=", "cx=", "fn=35", "ln=32", "bn=32", "se=36"].iter().filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k, v.to_string())).collect();
        let legacy = std::env::var("GREP_COLOR").ok().filter(|v| !v.is_empty() && v.bytes().all(|b| b == b';' || b.is_ascii_digit()));
        if let Some(value) = &legacy {
            codes[0].1 = value.clone();
            codes[1].1 = value.clone();
        }
        let (mut reverse, mut no_erase) = (false, false);
        let spec = std::env::var("GREP_COLORS").unwrap_or_default();
        for item in spec.split(':') {
            let (name, value) = match item.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (item, None),
            };
            if (name.is_empty() && value.is_some()) || value.map_or(false, |v| v.contains('=') || !v.bytes().all(|b| b == b';' || b.is_ascii_digit())) {
                break;
            }
            match (name, value) {
                ("mt", Some(v)) => {
                    codes[0].1 = v.to_string();
                    codes[1].1 = v.to_string();
                }
                ("mt", None) => codes[1].1 = codes[0].1.clone(),
                ("rv", _) => reverse = true,
                ("ne", _) => no_erase = true,
                (name, Some(v)) => {
                    if let Some(slot) = codes.iter_mut().find(|(k, _)| *k == name) {
                        slot.1 = v.to_string();
                    }
                }
                _ => {}
            }
        }
        if let Some(value) = legacy {
            if codes[0].1 == value || codes[1].1 == value {
                io.error(format!("warning: GREP_COLOR='{}' is deprecated; use GREP_COLORS='mt={}'", value, value));
            }
        }
        let erase: &[u8] = if no_erase { b"" } else { b"\x1b[K" };
        let sgr = |i: usize| -> Vec<u8> {
            let code: &str = &codes[i].1;
            if code.is_empty() {
                return Vec::new();
            }
            [b"\x1b[", code.as_bytes(), b"m", erase].concat()
        };
        Palette {
            selected_match: sgr(0),
            context_match: sgr(1),
            selected_line: sgr(2),
            context_line: sgr(3),
            file_name: sgr(4),
            line_number: sgr(5),
            byte_offset: sgr(6),
            separator: sgr(7),
            end: [b"\x1b[m", erase].concat(),
            reverse,
        }
    }
}

/// Everything that shapes the search and the output.
#[derive(Clone)]
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
    pub colors: Option<Palette>,
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

/// What grep's options ask for, before the patterns are compiled.
struct Setup {
    flavor: Flavor,
    patterns: Vec<Vec<u8>>,
    have_patterns: bool,
    flags: Flags,
    config: Config,
    walk: Walk,
    before: Option<usize>,
    after: Option<usize>,
    context: Option<usize>,
    color: bool,
    operands: Vec<OsString>,
}

fn setup(flavor: Flavor) -> Setup {
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
fn apply(o: &mut Setup, id: &str, value: OsString, io: &mut Io) -> io::Result<Result<(), i32>> {
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

fn run_inner(args: Vec<OsString>, io: &mut Io) -> io::Result<i32> {
    let invoked = Path::new(&args[0]).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let flavor = match invoked.as_str() {
        "egrep" => Flavor::Extended,
        "fgrep" => Flavor::Fixed,
        _ => Flavor::Basic,
    };
    let parsed = match parse(&expand_digit_options(&args[1..]), SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return Ok(io.usage_error(&e, 2)),
    };
    let mut o = setup(flavor);
    for p in parsed {
        match p {
            Parsed::Operand(operand) => o.operands.push(operand),
            Parsed::Opt { id, value } => {
                if let Err(status) = apply(&mut o, id, value.unwrap_or_default(), io)? {
                    return Ok(status);
                }
            }
        }
    }
    let Setup { flavor, mut patterns, have_patterns, mut flags, mut config, walk, before, after, context, color, mut operands } = o;

    if color {
        config.colors = Some(Palette::from_env(io));
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
        let quit = files::search_operand(operand, &display, show, &config, &re, &walk, io, &mut state)?;
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
            if config.null_after_name {
                out.write_all(b"\0")?;
            } else {
                write_colored(out, b":", config.colors.as_ref().map(|p| &p.separator[..]), config)?;
            }
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
    write_colored(out, name, config.colors.as_ref().map(|p| &p.file_name[..]), config)
}

/// `text` between `start` and the palette's end (plain when `start` is empty or absent).
pub fn write_colored(out: &mut dyn Write, text: &[u8], start: Option<&[u8]>, config: &Config) -> io::Result<()> {
    match (start, &config.colors) {
        (Some(start), Some(palette)) if !start.is_empty() => {
            out.write_all(start)?;
            out.write_all(text)?;
            out.write_all(&palette.end)
        }
        _ => out.write_all(text),
    }
}
