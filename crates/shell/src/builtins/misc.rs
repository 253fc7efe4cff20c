//! Builtins that only make sense interactively or with features the sandbox lacks:
//! accepted (so scripts do not fail) or reported as unsupported with the reason.

use super::{done, fail, print};
use crate::exec::Flow;
use crate::shell::Shell;

pub fn times(shell: &mut Shell, _args: &[String]) -> Flow {
    print(shell, "times", "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
    done(shell, 0)
}

pub fn caller(shell: &mut Shell, args: &[String]) -> Flow {
    let level: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
    let depth = shell.frames.len();
    // Outside a script (bash -c) the top level is not a frame `caller` can describe.
    let usable = if shell.mode == crate::shell::Mode::Script { depth } else { depth.saturating_sub(1) };
    if level >= usable {
        return done(shell, 1);
    }
    let frame = shell.frames[depth - 1 - level].clone();
    let caller_name = if level + 1 < depth { shell.frames[depth - 2 - level].name.clone() } else { "main".to_string() };
    let text = if args.len() > 1 {
        format!("{} {} {}\n", frame.call_line, caller_name, frame.source)
    } else {
        format!("{} {}\n", frame.call_line, frame.source)
    };
    print(shell, "caller", &text);
    done(shell, 0)
}

pub fn enable(shell: &mut Shell, args: &[String]) -> Flow {
    if args.len() == 1 || args[1] == "-a" || args[1] == "-p" {
        let text: String = super::names().map(|n| format!("enable {}\n", n)).collect();
        print(shell, "enable", &text);
        return done(shell, 0);
    }
    fail(shell, "enable", "enabling and disabling builtins is not supported", 1)
}

pub fn complete(shell: &mut Shell, _args: &[String]) -> Flow {
    done(shell, 0)
}

pub fn compgen(shell: &mut Shell, args: &[String]) -> Flow {
    let mut words: Vec<String> = Vec::new();
    let mut index = 1;
    while let Some(arg) = args.get(index) {
        match arg.as_str() {
            "-b" => words.extend(super::names().map(str::to_string)),
            "-k" => words.extend(["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc"].iter().map(|s| s.to_string())),
            "-v" => words.extend(shell.vars.names()),
            "-A" => {
                index += 1;
                if args.get(index).map(String::as_str) == Some("function") {
                    words.extend(shell.functions.keys().cloned());
                }
            }
            "-a" => words.extend(shell.aliases.map.borrow().keys().cloned()),
            "-W" => {
                index += 1;
                if let Some(list) = args.get(index) {
                    words.extend(list.split_whitespace().map(str::to_string));
                }
            }
            _ => break,
        }
        index += 1;
    }
    let prefix = args.get(index).cloned().unwrap_or_default();
    let mut matching: Vec<String> = words.into_iter().filter(|w| w.starts_with(&prefix)).collect();
    matching.sort();
    matching.dedup();
    let status = if matching.is_empty() { 1 } else { 0 };
    let text: String = matching.iter().map(|w| format!("{}\n", w)).collect();
    print(shell, "compgen", &text);
    done(shell, status)
}

pub fn bind(shell: &mut Shell, _args: &[String]) -> Flow {
    done(shell, 0)
}

/// `history [N]`, `history -c`: the session's runs, numbered as bash numbers them.
pub fn history(shell: &mut Shell, args: &[String]) -> Flow {
    match args.get(1).map(String::as_str) {
        None => {}
        Some("-c") => {
            shell.history.clear();
            return done(shell, 0);
        }
        Some(count) if count.bytes().all(|b| b.is_ascii_digit()) => {}
        Some(other) if other.starts_with('-') => {
            return fail(shell, "history", &format!("{}: invalid option\nhistory: usage: history [-c] [n]", other), 2)
        }
        Some(other) => return fail(shell, "history", &format!("{}: numeric argument required", other), 1),
    }
    let total = shell.history.len();
    let shown = args.get(1).and_then(|n| n.parse::<usize>().ok()).unwrap_or(total).min(total);
    let mut out = String::new();
    for (index, entry) in shell.history.iter().enumerate().skip(total - shown) {
        out.push_str(&format!("{:>5}  {}\n", index + 1, entry));
    }
    print(shell, "history", &out);
    done(shell, 0)
}

pub fn fc(shell: &mut Shell, _args: &[String]) -> Flow {
    fail(shell, "fc", "history editing is not supported in this shell", 1)
}

pub fn ulimit(shell: &mut Shell, args: &[String]) -> Flow {
    let show = args.len() == 1 || args[1..].iter().all(|a| a.starts_with('-'));
    if show {
        if args.iter().any(|a| a == "-a") {
            print(shell, "ulimit", "core file size              (blocks, -c) 0\nfile size                   (blocks, -f) unlimited\nopen files                          (-n) 1024\nstack size              (kbytes, -s) 8192\n");
        } else if args.iter().any(|a| a.contains('n')) {
            print(shell, "ulimit", "1024\n");
        } else {
            print(shell, "ulimit", "unlimited\n");
        }
        return done(shell, 0);
    }
    done(shell, 0)
}
