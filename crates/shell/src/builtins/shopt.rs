//! `shopt [-pqsuo] [optname ...]`.

use super::{done, fail, print};
use crate::exec::Flow;
use crate::options::{SET_OPTIONS, SHOPT_OPTIONS};
use crate::shell::Shell;

pub fn shopt(shell: &mut Shell, args: &[String]) -> Flow {
    let mut set = None;
    let mut quiet = false;
    let mut reusable = false;
    let mut set_o = false;
    let mut index = 1;
    while let Some(arg) = args.get(index) {
        if !arg.starts_with('-') || arg.len() < 2 {
            break;
        }
        if arg == "--" {
            index += 1;
            break;
        }
        for letter in arg[1..].chars() {
            match letter {
                's' => set = Some(true),
                'u' => set = Some(false),
                'q' => quiet = true,
                'p' => reusable = true,
                'o' => set_o = true,
                other => return fail(shell, "shopt", &format!("-{}: invalid option\nshopt: usage: shopt [-pqsu] [-o] [optname ...]", other), 2),
            }
        }
        index += 1;
    }
    let names = &args[index..];
    let table: Vec<&str> = if set_o { SET_OPTIONS.iter().map(|(n, _)| *n).collect() } else { SHOPT_OPTIONS.iter().map(|(n, _)| *n).collect() };
    let get = |shell: &Shell, name: &str| if set_o { shell.options.get_named(name) } else { shell.options.shopt_named(name) };
    if let Some(on) = set {
        let mut status = 0;
        for name in names {
            let known = if set_o { shell.options.set_named(name, on) } else { shell.options.set_shopt_named(name, on) };
            if !known {
                shell.report(&format!("shopt: {}: invalid shell option name", name));
                status = 1;
            }
        }
        if names.is_empty() {
            let mut out = String::new();
            for name in &table {
                if get(shell, name) == Some(on) {
                    out.push_str(&line(name, on, reusable, set_o));
                }
            }
            print(shell, "shopt", &out);
        }
        return done(shell, status);
    }
    let selected: Vec<String> = if names.is_empty() { table.iter().map(|s| s.to_string()).collect() } else { names.to_vec() };
    let mut out = String::new();
    let mut status = 0;
    for name in &selected {
        match get(shell, name) {
            Some(on) => {
                if !on {
                    status = 1;
                }
                if !quiet {
                    out.push_str(&line(name, on, reusable, set_o));
                }
            }
            None => {
                shell.report(&format!("shopt: {}: invalid shell option name", name));
                status = 1;
            }
        }
    }
    if names.is_empty() {
        status = 0;
    }
    print(shell, "shopt", &out);
    done(shell, status)
}

fn line(name: &str, on: bool, reusable: bool, set_o: bool) -> String {
    if reusable {
        if set_o {
            format!("set {}o {}\n", if on { '-' } else { '+' }, name)
        } else {
            format!("shopt {} {}\n", if on { "-s" } else { "-u" }, name)
        }
    } else {
        format!("{:<15}\t{}\n", name, if on { "on" } else { "off" })
    }
}
