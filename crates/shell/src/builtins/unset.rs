//! `unset [-fvn] name...`: variables (and array elements), or functions.

use super::{done, fail};
use crate::exec::Flow;
use crate::shell::Shell;
use crate::vars::Key;

pub fn unset(shell: &mut Shell, args: &[String]) -> Flow {
    let mut functions = false;
    let mut variables = false;
    let mut nameref = false;
    let mut index = 1;
    while let Some(arg) = args.get(index) {
        if arg == "--" {
            index += 1;
            break;
        }
        if !arg.starts_with('-') || arg.len() < 2 {
            break;
        }
        for letter in arg[1..].chars() {
            match letter {
                'f' => functions = true,
                'v' => variables = true,
                'n' => nameref = true,
                other => return fail(shell, "unset", &format!("-{}: invalid option\nunset: usage: unset [-f] [-v] [-n] [name ...]", other), 2),
            }
        }
        index += 1;
    }
    let mut status = 0;
    for name in &args[index..] {
        if name == "PATH" && !functions {
            shell.hash.clear();
        }
        if functions && !variables {
            if shell.function_has(name, crate::function_attrs::READONLY) {
                shell.report(&format!("unset: {}: cannot unset: readonly function", name));
                status = 1;
                continue;
            }
            shell.functions.remove(name);
            shell.function_attrs.remove(name);
            continue;
        }
        if let Some(open) = name.find('[') {
            if name.ends_with(']') {
                let base = &name[..open];
                let inner = &name[open + 1..name.len() - 1];
                if inner == "@" || inner == "*" {
                    if let Err(error) = shell.vars.unset(base, !nameref) {
                        shell.report(&format!("unset: {}", crate::vars::AssignError::from(error).message()));
                        status = 1;
                    }
                    continue;
                }
                let key = if shell.is_assoc(base) {
                    Key::Name(inner.to_string())
                } else {
                    match shell.eval_arith_text(inner) {
                        Ok(i) => Key::Index(i),
                        Err(message) => {
                            shell.report(&format!("unset: {}", message));
                            status = 1;
                            continue;
                        }
                    }
                };
                if let Err(error) = shell.unset_element(base, &key) {
                    shell.report(&format!("unset: {}", error.message()));
                    status = 1;
                }
                continue;
            }
        }
        if !shell_parser::is_name(name) {
            shell.report(&format!("unset: `{}': not a valid identifier", name));
            status = 1;
            continue;
        }
        let is_var = shell.vars.get_raw(name).is_some();
        if is_var || variables {
            if let Err(error) = shell.vars.unset(name, !nameref) {
                shell.report(&format!("unset: {}", crate::vars::AssignError::from(error).message()));
                status = 1;
            }
        } else {
            shell.functions.remove(name);
        }
    }
    done(shell, status)
}
