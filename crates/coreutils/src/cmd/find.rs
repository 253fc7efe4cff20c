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

use common::args::{bytes_os, os_bytes};
use common::Io;

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

fn fail(io: &mut Io, message: &str) -> i32 {
    let _ = writeln!(io.stderr, "{}: {}", io.name, message);
    1
}

/// Whether a word starts the expression rather than naming a starting point.
fn starts_expression(word: &[u8]) -> bool {
    (word.len() > 1 && word[0] == b'-') || word == b"(" || word == b"!" || word == b")" || word == b","
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let mut follow = Follow::Never;
    let mut i = 1;
    // Leading options: -H -L -P, -D LIST, -OLEVEL, then `--`.
    while i < args.len() {
        match os_bytes(&args[i]) {
            b"-H" => follow = Follow::CommandLine,
            b"-L" => follow = Follow::Always,
            b"-P" => follow = Follow::Never,
            b"-D" => {
                i += 1;
                if i >= args.len() {
                    return fail(io, "missing argument to `-D'");
                }
            }
            w if w.starts_with(b"-O") => {}
            b"--" => {
                i += 1;
                break;
            }
            b"--help" | b"-help" => {
                let _ = io.out(HELP.as_bytes());
                return 0;
            }
            b"--version" | b"-version" => {
                let _ = io.out(common::version_text("find").as_bytes());
                return 0;
            }
            _ => break,
        }
        i += 1;
    }
    let mut starts: Vec<Vec<u8>> = Vec::new();
    while i < args.len() && !starts_expression(os_bytes(&args[i])) {
        starts.push(os_bytes(&args[i]).to_vec());
        i += 1;
    }
    let rest = &args[i..];
    if rest.iter().any(|a| matches!(os_bytes(a), b"-help" | b"--help")) {
        let _ = io.out(HELP.as_bytes());
        return 0;
    }
    if rest.iter().any(|a| matches!(os_bytes(a), b"-version" | b"--version")) {
        let _ = io.out(common::version_text("find").as_bytes());
        return 0;
    }
    let now = match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(_) => 0,
    };
    let mut parser = Parser::new(rest, follow, now);
    let parsed = parser.parse();
    for w in std::mem::take(&mut parser.warnings) {
        let _ = writeln!(io.stderr, "{}: {}", io.name, w);
    }
    let expr = match parsed {
        Ok(e) => e,
        Err(e) => return fail(io, &e.0),
    };
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
        match opened {
            Ok(f) => files.push(f),
            Err(e) => return fail(io, &format!("{}: {}", q(name), common::strerror(&e))),
        }
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
    walker.status
}
