//! command: grep egrep fgrep
//! `grep`: print lines that match patterns (GNU grep 3.8). Here: the configuration and the
//! run over the operands; what each option sets is `grep/options.rs`, the colours
//! `grep/color.rs`, which inputs are read `grep/files.rs`, searching one input and printing
//! `grep/search.rs`. Patterns compile with the shared `common::regex` layer.

#[path = "grep/color.rs"]
mod color;
#[path = "grep/files.rs"]
mod files;
#[path = "grep/options.rs"]
mod options;
/// Also used by rg (same line search, context and prefixes).
#[path = "grep/search.rs"]
pub mod search;

use std::ffi::OsString;
use std::io::{self, BufRead, Write};
use std::path::Path;

use common::args::os_bytes;
use common::regex::{Flavor, Regex};
use common::{strerror, Io, UError};

pub use color::{write_colored, write_name, Palette};
use options::{apply, expand_digit_options, setup, usage, Setup, GREP};

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

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let invoked = args.first().and_then(|a| Path::new(a).file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let flavor = match invoked.as_str() {
        "egrep" => Flavor::Extended,
        "fgrep" => Flavor::Fixed,
        _ => Flavor::Basic,
    };
    let mut o = setup(flavor);
    let mut operands = GREP.operands(&expand_digit_options(&args), io, &mut |io, id, value| apply(&mut o, id, value.unwrap_or_default(), io))?;
    let Setup { flavor, mut patterns, have_patterns, mut flags, mut config, walk, before, after, context, color } = o;

    if color {
        config.colors = Some(Palette::from_env(io));
    }
    config.context_given = before.is_some() || after.is_some() || context.is_some();
    config.before = before.or(context).unwrap_or(0);
    config.after = after.or(context).unwrap_or(0);
    if !have_patterns {
        if operands.is_empty() {
            return Err(usage(io));
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
    let re = re.map_err(|e| UError::new(2, e.to_string()))?;
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
    match config.max_count {
        // No line can be selected: GNU reads nothing at all.
        Some(0) => Ok(1),
        _ => search_operands(&operands, recursive_default, &config, &re, &walk, io).map_err(write_error),
    }
}

/// Searches every operand; the exit status.
fn search_operands(operands: &[OsString], recursive_default: bool, config: &Config, re: &Regex, walk: &Walk, io: &mut Io) -> io::Result<i32> {
    let show_names = walk.with_filename.unwrap_or(operands.len() > 1);
    let mut state = State { matched: false, error: false, printed_any: false };
    for operand in operands {
        let display: Vec<u8> = if recursive_default { Vec::new() } else { os_bytes(operand).to_vec() };
        if files::search_operand(operand, &display, show_names, config, re, walk, io, &mut state)? {
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

/// A failed write of the output: GNU grep's `write error`, with its error status 2.
fn write_error(error: io::Error) -> UError {
    let error = UError::write(&error);
    match error.status {
        common::write::SIGPIPE_STATUS => error,
        _ => UError { status: 2, ..error },
    }
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
    search::summary(out, name, show, outcome.count, config, true)?;
    if binary_report {
        out.flush()?;
        let _ = writeln!(err, "grep: {}: binary file matches", String::from_utf8_lossy(name));
    }
    Ok(false)
}

