//! `unset [-fvn] name...`: variables (and array elements), or functions.

use super::{done, fail, read_options};
use crate::exec::Flow;
use crate::shell::Shell;
use crate::vars::{Key, Value};

pub fn unset(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "unset", args, "fvn");
    let (functions, variables, nameref) = (given.has('f'), given.has('v'), given.has('n'));
    if functions && variables {
        return fail(shell, "unset", "cannot simultaneously unset a function and a variable", 1);
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
            // The subscript ends at the `]` matching the `[` (bash's skipsubscript); text
            // after it makes the whole name invalid.
            if closing_bracket(name, open) == Some(name.len() - 1) {
                let base = &name[..open];
                let inner = &name[open + 1..name.len() - 1];
                // `a[@]` empties an indexed array (an associative one has `@` as a key).
                if (inner == "@" || inner == "*") && !shell.is_assoc(base) {
                    match shell.vars.get(base).map(|v| (v.has(crate::vars::attr::READONLY), v.value.is_array(), v.value == Value::Unset)) {
                        Some((true, _, _)) => {
                            report_unset_error(shell, crate::vars::AssignError::Readonly(base.to_string()));
                            status = 1;
                        }
                        Some((_, true, _)) => {
                            if let Some(var) = shell.vars.get_mut(base) {
                                var.value = Value::Indexed(Default::default());
                            }
                        }
                        Some((_, false, false)) => {
                            shell.report(&format!("unset: {}: not an array variable", base));
                            status = 1;
                        }
                        _ => {}
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
                if let (Key::Index(i), Some(Value::Indexed(map))) = (&key, shell.vars.get(base).map(|v| &v.value)) {
                    if crate::vars::resolve_index(map, *i).is_none() {
                        shell.report(&format!("unset: [{}]: bad array subscript", inner));
                        status = 1;
                        continue;
                    }
                }
                if let Err(error) = shell.unset_element(base, &key) {
                    report_unset_error(shell, error);
                    status = 1;
                }
                continue;
            }
        }
        if !shell_parser::is_name(name) {
            // Without -v the name may be a function's, which need not be an identifier.
            if variables {
                shell.report(&format!("unset: `{}': not a valid identifier", name));
                status = 1;
            } else {
                shell.functions.remove(name.as_str());
            }
            continue;
        }
        if nameref && !shell.vars.get_raw(name).map_or(false, |v| v.has(crate::vars::attr::NAMEREF)) {
            // -n acts only on a name reference.
            continue;
        }
        let is_var = shell.vars.get_raw(name).is_some();
        if is_var || variables {
            if let Err(error) = shell.vars.unset(name, !nameref) {
                report_unset_error(shell, crate::vars::AssignError::from(error));
                status = 1;
            }
        } else {
            shell.functions.remove(name);
        }
    }
    done(shell, status)
}

fn report_unset_error(shell: &mut Shell, error: crate::vars::AssignError) {
    match error {
        crate::vars::AssignError::Readonly(name) => shell.report(&format!("unset: {}: cannot unset: readonly variable", name)),
        other => shell.report(&format!("unset: {}", other.message())),
    }
}

/// The index of the `]` that closes the `[` at `open`.
fn closing_bracket(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.bytes().enumerate().skip(open) {
        match c {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}
