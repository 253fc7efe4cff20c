//! `set`: options (`-e`, `-o pipefail`, ...), positional parameters, and listing
//! variables.

use super::{done, fail, print, usage};
use crate::exec::Flow;
use crate::options::SET_OPTIONS;
use crate::shell::Shell;

pub fn set(shell: &mut Shell, args: &[String]) -> Flow {
    if args.len() == 1 {
        let mut out = String::new();
        for name in shell.vars.names() {
            let var = match shell.vars.get_raw(&name) {
                Some(var) => var.clone(),
                None => continue,
            };
            let var = if var.has(crate::vars::attr::DYNAMIC) {
                match shell.get_value(&name) {
                    Some(value) => crate::vars::Var { value, attrs: var.attrs },
                    None => continue,
                }
            } else {
                var
            };
            if let Some(line) = super::declare::set_line(&name, &var) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out.push_str(&super::declare::function_definitions(shell));
        print(shell, "set", &out);
        return done(shell, 0);
    }
    let mut index = 1;
    let mut positional: Option<Vec<String>> = None;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" {
            positional = Some(args[index + 1..].to_vec());
            break;
        }
        if arg == "-" {
            shell.options.set_flag('x', false);
            shell.options.set_flag('v', false);
            positional = Some(args[index + 1..].to_vec());
            break;
        }
        let on = arg.starts_with('-');
        if !(on || arg.starts_with('+')) || arg.len() < 2 {
            positional = Some(args[index..].to_vec());
            break;
        }
        for letter in arg[1..].chars() {
            if letter == 'o' {
                index += 1;
                match args.get(index) {
                    Some(name) => {
                        if !shell.options.set_named(name, on) {
                            return fail(shell, "set", &format!("{}: invalid option name", name), 2);
                        }
                    }
                    None => {
                        list_options(shell, on);
                        return done(shell, 0);
                    }
                }
                continue;
            }
            if matches!(letter, 'i' | 'c' | 's' | 'l' | 'r' | 'p') {
                continue;
            }
            if !shell.options.set_flag(letter, on) {
                let sign = if on { '-' } else { '+' };
                return usage(shell, "set", Some(&format!("{}{}: invalid option", sign, letter)));
            }
        }
        index += 1;
    }
    if let Some(values) = positional {
        shell.positional = values;
    }
    done(shell, 0)
}

/// `set -o` (table) or `set +o` (commands that restore the settings).
fn list_options(shell: &mut Shell, table: bool) {
    let mut out = String::new();
    for (i, (name, _)) in SET_OPTIONS.iter().enumerate() {
        let on = shell.options.set[i];
        if table {
            out.push_str(&format!("{:<15}\t{}\n", name, if on { "on" } else { "off" }));
        } else {
            out.push_str(&format!("set {}o {}\n", if on { '-' } else { '+' }, name));
        }
    }
    print(shell, "set", &out);
}
