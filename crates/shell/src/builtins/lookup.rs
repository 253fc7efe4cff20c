//! What names mean: `type`, `command`, `builtin`.

use super::{done, fail, print, read_options};
use crate::exec::{CommandKind, Flow};
use crate::shell::Shell;

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function",
    "time", "{", "}", "!", "[[", "]]", "coproc",
];

pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// One way a name can be resolved.
enum Meaning {
    Alias(String),
    Keyword,
    Function,
    Builtin,
    File(String),
    /// A program remembered in the hash table (`type` says so).
    Hashed(String),
}

fn meanings(shell: &mut Shell, name: &str, all: bool, path_only: bool) -> Vec<Meaning> {
    let mut found = Vec::new();
    if !path_only {
        if let Some(value) = shell.aliases.map.borrow().get(name) {
            found.push(Meaning::Alias(value.clone()));
        }
        if is_keyword(name) {
            found.push(Meaning::Keyword);
        }
        if shell.functions.contains_key(name) {
            found.push(Meaning::Function);
        }
        if super::lookup(name).is_some() {
            found.push(Meaning::Builtin);
        }
    }
    if !all && !found.is_empty() {
        found.truncate(1);
        return found;
    }
    if name.contains('/') {
        if shell.sys.stat(name, true).is_ok() {
            found.push(Meaning::File(name.to_string()));
        }
    } else if all {
        let path = shell.get_scalar("PATH").unwrap_or_default();
        for dir in path.split(':') {
            let dir = if dir.is_empty() { "." } else { dir };
            let candidate = format!("{}/{}", dir.trim_end_matches('/'), name);
            if shell.sys.stat(&candidate, true).map_or(false, |s| s.kind != crate::sys::FileKind::Dir)
                && shell.sys.access(&candidate, crate::sys::Access::Execute)
            {
                found.push(Meaning::File(candidate));
            }
        }
    } else if let Some(path) = shell.hashed_program(name) {
        found.push(Meaning::Hashed(path));
    } else if let Some(path) = shell.search_program(name, false) {
        // Describing a name does not hash it.
        found.push(Meaning::File(path));
    }
    if !all {
        found.truncate(1);
    }
    found
}

pub fn type_(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "type", args, "afptP");
    let (terse, path_only, force_path, all) = (given.has('t'), given.has('p'), given.has('P'), given.has('a'));
    let mut status = 0;
    let mut out = String::new();
    for name in &args[index..] {
        let found = meanings(shell, name, all, force_path);
        if found.is_empty() {
            if !terse && !path_only && !force_path {
                shell.report(&format!("type: {}: not found", name));
            }
            status = 1;
            continue;
        }
        for meaning in found {
            let file = matches!(meaning, Meaning::File(_) | Meaning::Hashed(_));
            // `-t` prints the kind's word; `-p` and `-P` print only files, as their path.
            let (kind, description) = match meaning {
                Meaning::Alias(value) => ("alias", format!("{} is aliased to `{}'", name, value)),
                Meaning::Keyword => ("keyword", format!("{} is a shell keyword", name)),
                // The body is printed only where the description is (not for -t or -p).
                Meaning::Function if terse || path_only => ("function", String::new()),
                Meaning::Function => {
                    let text = shell.functions.get(name).map(|d| shell_parser::printer::function_to_string(d)).unwrap_or_default();
                    ("function", format!("{} is a function\n{}", name, text))
                }
                Meaning::Builtin => ("builtin", format!("{} is a shell builtin", name)),
                Meaning::File(path) | Meaning::Hashed(path) if path_only || force_path => ("file", path),
                Meaning::File(path) => ("file", format!("{} is {}", name, path)),
                Meaning::Hashed(path) => ("file", format!("{} is hashed ({})", name, path)),
            };
            if terse {
                out.push_str(kind);
                out.push('\n');
            } else if file || !path_only {
                out.push_str(&description);
                out.push('\n');
            }
        }
    }
    print(shell, "type", &out);
    done(shell, status)
}

pub fn command(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "command", args, "pvV");
    // The last of `-v` and `-V` counts, as in bash.
    let describe = given.last_of("vV").map(|letter| letter == 'V');
    let operands = &args[index..];
    if let Some(verbose) = describe {
        if verbose {
            let mut argv = vec!["type".to_string()];
            argv.extend(operands.iter().cloned());
            return type_(shell, &argv);
        }
        let mut status = 0;
        let mut out = String::new();
        for name in operands {
            match meanings(shell, name, false, false).into_iter().next() {
                Some(Meaning::Alias(value)) => out.push_str(&format!("alias {}={}\n", name, crate::text::single_quote(&value))),
                Some(Meaning::File(path)) | Some(Meaning::Hashed(path)) => out.push_str(&format!("{}\n", path)),
                Some(_) => out.push_str(&format!("{}\n", name)),
                None => status = 1,
            }
        }
        print(shell, "command", &out);
        return done(shell, status);
    }
    if operands.is_empty() {
        return done(shell, 0);
    }
    match shell.resolve_command(&operands[0], false) {
        CommandKind::Builtin(builtin) => builtin(shell, operands),
        CommandKind::External(path) => shell.run_external(&path, operands),
        _ => fail(shell, &operands[0], "command not found", 127),
    }
}

pub fn builtin(shell: &mut Shell, args: &[String]) -> Flow {
    let name = match args.get(1) {
        Some(name) => name,
        None => return done(shell, 0),
    };
    match super::lookup(name) {
        Some(builtin) => builtin(shell, &args[1..]),
        None => fail(shell, "builtin", &format!("{}: not a shell builtin", name), 1),
    }
}
