//! command: rg
//! `rg`: ripgrep 13's common flags and output: `path:line` into a pipe, with line numbers
//! and a heading per file on a terminal, coloured as ripgrep colours (`--color`, on a
//! terminal by default). Patterns use the `regex` crate's syntax, as
//! ripgrep does. The directory walk (hidden files, .gitignore/.ignore, -g, -t) is
//! `rg/walk.rs`; searching a file reuses grep's searcher.

#[path = "rg/walk.rs"]
mod walk;

use std::ffi::OsString;
use std::io::{self, BufRead, Write};
use std::path::Path;

use common::args::{os_bytes, parse, Order};
use common::regex::{Flags, Flavor, Regex};
use common::{Io, Parsed};

use crate::registry::cmd_grep::search::Searcher;
use crate::registry::cmd_grep::{write_colored, BinaryMode, Config, Palette};

const SPEC: &str = "e,regexp: f,file: F,fixed-strings i,ignore-case S,smart-case s,case-sensitive v,invert-match w,word-regexp x,line-regexp c,count l,files-with-matches files-without-match files n,line-number N,no-line-number heading no-heading H,with-filename I,no-filename o,only-matching A,after-context: B,before-context: C,context: m,max-count: sort: sortr: 0,null g,glob: hidden no-ignore u,unrestricted t,type: T,type-not: type-list q,quiet a,text L,follow d=max-depth: color: no-messages h,help V,version unsupported=P,pcre2 unsupported=U,multiline unsupported=r,replace: unsupported=z,search-zip unsupported=p,pretty unsupported=json unsupported=vimgrep unsupported=column";

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
    unrestricted: usize,
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

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    match run_inner(args, io) {
        Ok(status) => status,
        Err(e) if common::error::is_broken_pipe(&e) => 0,
        Err(e) => {
            let _ = writeln!(io.stderr, "{}", common::strerror(&e));
            2
        }
    }
}

fn number(value: &OsString, io: &mut Io) -> Result<u64, i32> {
    value.to_str().and_then(|s| s.parse::<u64>().ok()).ok_or_else(|| {
        let _ = writeln!(io.stderr, "error: Invalid value for a number: {}", value.to_string_lossy());
        2
    })
}

/// The options before any is given: line numbers and headings on a terminal.
fn default_options(tty: bool, auto_color: bool) -> Options {
    Options {
        patterns: Vec::new(),
        fixed: false,
        case: Case::Sensitive,
        word: false,
        line: false,
        invert: false,
        count: false,
        list: None,
        files: false,
        line_number: tty,
        heading: tty,
        with_filename: None,
        only: false,
        before: None,
        after: None,
        context: None,
        max_count: None,
        null: false,
        quiet: false,
        text: false,
        no_messages: false,
        unrestricted: 0,
        filters: walk::Filters { hidden: false, no_ignore: false, globs: Vec::new(), types: Vec::new(), types_not: Vec::new(), max_depth: None, follow: false },
        paths: Vec::new(),
        color: auto_color,
    }
}

/// `-u`, `-uu`, `-uuu`: no ignore files, then hidden files too, then binary files as text.
fn unrestrict(o: &mut Options) {
    if o.unrestricted >= 1 {
        o.filters.no_ignore = true;
    }
    if o.unrestricted >= 2 {
        o.filters.hidden = true;
    }
    if o.unrestricted >= 3 {
        o.text = true;
    }
}

fn options(args: &[OsString], io: &mut Io) -> Result<Options, i32> {
    let parsed = parse(args, &common::args::table(SPEC), Order::Permute).map_err(|e| io.usage_error(&e, 2))?;
    let tty = common::fsops::is_terminal(1);
    // termcolor's auto: a terminal, TERM set and not dumb, NO_COLOR unset.
    let auto_color = tty && std::env::var("TERM").map_or(false, |t| t != "dumb") && std::env::var_os("NO_COLOR").is_none();
    let mut o = default_options(tty, auto_color);
    let mut have_patterns = false;
    let mut operands = Vec::new();
    let type_name = |v: &OsString, io: &mut Io| -> Result<&'static str, i32> {
        let name = v.to_string_lossy();
        walk::TYPES.iter().find(|(n, _)| *n == name).map(|(n, _)| *n).ok_or_else(|| {
            let _ = writeln!(io.stderr, "unrecognized file type: {}", name);
            2
        })
    };
    for p in parsed {
        let (id, value) = match p {
            Parsed::Operand(v) => {
                operands.push(v);
                continue;
            }
            Parsed::Opt { id, value } => (id, value.unwrap_or_default()),
        };
        match id {
            "e" => {
                o.patterns.push(os_bytes(&value).to_vec());
                have_patterns = true;
            }
            "f" => {
                let data = std::fs::read(&value).map_err(|e| {
                    let _ = writeln!(io.stderr, "{}: {}", value.to_string_lossy(), common::strerror(&e));
                    2
                })?;
                o.patterns.extend(data.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec()));
                have_patterns = true;
            }
            "F" => o.fixed = true,
            "i" => o.case = Case::Insensitive,
            "S" => o.case = Case::Smart,
            "s" => o.case = Case::Sensitive,
            "v" => o.invert = true,
            "w" => o.word = true,
            "x" => o.line = true,
            "c" => o.count = true,
            "l" => o.list = Some(true),
            "files-without-match" => o.list = Some(false),
            "files" => o.files = true,
            "n" => o.line_number = true,
            "N" => o.line_number = false,
            "heading" => o.heading = true,
            "no-heading" => o.heading = false,
            "H" => o.with_filename = Some(true),
            "I" => o.with_filename = Some(false),
            "o" => o.only = true,
            "A" => o.after = Some(number(&value, io)? as usize),
            "B" => o.before = Some(number(&value, io)? as usize),
            "C" => o.context = Some(number(&value, io)? as usize),
            "m" => o.max_count = Some(number(&value, io)?),
            "sort" | "sortr" => {
                // Walks are always in path order; other orders need file times.
                if value != "path" && value != "none" {
                    let _ = writeln!(io.stderr, "rg: option not supported in the sandbox: --{} {}", id, value.to_string_lossy());
                    return Err(2);
                }
            }
            "0" => o.null = true,
            "g" => o.filters.globs.extend(walk::glob_rule(os_bytes(&value))),
            "hidden" => o.filters.hidden = true,
            "no-ignore" => o.filters.no_ignore = true,
            "u" => o.unrestricted += 1,
            "t" => o.filters.types.push(type_name(&value, io)?),
            "T" => o.filters.types_not.push(type_name(&value, io)?),
            "type-list" => {
                for (name, globs) in walk::TYPES {
                    let _ = writeln!(io.stdout, "{}: {}", name, globs.join(", "));
                }
                return Err(0);
            }
            "q" => o.quiet = true,
            "a" => o.text = true,
            "L" => o.filters.follow = true,
            "d" => o.filters.max_depth = Some(number(&value, io)? as usize),
            "color" => {
                o.color = match value.to_str() {
                    Some("always") | Some("ansi") => true,
                    Some("never") => false,
                    Some("auto") => auto_color,
                    _ => {
                        let _ = writeln!(io.stderr, "error: '{}' isn't a valid value for '--color <WHEN>'\n\t[possible values: always, ansi, auto, never]\n", value.to_string_lossy());
                        return Err(2);
                    }
                }
            }
            "no-messages" => o.no_messages = true,
            "h" => {
                let _ = io.out(HELP.as_bytes());
                return Err(0);
            }
            "V" => {
                let _ = io.out(b"ripgrep 13.0.0 (Airlock)\n");
                return Err(0);
            }
            _ => {
                let name = args.iter().find(|a| a.to_string_lossy().starts_with('-')).map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
                let _ = writeln!(io.stderr, "rg: option not supported in the sandbox: {}", unsupported_name(args).unwrap_or(name));
                return Err(2);
            }
        }
    }
    unrestrict(&mut o);
    if !have_patterns && !o.files {
        if operands.is_empty() {
            let _ = writeln!(io.stderr, "error: The following required arguments were not provided:\n    <PATTERN>\n\nUSAGE:\n\n    rg [OPTIONS] PATTERN [PATH ...]\n\nFor more information try --help");
            return Err(2);
        }
        o.patterns.push(os_bytes(&operands.remove(0)).to_vec());
    }
    o.paths = operands;
    Ok(o)
}

fn unsupported_name(args: &[OsString]) -> Option<String> {
    const NAMES: &[&str] = &["-P", "--pcre2", "-U", "--multiline", "-r", "--replace", "-z", "--search-zip", "-p", "--pretty", "--json", "--vimgrep", "--column"];
    args.iter().map(|a| a.to_string_lossy().into_owned()).find(|a| NAMES.iter().any(|n| a == n || a.starts_with(&format!("{}=", n))))
}

/// Whether stdin is a pipe or a file (then rg searches it when given no path).
fn stdin_is_readable() -> bool {
    match common::fsext::metadata(Path::new("/dev/stdin"), true) {
        Ok(m) => m.is_file() || m.file_type() == 0o010000,
        Err(_) => false,
    }
}

fn run_inner(args: Vec<OsString>, io: &mut Io) -> io::Result<i32> {
    let o = match options(&args[1..], io) {
        Ok(o) => o,
        Err(status) => return Ok(status),
    };
    let icase = match o.case {
        Case::Insensitive => true,
        Case::Sensitive => false,
        Case::Smart => !o.patterns.iter().any(|p| has_uppercase_literal(p)),
    };
    let flags = Flags { icase, newline: true, whole_line: o.line, whole_word: o.word };
    let refs: Vec<&[u8]> = o.patterns.iter().map(|p| p.as_slice()).collect();
    let re = match Regex::new_many(&refs, if o.fixed { Flavor::Fixed } else { Flavor::Perl }, flags) {
        Ok(re) => re,
        Err(e) => {
            let _ = writeln!(io.stderr, "regex parse error:\n    {}", e);
            return Ok(2);
        }
    };
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
    if o.max_count == Some(0) {
        return Ok(1);
    }
    if use_stdin {
        let stdin: &mut dyn BufRead = io.stdin;
        search(stdin, b"<stdin>", show_name, &config, &re, io.stdout, &mut state)?;
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
                        write_path(out, shown, &config).and_then(|_| out.write_all(if null { b"\0" } else { b"\n" })).map(|_| true)
                    } else {
                        match std::fs::File::open(file) {
                            Ok(f) => search(&mut io::BufReader::new(f), shown, show_name, &config, &re, out, &mut state).map(|_| !state.quit),
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
                    write_path(io.stdout, display, &config)?;
                    io.stdout.write_all(if o.null { b"\0" } else { b"\n" })?;
                } else {
                    report_missing(&root, &o, io, &mut state);
                }
            } else {
                match std::fs::File::open(path) {
                    Ok(f) => {
                        let explicit = Config { binary: if o.text { BinaryMode::Text } else { BinaryMode::Report }, ..config.clone() };
                        search(&mut io::BufReader::new(f), display, show_name, &explicit, &re, io.stdout, &mut state)?;
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

/// A path as rg prints it: in the path colour under --color.
fn write_path(out: &mut dyn Write, path: &[u8], config: &Config) -> io::Result<()> {
    write_colored(out, path, config.colors.as_ref().map(|p| &p.file_name[..]), config)
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
    let end: &[u8] = if config.null_after_name { b"\0" } else { b"\n" };
    if config.count_only && outcome.count > 0 {
        if show {
            write_path(out, name, config)?;
            out.write_all(if config.null_after_name { b"\0" } else { b":" })?;
        }
        writeln!(out, "{}", outcome.count)?;
    }
    match config.list_files {
        Some(true) if outcome.count > 0 => {
            write_path(out, name, config)?;
            out.write_all(end)?;
        }
        Some(false) if outcome.count == 0 => {
            write_path(out, name, config)?;
            out.write_all(end)?;
        }
        _ => {}
    }
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
