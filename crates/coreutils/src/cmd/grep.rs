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

use common::args::{os_bytes, parse, Order};
use common::regex::{Flavor, Regex};
use common::{strerror, Io, Parsed};

pub use color::{write_colored, Palette};
use color::write_name;
use options::{apply, expand_digit_options, setup, usage, Setup, SPEC};

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

fn run_inner(args: Vec<OsString>, io: &mut Io) -> io::Result<i32> {
    let invoked = Path::new(&args[0]).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let flavor = match invoked.as_str() {
        "egrep" => Flavor::Extended,
        "fgrep" => Flavor::Fixed,
        _ => Flavor::Basic,
    };
    let parsed = match parse(&expand_digit_options(&args[1..]), &common::args::table(SPEC), Order::Permute) {
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

