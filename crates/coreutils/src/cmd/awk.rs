//! command: awk gawk nawk
//! `awk`: the AWK language as GNU awk 5 runs it — POSIX awk plus the gawk extensions
//! scripts use (gensub, asort, PROCINFO["sorted_in"], regex RS, FPAT, FIELDWIDTHS,
//! IGNORECASE, strftime, switch, BEGINFILE/ENDFILE).
//!
//! The program is parsed into a tree with resolved variables (`awk/parser.rs`,
//! `awk/parse_expr.rs`) and run by a tree-walking interpreter (`awk/interp.rs`,
//! `awk/exec.rs`, `awk/builtins.rs`). Exit statuses as gawk: 0, the program's `exit`
//! value, 1 for usage and syntax errors, 2 for fatal errors.

#[path = "awk/array.rs"]
mod array;
#[path = "awk/array_tables.rs"]
mod array_tables;
#[path = "awk/ast.rs"]
mod ast;
#[path = "awk/builtins.rs"]
mod builtins;
#[path = "awk/eval.rs"]
mod eval;
#[path = "awk/exec.rs"]
mod exec;
#[path = "awk/fields.rs"]
mod fields;
#[path = "awk/format.rs"]
mod format;
#[path = "awk/input.rs"]
mod input;
#[path = "awk/interp.rs"]
mod interp;
#[path = "awk/lexer.rs"]
mod lexer;
#[path = "awk/main_input.rs"]
mod main_input;
#[path = "awk/parse_expr.rs"]
mod parse_expr;
#[path = "awk/parse_stmt.rs"]
mod parse_stmt;
#[path = "awk/parser.rs"]
mod parser;
#[path = "awk/random.rs"]
mod random;
#[path = "awk/regex.rs"]
mod regex;
#[path = "awk/regex_funcs.rs"]
mod regex_funcs;
#[path = "awk/setup.rs"]
mod setup;
#[path = "awk/sort.rs"]
mod sort;
#[path = "awk/specials.rs"]
mod specials;
#[path = "awk/streams.rs"]
mod streams;
#[path = "awk/time.rs"]
mod time;
#[path = "awk/value.rs"]
mod value;
#[path = "awk/vars.rs"]
mod vars;

use std::ffi::OsString;

use common::args::{os_bytes, ArgError, Command, Order, Parsed, UsageError};
use common::{Io, UError};

const SPEC: &str = "fs=F,field-separator: assign,v: file,f: source,e: sandbox,S version,V help,h optimize,O no-optimize,s re-interval,r characters-as-bytes,b traditional,c copyright,C dump-variables,d:: debug,D:: exec,E: gen-pot,g include,i: trace,I load,l: lint,L:: bignum,M use-lc-numeric,N non-decimal-data,n pretty-print,o:: profile,p:: posix,P lint-old,t";

/// gawk stops at the program text (the rest are its operands) and answers a bad option
/// with its usage on stderr rather than GNU's `Try` line.
const AWK: Command = Command { order: Order::RequireOrder, usage_error: Some(UsageError(bad_option)), ..Command::compact("", SPEC, USAGE) };

fn bad_option(io: &mut Io, error: ArgError) -> UError {
    io.error(&error);
    usage_on_stderr(io)
}

fn usage_on_stderr(io: &mut Io) -> UError {
    let _ = io.stderr.write_all(USAGE.replace("{name}", &io.name).as_bytes());
    UError::exit(1)
}

const USAGE: &str = "Usage: {name} [POSIX or GNU style options] -f progfile [--] file ...
Usage: {name} [POSIX or GNU style options] [--] 'program' file ...
POSIX options:\t\tGNU long options: (standard)
\t-f progfile\t\t--file=progfile
\t-F fs\t\t\t--field-separator=fs
\t-v var=val\t\t--assign=var=val
Short options:\t\tGNU long options: (extensions)
\t-e 'program-text'\t--source='program-text'
\t-h\t\t\t--help
\t-S\t\t\t--sandbox
\t-V\t\t\t--version

Examples:
\t{name} '{ sum += $1 }; END { print sum }' file
\t{name} -F: '{ print $1 }' /etc/passwd
";

/// What the command line asked for.
pub struct Options {
    pub field_separator: Option<Vec<u8>>,
    pub assignments: Vec<Vec<u8>>,
    /// (name for messages, text) of each program source, in order.
    pub sources: Vec<(String, Vec<u8>)>,
    pub operands: Vec<OsString>,
    pub sandbox: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut options = Options { field_separator: None, assignments: Vec::new(), sources: Vec::new(), operands: Vec::new(), sandbox: false };
    AWK.options(&args, io, &mut |_, item| {
        let (id, value) = match item {
            Parsed::Operand(op) => {
                options.operands.push(op);
                return Ok(());
            }
            Parsed::Opt { id, value } => (id, value.map(|v| os_bytes(&v).to_vec()).unwrap_or_default()),
        };
        match id {
            "fs" => options.field_separator = Some(value),
            "assign" => options.assignments.push(value),
            "file" => match std::fs::read(common::args::bytes_os(&value)) {
                Ok(text) => options.sources.push((String::from_utf8_lossy(&value).into_owned(), text)),
                Err(e) => return Err(UError::new(2, format!("fatal: cannot open source file `{}' for reading: {}", String::from_utf8_lossy(&value), common::strerror(&e)))),
            },
            "source" => options.sources.push(("cmd. line".to_string(), value)),
            "sandbox" => options.sandbox = true,
            "optimize" | "no-optimize" | "re-interval" => {}
            other => return Err(UError::new(1, format!("option not supported in the sandbox: --{}", other))),
        }
        Ok(())
    })?;
    if options.sources.is_empty() {
        if options.operands.is_empty() {
            return Err(usage_on_stderr(io));
        }
        let text = os_bytes(&options.operands.remove(0)).to_vec();
        options.sources.push(("cmd. line".to_string(), text));
    }
    Ok(setup::run_program(options, &args[0], io))
}
