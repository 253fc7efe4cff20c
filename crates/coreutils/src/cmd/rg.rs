//! command: rg
//! `rg`: ripgrep 13's common flags and output: `path:line` into a pipe, with line numbers
//! and a heading per file on a terminal, coloured as ripgrep colours (`--color`, on a
//! terminal by default). Patterns use the `regex` crate's syntax, as
//! ripgrep does. The directory walk (hidden files, .gitignore/.ignore, -g, -t) is
//! `rg/walk.rs`; searching a file reuses grep's searcher.

#[path = "rg/walk.rs"]
mod walk;

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, Write};
use std::path::Path;

use common::args::os_bytes;
use common::regex::{Flags, Flavor, Regex};
use common::{Command, Io, UError};

use crate::registry::cmd_grep::search::{summary, Searcher};
use crate::registry::cmd_grep::{write_name, BinaryMode, Config, Palette};

/// The options ripgrep has and the sandbox does not are listed under their long names (the
/// id the error names).
const SPEC: &str = "e,regexp: f,file: F,fixed-strings i,ignore-case S,smart-case s,case-sensitive v,invert-match w,word-regexp x,line-regexp c,count l,files-with-matches files-without-match files n,line-number N,no-line-number heading no-heading H,with-filename I,no-filename o,only-matching A,after-context: B,before-context: C,context: m,max-count: sort: sortr: 0,null g,glob: hidden no-ignore u,unrestricted t,type: T,type-not: type-list q,quiet a,text L,follow d=max-depth: color: no-messages --pcre2=P,pcre2 --multiline=U,multiline --replace=r,replace: --search-zip=z,search-zip --pretty=p,pretty --json=json --vimgrep=vimgrep --column=column";

/// ripgrep's `-h` is `--help`, `-V` `--version`; a bad option is a usage error (status 2).
const RG: Command = Command { usage_status: 2, standard: "help,h version,V", version: "ripgrep 13.0.0 (Airlock)\n", ..Command::compact("rg", SPEC, HELP) };

struct Options {
    patterns: Vec<Vec<u8>>,
    fixed: bool,
    case: Case,
    word: bool,
    line: bool,
    invert: bool,
    count: bool,
    list: Option<bool>,
    files: bool,
    line_number: bool,
    heading: bool,
    with_filename: Option<bool>,
    only: bool,
    before: Option<usize>,
    after: Option<usize>,
    context: Option<usize>,
    max_count: Option<u64>,
    null: bool,
    quiet: bool,
    text: bool,
    no_messages: bool,
    filters: walk::Filters,
    paths: Vec<OsString>,
    color: bool,
}

/// ripgrep's default colours (`path:fg:magenta`, `line:fg:green`, `match:fg:red`,
/// `match:style:bold`), each spec written by termcolor after a reset.
fn rg_palette() -> Palette {
    let matched = b"\x1b[0m\x1b[1m\x1b[31m".to_vec();
    let line = b"\x1b[0m\x1b[32m".to_vec();
    Palette {
        selected_match: matched.clone(),
        context_match: matched,
        selected_line: Vec::new(),
        context_line: Vec::new(),
        file_name: b"\x1b[0m\x1b[35m".to_vec(),
        line_number: line.clone(),
        byte_offset: line,
        separator: Vec::new(),
        end: b"\x1b[0m".to_vec(),
        reverse: false,
    }
}

#[derive(PartialEq, Eq)]
enum Case {
    Sensitive,
    Insensitive,
    Smart,
}

/// An error in clap's words, which ripgrep prints without its name in front: status 2.
fn plain_error(io: &mut Io, message: impl std::fmt::Display) -> UError {
    let _ = writeln!(io.stderr, "{}", message);
    UError::exit(2)
}

fn number(value: &OsStr, io: &mut Io) -> Result<u64, UError> {
    value.to_str().and_then(|s| s.parse::<u64>().ok()).ok_or_else(|| plain_error(io, format_args!("error: Invalid value for a number: {}", value.to_string_lossy())))
}

/// What the options ask for. Options that override each other are read as the last of them
/// given (`-n -N`), numbers as the last value; `-e` and `-f` patterns add up in order.
fn options(args: &[OsString], io: &mut Io) -> Result<Options, UError> {
    let seen = RG.seen(args, io)?;
    for (id, value) in &seen.opts {
        let value = value.as_deref().unwrap_or_default();
        match *id {
            // Walks are always in path order; other orders need file times.
            "sort" | "sortr" if value != "path" && value != "none" => return Err(UError::new(2, format!("option not supported in the sandbox: --{} {}", id, value.to_string_lossy()))),
            "type-list" => {
                for (name, globs) in walk::TYPES {
                    let _ = writeln!(io.stdout, "{}: {}", name, globs.join(", "));
                }
                return Err(UError::exit(0));
            }
            unsupported if unsupported.starts_with("--") => return Err(UError::new(2, format!("option not supported in the sandbox: {}", unsupported))),
            _ => {}
        }
    }
    let mut patterns = Vec::new();
    for (id, value) in &seen.opts {
        match (*id, value) {
            ("e", Some(value)) => patterns.push(os_bytes(value).to_vec()),
            ("f", Some(value)) => {
                let data = std::fs::read(value).map_err(|e| plain_error(io, format_args!("{}: {}", value.to_string_lossy(), common::strerror(&e))))?;
                patterns.extend(data.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec()));
            }
            _ => {}
        }
    }
    let mut numbers = [None; 5];
    for (slot, id) in numbers.iter_mut().zip(["A", "B", "C", "m", "d"]) {
        *slot = seen.value(id).map(|v| number(v, io)).transpose()?;
    }
    let [after, before, context, max_count, max_depth] = numbers;
    let mut types = [Vec::new(), Vec::new()];
    for (list, id) in types.iter_mut().zip(["t", "T"]) {
        for name in seen.values(id) {
            let name = name.to_string_lossy();
            list.push(walk::TYPES.iter().find(|(n, _)| *n == name).map(|(n, _)| *n).ok_or_else(|| plain_error(io, format_args!("unrecognized file type: {}", name)))?);
        }
    }
    let [types, types_not] = types;
    let tty = common::fsops::is_terminal(1);
    // termcolor's auto: a terminal, TERM set and not dumb, NO_COLOR unset.
    let auto_color = tty && std::env::var("TERM").map_or(false, |t| t != "dumb") && std::env::var_os("NO_COLOR").is_none();
    let color = match seen.value("color").map(|v| v.to_str()) {
        None | Some(Some("auto")) => auto_color,
        Some(Some("always")) | Some(Some("ansi")) => true,
        Some(Some("never")) => false,
        Some(_) => {
            let value = seen.value("color").map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
            return Err(plain_error(io, format_args!("error: '{}' isn't a valid value for '--color <WHEN>'\n\t[possible values: always, ansi, auto, never]\n", value)));
        }
    };
    let flag = |id: &str| seen.flag(id);
    let last = |ids: &[&str]| seen.last_of(ids);
    // -u, -uu, -uuu: no ignore files, then hidden files too, then binary files as text.
    let unrestricted = seen.count("u");
    let filters = walk::Filters {
        hidden: flag("hidden") || unrestricted >= 2,
        no_ignore: flag("no-ignore") || unrestricted >= 1,
        globs: seen.values("g").filter_map(|g| walk::glob_rule(os_bytes(g))).collect(),
        types,
        types_not,
        max_depth: max_depth.map(|n| n as usize),
        follow: flag("L"),
    };
    // Without -e or -f, the first operand is the pattern.
    let have_patterns = flag("e") || flag("f");
    let mut o = Options {
        patterns,
        fixed: flag("F"),
        case: match last(&["i", "S", "s"]) {
            Some("i") => Case::Insensitive,
            Some("S") => Case::Smart,
            _ => Case::Sensitive,
        },
        word: flag("w"),
        line: flag("x"),
        invert: flag("v"),
        count: flag("c"),
        list: last(&["l", "files-without-match"]).map(|id| id == "l"),
        files: flag("files"),
        // On a terminal, line numbers and a heading per file unless turned off.
        line_number: last(&["n", "N"]).map_or(tty, |id| id == "n"),
        heading: last(&["heading", "no-heading"]).map_or(tty, |id| id == "heading"),
        with_filename: last(&["H", "I"]).map(|id| id == "H"),
        only: flag("o"),
        before: before.map(|n| n as usize),
        after: after.map(|n| n as usize),
        context: context.map(|n| n as usize),
        max_count,
        null: flag("0"),
        quiet: flag("q"),
        text: flag("a") || unrestricted >= 3,
        no_messages: flag("no-messages"),
        filters,
        paths: seen.operands.clone(),
        color,
    };
    if !have_patterns && !o.files {
        if o.paths.is_empty() {
            return Err(plain_error(io, "error: The following required arguments were not provided:\n    <PATTERN>\n\nUSAGE:\n\n    rg [OPTIONS] PATTERN [PATH ...]\n\nFor more information try --help"));
        }
        o.patterns.push(os_bytes(&o.paths.remove(0)).to_vec());
    }
    Ok(o)
}

/// Whether stdin is a pipe or a file (then rg searches it when given no path).
fn stdin_is_readable() -> bool {
    match common::fsext::metadata(Path::new("/dev/stdin"), true) {
        Ok(m) => m.is_file() || m.file_type() == 0o010000,
        Err(_) => false,
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let o = options(&args, io)?;
    let icase = match o.case {
        Case::Insensitive => true,
        Case::Sensitive => false,
        Case::Smart => !o.patterns.iter().any(|p| has_uppercase_literal(p)),
    };
    let flags = Flags { icase, newline: true, whole_line: o.line, whole_word: o.word };
    let refs: Vec<&[u8]> = o.patterns.iter().map(|p| p.as_slice()).collect();
    let re = Regex::new_many(&refs, if o.fixed { Flavor::Fixed } else { Flavor::Perl }, flags).map_err(|e| plain_error(io, format_args!("regex parse error:\n    {}", e)))?;
    match o.max_count {
        // No line can be selected: ripgrep reads nothing.
        Some(0) => Ok(1),
        _ => search_all(&o, &re, io).map_err(|e| match common::error::is_broken_pipe(&e) {
            true => UError::write(&e),
            // ripgrep words a failed write as the bare reason.
            false => plain_error(io, common::strerror(&e)),
        }),
    }
}

fn search_all(o: &Options, re: &Regex, io: &mut Io) -> io::Result<i32> {
    let use_stdin = o.paths.is_empty() && stdin_is_readable() && !o.files;
    let implicit_root = o.paths.is_empty() && !use_stdin;
    let single_file = o.paths.len() == 1 && !Path::new(&o.paths[0]).is_dir();
    let show_name = o.with_filename.unwrap_or(!(use_stdin || single_file));
    let context_given = o.before.is_some() || o.after.is_some() || o.context.is_some();
    let config = Config {
        invert: o.invert,
        count_only: o.count,
        list_files: o.list,
        quiet: o.quiet,
        only_matching: o.only,
        line_number: o.line_number,
        byte_offset: false,
        initial_tab: false,
        null_after_name: o.null,
        max_count: o.max_count,
        before: if o.only || o.count || o.list.is_some() { 0 } else { o.before.or(o.context).unwrap_or(0) },
        after: if o.only || o.count || o.list.is_some() { 0 } else { o.after.or(o.context).unwrap_or(0) },
        colors: if o.color { Some(rg_palette()) } else { None },
        eol: b'\n',
        binary: BinaryMode::Quit,
        line_buffered: false,
        group_separator: Some(b"--".to_vec()),
        needs_line_numbers: o.line_number || context_given,
        context_given: context_given && !o.only,
        heading: o.heading && show_name,
        block_search: true,
    };
    let mut state = State { matched: false, error: false, printed_any: false, quit: false };
    if use_stdin {
        let stdin: &mut dyn BufRead = io.stdin;
        search(stdin, b"<stdin>", show_name, &config, re, io.stdout, &mut state)?;
    } else {
        let roots: Vec<OsString> = if implicit_root { vec![OsString::from(".")] } else { o.paths.clone() };
        for root in roots {
            let path = Path::new(&root);
            let display: &[u8] = if implicit_root { b"" } else { os_bytes(&root) };
            if path.is_dir() {
                let out: &mut dyn Write = io.stdout;
                let mut failure: Option<io::Error> = None;
                let files_only = o.files;
                let null = o.null;
                walk::walk(path, display, &o.filters, &mut |file, shown| {
                    let result = if files_only {
                        write_name(out, shown, &config).and_then(|_| out.write_all(if null { b"\0" } else { b"\n" })).map(|_| true)
                    } else {
                        match std::fs::File::open(file) {
                            Ok(f) => search(&mut io::BufReader::new(f), shown, show_name, &config, re, out, &mut state).map(|_| !state.quit),
                            Err(_) => Ok(true),
                        }
                    };
                    match result {
                        Ok(go_on) => go_on,
                        Err(e) => {
                            failure = Some(e);
                            false
                        }
                    }
                });
                if let Some(e) = failure {
                    return Err(e);
                }
            } else if o.files {
                if path.exists() {
                    write_name(io.stdout, display, &config)?;
                    io.stdout.write_all(if o.null { b"\0" } else { b"\n" })?;
                } else {
                    report_missing(&root, &o, io, &mut state);
                }
            } else {
                match std::fs::File::open(path) {
                    Ok(f) => {
                        let explicit = Config { binary: if o.text { BinaryMode::Text } else { BinaryMode::Report }, ..config.clone() };
                        search(&mut io::BufReader::new(f), display, show_name, &explicit, re, io.stdout, &mut state)?;
                    }
                    Err(_) => report_missing(&root, &o, io, &mut state),
                }
            }
            if state.quit {
                break;
            }
        }
    }
    io.stdout.flush()?;
    Ok(if state.quit || (state.matched && o.quiet) {
        0
    } else if state.error {
        2
    } else if state.matched || (o.files && !state.error) {
        0
    } else {
        1
    })
}

fn report_missing(root: &OsString, o: &Options, io: &mut Io, state: &mut State) {
    let e = std::fs::metadata(root).err();
    if !o.no_messages {
        let reason = e.map(|e| e.to_string()).unwrap_or_default();
        let _ = writeln!(io.stderr, "{}: {}", root.to_string_lossy(), reason);
    }
    state.error = true;
}

struct State {
    matched: bool,
    error: bool,
    printed_any: bool,
    quit: bool,
}

fn search(input: &mut dyn BufRead, name: &[u8], show: bool, config: &Config, re: &Regex, out: &mut dyn Write, state: &mut State) -> io::Result<()> {
    let show_prefix = show && !config.heading;
    let searcher = Searcher::new(config, re, out, name, show_prefix, &mut state.printed_any);
    let (outcome, binary) = match searcher.run(input) {
        Ok(r) => r,
        Err(e) if common::error::is_broken_pipe(&e) => return Err(e),
        Err(_) => return Ok(()),
    };
    if outcome.count > 0 {
        state.matched = true;
    }
    if outcome.quit {
        state.quit = true;
        return Ok(());
    }
    summary(out, name, show, outcome.count, config, false)?;
    if let Some(offset) = binary {
        if show {
            out.write_all(name)?;
            out.write_all(b": ")?;
        }
        writeln!(out, "binary file matches (found \"\\0\" byte around offset {})", offset)?;
    }
    Ok(())
}

/// Smart case: a pattern with an uppercase literal letter is searched case-sensitively.
fn has_uppercase_literal(pattern: &[u8]) -> bool {
    let text = String::from_utf8_lossy(pattern);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
            continue;
        }
        if c.is_uppercase() {
            return true;
        }
    }
    false
}

const HELP: &str = "ripgrep 13.0.0 (Airlock)
Recursively search the current directory for lines matching a pattern.

USAGE:
    rg [OPTIONS] PATTERN [PATH ...]
    rg [OPTIONS] -e PATTERN ... [PATH ...]
    rg [OPTIONS] --files [PATH ...]
    rg [OPTIONS] --type-list

Supported in the sandbox: -e -f -F -i -S -s -v -w -x -c -l --files-with-matches
--files-without-match --files -n -N --heading --no-heading -H -I -o -A -B -C -m
--sort path -0 -g --hidden --no-ignore -u -t -T --type-list -q -a -L
--max-depth --no-messages --color. On a terminal, line numbers, a heading per file and
colours are on by default, as in ripgrep.
";
