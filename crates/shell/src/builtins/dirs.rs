//! The directory stack: `pushd`, `popd`, `dirs`.

use super::{done, fail, print, usage};
use crate::exec::Flow;
use crate::shell::Shell;

/// The stack as `dirs` shows it: the current directory first.
fn stack(shell: &Shell) -> Vec<String> {
    let mut all = vec![shell.cwd.clone()];
    all.extend(shell.dirstack.iter().rev().cloned());
    all
}

fn show(shell: &mut Shell, name: &str, long: bool, per_line: bool, numbered: bool) -> bool {
    let home = shell.get_scalar("HOME").unwrap_or_default();
    let entries: Vec<String> = stack(shell)
        .into_iter()
        .map(|d| if !long && !home.is_empty() && (d == home || d.starts_with(&format!("{}/", home))) { format!("~{}", &d[home.len()..]) } else { d })
        .collect();
    let text = if numbered {
        entries.iter().enumerate().map(|(i, d)| format!("{:2}  {}\n", i, d)).collect()
    } else if per_line {
        entries.iter().map(|d| format!("{}\n", d)).collect()
    } else {
        format!("{}\n", entries.join(" "))
    };
    print(shell, name, &text)
}

/// The entry `+N` (counting from the left of `dirs`) or `-N` (from the right) names in a
/// stack of `len` entries. A bad number is bash's usage error (status 2), an index past
/// the stack an error of status 1: the `Err` is the flow to return.
fn stack_index(shell: &mut Shell, name: &str, spec: &str, len: usize) -> Result<usize, Flow> {
    let from_left = spec.starts_with('+');
    let n = match spec.get(1..).filter(|_| from_left || spec.starts_with('-')).map(str::parse::<usize>) {
        Some(Ok(n)) => n,
        _ => return Err(usage(shell, name, Some(&format!("{}: invalid number", spec)))),
    };
    if n >= len {
        return Err(fail(shell, name, &format!("{}: directory stack index out of range", spec), 1));
    }
    Ok(if from_left { n } else { len - 1 - n })
}

pub fn dirs(shell: &mut Shell, args: &[String]) -> Flow {
    let mut long = false;
    let mut per_line = false;
    let mut numbered = false;
    for arg in &args[1..] {
        match arg.as_str() {
            "-c" => {
                shell.dirstack.clear();
                return done(shell, 0);
            }
            "-l" => long = true,
            "-p" => per_line = true,
            "-v" => numbered = true,
            other => {
                let mut all = stack(shell);
                return match stack_index(shell, "dirs", other, all.len()) {
                    Ok(index) => {
                        let dir = all.swap_remove(index);
                        print(shell, "dirs", &format!("{}\n", dir));
                        done(shell, 0)
                    }
                    Err(flow) => flow,
                };
            }
        }
    }
    show(shell, "dirs", long, per_line, numbered);
    done(shell, 0)
}

pub fn pushd(shell: &mut Shell, args: &[String]) -> Flow {
    let quiet = args.iter().any(|a| a == "-n");
    let operands: Vec<&String> = args[1..].iter().filter(|a| a.as_str() != "-n").collect();
    let old = shell.cwd.clone();
    match operands.first() {
        None => {
            let top = match shell.dirstack.pop() {
                Some(top) => top,
                None => return fail(shell, "pushd", "no other directory", 1),
            };
            if let Err(message) = shell.change_directory(&top, false) {
                shell.dirstack.push(top);
                return fail(shell, "pushd", &message, 1);
            }
            shell.dirstack.push(old);
        }
        Some(dir) if dir.starts_with('+') || (dir.starts_with('-') && dir.len() > 1) => {
            let mut all = stack(shell);
            let index = match stack_index(shell, "pushd", dir, all.len()) {
                Ok(index) => index,
                Err(flow) => return flow,
            };
            all.rotate_left(index);
            let target = all[0].clone();
            if let Err(message) = shell.change_directory(&target, false) {
                return fail(shell, "pushd", &message, 1);
            }
            shell.dirstack = all[1..].iter().rev().cloned().collect();
        }
        Some(dir) => {
            let dir = dir.to_string();
            if let Err(message) = shell.change_directory(&dir, false) {
                return fail(shell, "pushd", &message, 1);
            }
            shell.dirstack.push(old);
        }
    }
    if !quiet {
        show(shell, "pushd", false, false, false);
    }
    done(shell, 0)
}

pub fn popd(shell: &mut Shell, args: &[String]) -> Flow {
    let quiet = args.iter().any(|a| a == "-n");
    let operand = args[1..].iter().find(|a| a.as_str() != "-n");
    // A bad operand is reported before an empty stack, as bash does.
    let empty = shell.dirstack.is_empty();
    match operand {
        Some(spec) if spec.starts_with('+') || spec.starts_with('-') => {
            let mut all = stack(shell);
            let index = match stack_index(shell, "popd", spec, if empty { usize::MAX } else { all.len() }) {
                Ok(_) if empty => return fail(shell, "popd", "directory stack empty", 1),
                Ok(index) => index,
                Err(flow) => return flow,
            };
            if index == 0 {
                let next = all[1].clone();
                if let Err(message) = shell.change_directory(&next, false) {
                    return fail(shell, "popd", &message, 1);
                }
                shell.dirstack.pop();
            } else {
                all.remove(index);
                shell.dirstack = all[1..].iter().rev().cloned().collect();
            }
        }
        Some(other) => return usage(shell, "popd", Some(&format!("{}: invalid argument", other))),
        None if empty => return fail(shell, "popd", "directory stack empty", 1),
        None => {
            let top = shell.dirstack.pop().unwrap_or_default();
            if let Err(message) = shell.change_directory(&top, false) {
                shell.dirstack.push(top);
                return fail(shell, "popd", &message, 1);
            }
        }
    }
    if !quiet {
        show(shell, "popd", false, false, false);
    }
    done(shell, 0)
}
