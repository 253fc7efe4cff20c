//! The directory stack: `pushd`, `popd`, `dirs`.

use super::{done, fail, print};
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
                if let Some(n) = other.strip_prefix('+').and_then(|n| n.parse::<usize>().ok()) {
                    match stack(shell).get(n) {
                        Some(dir) => {
                            let dir = dir.clone();
                            print(shell, "dirs", &format!("{}\n", dir));
                            return done(shell, 0);
                        }
                        None => return fail(shell, "dirs", &format!("{}: directory stack index out of range", other), 1),
                    }
                }
                return fail(shell, "dirs", &format!("{}: invalid option", other), 2);
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
            let n: usize = match dir[1..].parse() {
                Ok(n) => n,
                Err(_) => return fail(shell, "pushd", &format!("{}: invalid number", dir), 1),
            };
            let mut all = stack(shell);
            if n >= all.len() {
                return fail(shell, "pushd", &format!("{}: directory stack index out of range", dir), 1);
            }
            let index = if dir.starts_with('+') { n } else { all.len() - 1 - n };
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
    if shell.dirstack.is_empty() {
        return fail(shell, "popd", "directory stack empty", 1);
    }
    match operand {
        Some(spec) if spec.starts_with('+') || spec.starts_with('-') => {
            let n: usize = match spec[1..].parse() {
                Ok(n) => n,
                Err(_) => return fail(shell, "popd", &format!("{}: invalid argument", spec), 1),
            };
            let mut all = stack(shell);
            if n >= all.len() {
                return fail(shell, "popd", &format!("{}: directory stack index out of range", spec), 1);
            }
            let index = if spec.starts_with('+') { n } else { all.len() - 1 - n };
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
        Some(other) => return fail(shell, "popd", &format!("{}: invalid argument", other), 1),
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
