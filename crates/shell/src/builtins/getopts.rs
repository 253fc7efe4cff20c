//! `getopts optstring name [args]`: one option per call, tracked by OPTIND (and a
//! position inside bundled options like `-abc`).

use super::{done, usage};
use crate::exec::Flow;
use crate::shell::Shell;

pub fn getopts(shell: &mut Shell, args: &[String]) -> Flow {
    if args.len() < 3 {
        return usage(shell, "getopts", None);
    }
    let spec = args[1].clone();
    let name = args[2].clone();
    let mut bad = false;
    let params: Vec<String> = if args.len() > 3 { args[3..].to_vec() } else { shell.positional.clone() };
    let silent = spec.starts_with(':');
    let spec = spec.trim_start_matches(':').to_string();
    let report_errors = !silent && shell.get_scalar("OPTERR").map_or(true, |v| v != "0");
    let mut optind: usize = shell.get_scalar("OPTIND").and_then(|v| v.trim().parse().ok()).unwrap_or(1).max(1);
    if optind == 1 && shell.getopts_offset > 0 && shell.getopts_last_optind != 1 {
        shell.getopts_offset = 0;
    }
    let finish = |shell: &mut Shell, optind: usize| {
        shell.set_var("OPTIND", &optind.to_string());
        shell.getopts_last_optind = optind;
    };
    let arg = match params.get(optind - 1) {
        Some(arg) => arg.clone(),
        None => {
            shell.getopts_offset = 0;
            let _ = bind(shell, &name, "?");
            finish(shell, optind);
            return done(shell, 1);
        }
    };
    if shell.getopts_offset == 0 {
        if arg == "--" {
            let _ = bind(shell, &name, "?");
            finish(shell, optind + 1);
            return done(shell, 1);
        }
        if !arg.starts_with('-') || arg.len() < 2 {
            let _ = bind(shell, &name, "?");
            finish(shell, optind);
            return done(shell, 1);
        }
        shell.getopts_offset = 1;
    }
    let chars: Vec<char> = arg.chars().collect();
    let letter = chars[shell.getopts_offset];
    shell.getopts_offset += 1;
    let at_end = shell.getopts_offset >= chars.len();
    let known = letter != ':' && spec.contains(letter);
    let takes_value = known && spec.chars().skip_while(|&c| c != letter).nth(1) == Some(':');
    if !known {
        if at_end {
            shell.getopts_offset = 0;
            optind += 1;
        }
        if silent {
            shell.set_var("OPTARG", &letter.to_string());
        } else {
            if report_errors {
                complain(shell, "illegal option", letter);
            }
            let _ = shell.vars.unset("OPTARG", true);
        }
        bad |= !bind(shell, &name, "?");
        finish(shell, optind);
        return done(shell, if bad { 1 } else { 0 });
    }
    if takes_value {
        let value = if !at_end {
            let rest: String = chars[shell.getopts_offset..].iter().collect();
            optind += 1;
            Some(rest)
        } else {
            optind += 1;
            let value = params.get(optind - 1).cloned();
            if value.is_some() {
                optind += 1;
            }
            value
        };
        shell.getopts_offset = 0;
        match value {
            Some(value) => {
                shell.set_var("OPTARG", &value);
                bad |= !bind(shell, &name, &letter.to_string());
            }
            None => {
                if silent {
                    bad |= !bind(shell, &name, ":");
                    shell.set_var("OPTARG", &letter.to_string());
                } else {
                    if report_errors {
                        complain(shell, "option requires an argument", letter);
                    }
                    bad |= !bind(shell, &name, "?");
                    let _ = shell.vars.unset("OPTARG", true);
                }
            }
        }
        finish(shell, optind);
        return done(shell, if bad { 1 } else { 0 });
    }
    if at_end {
        shell.getopts_offset = 0;
        optind += 1;
    }
    let _ = shell.vars.unset("OPTARG", true);
    bad |= !bind(shell, &name, &letter.to_string());
    finish(shell, optind);
    done(shell, if bad { 1 } else { 0 })
}

/// getopts's own messages: `$0: illegal option -- x`, without a line number (bash prints
/// them as C's getopt does).
fn complain(shell: &mut Shell, what: &str, letter: char) {
    let text = format!("{}: {} -- {}\n", shell.error_prefix, what, letter);
    shell.write_err(&text);
}

/// Sets the option variable; a name that is not an identifier is reported (the option is
/// still consumed, as in bash) and makes the status 1.
fn bind(shell: &mut Shell, name: &str, value: &str) -> bool {
    if shell_parser::is_name(name) {
        shell.set_var(name, value);
        true
    } else {
        shell.report(&format!("getopts: `{}': not a valid identifier", name));
        false
    }
}
