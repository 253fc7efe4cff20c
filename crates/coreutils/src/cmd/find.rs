//! command: find
//! `find`: walks directory trees evaluating an expression on each file (GNU findutils
//! 4.9): name/path/regex/type/size/time/permission/owner tests, -print/-print0/-printf/
//! -ls/-fprint*, -delete, -exec/-execdir with `;` and `+`, -prune, -quit, operators and
//! parentheses, -maxdepth/-mindepth/-depth, -P/-H/-L. Directory order is the file
//! system's, as in GNU find. Exit status 1 when any error happened. -ok/-okdir are refused
//! (there is no terminal to ask).

#[path = "find/expr.rs"]
mod expr;
#[path = "find/primary.rs"]
mod primary;
#[path = "find/printf.rs"]
mod printf;
#[path = "find/walk.rs"]
mod walk;

use std::ffi::OsString;

use common::args::{bytes_os, os_bytes, ArgError, OptionsEnd, Order, UsageError};
use common::{Command, Io, UError};

use expr::{q, Expr, Follow, Parser};
use walk::Walker;

const HELP: &str = "Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] [expression]

default path is the current directory; default expression is -print
expression may consist of: operators, options, tests, and actions:
operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2
      EXPR1 -o EXPR2   EXPR1 -or EXPR2   EXPR1 , EXPR2
positional options (always true): -daystart -follow -regextype
normal options (always true, specified before other expressions):
      -depth --help -maxdepth LEVELS -mindepth LEVELS -mount -noleaf
      --version -xdev -ignore_readdir_race -noignore_readdir_race
tests (N can be +N or -N or N): -amin N -anewer FILE -atime N -cmin N
      -cnewer FILE -ctime N -empty -false -fstype TYPE -gid N -group NAME
      -ilname PATTERN -iname PATTERN -inum N -iwholename PATTERN -iregex PATTERN
      -links N -lname PATTERN -mmin N -mtime N -name PATTERN -newer FILE
      -nouser -nogroup -path PATTERN -perm [-/]MODE -regex PATTERN
      -readable -writable -executable
      -wholename PATTERN -size N[bcwkMG] -true -type [bcdpflsD] -uid N
      -used N -user NAME -xtype [bcdpfls]
actions: -delete -print0 -printf FORMAT -fprintf FILE FORMAT -print
      -fprint0 FILE -fprint FILE -ls -fls FILE -prune -quit
      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;
      -execdir COMMAND ; -execdir COMMAND {} + -okdir COMMAND ;

In the sandbox -ok and -okdir are refused (there is no terminal to ask).
";

/// Whether a word starts the expression rather than naming a starting point.
fn starts_expression(word: &[u8]) -> bool {
    (word.len() > 1 && word[0] == b'-') || word == b"(" || word == b"!" || word == b")" || word == b","
}

/// GNU find's leading options are whole words (`-HL` is an unknown predicate, not -H -L);
/// the first other word is a starting point or the expression, and ends them.
fn ends_options(word: &[u8]) -> bool {
    !matches!(word, b"-H" | b"-L" | b"-P" | b"-D" | b"--" | b"--help" | b"--version") && !word.starts_with(b"-O")
}

/// GNU's words for `-D` without its list, the only usage error the leading options have.
fn bad_option(_: &mut Io, error: ArgError) -> UError {
    match error {
        ArgError::MissingShortArg(c) => UError::usage(1, format!("Missing argument after the -{} option.", c)),
        other => UError::usage(1, other),
    }
}

const FIND: Command = Command { order: Order::RequireOrder, usage_error: Some(UsageError(bad_option)), ends_options: OptionsEnd(ends_options), ..Command::compact("find", "H L P D: O::", HELP) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = FIND.seen(&args, io)?;
    // The last of -H -L -P wins; -D's debug options and -O's level change nothing visible.
    let follow = match seen.last_of(&["H", "L", "P"]) {
        Some("H") => Follow::CommandLine,
        Some("L") => Follow::Always,
        _ => Follow::Never,
    };
    let words = seen.operands;
    let first = words.iter().position(|w| starts_expression(os_bytes(w))).unwrap_or(words.len());
    let mut starts: Vec<Vec<u8>> = words[..first].iter().map(|w| os_bytes(w).to_vec()).collect();
    let rest = &words[first..];
    // -help and -version are also primaries: anywhere in the expression they print and end
    // find before it is parsed, as the options do.
    for word in rest {
        if let b"-help" | b"--help" | b"-version" | b"--version" = os_bytes(word) {
            let option = OsString::from(if os_bytes(word).ends_with(b"help") { "--help" } else { "--version" });
            FIND.options_after_name(&[option], io, &mut |_, _| Ok(()))?;
        }
    }
    let now = match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(_) => 0,
    };
    let mut parser = Parser::new(rest, follow, now);
    let parsed = parser.parse();
    for w in std::mem::take(&mut parser.warnings) {
        io.error(w);
    }
    let expr = parsed.map_err(|e| UError::new(1, e.0))?;
    let options = parser.options;
    let expr = match expr {
        None => Expr::Print { zero: false, file: None },
        Some(e) if !e.has_action() => Expr::And(Box::new(e), Box::new(Expr::Print { zero: false, file: None })),
        Some(e) => e,
    };
    let mut files = Vec::new();
    for name in &options.files {
        let opened = match name.as_slice() {
            b"/dev/stdout" => std::fs::OpenOptions::new().write(true).open("/dev/stdout"),
            b"/dev/stderr" => std::fs::OpenOptions::new().write(true).open("/dev/stderr"),
            _ => std::fs::File::create(bytes_os(name)),
        };
        files.push(opened.map_err(|e| UError::io(1, q(name), &e))?);
    }
    if starts.is_empty() {
        starts.push(b".".to_vec());
    }
    let mut walker = Walker::new(&options, io.stdout, io.stderr, files, now);
    for start in &starts {
        if start.is_empty() {
            walker.flush();
            let _ = writeln!(walker.stderr, "find: \u{2018}\u{2019}: No such file or directory");
            walker.status = 1;
            continue;
        }
        walker.start(&expr, start);
        if walker.quit {
            break;
        }
    }
    walker.finish();
    Ok(walker.status)
}
