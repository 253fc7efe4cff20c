//! `exit`, `logout` and `return`.

use super::fail;
use crate::exec::Flow;
use crate::shell::Shell;

fn status_argument(shell: &mut Shell, name: &str, args: &[String]) -> Result<i32, Flow> {
    match args.get(1) {
        None => Ok(shell.status),
        Some(text) => match text.trim().parse::<i64>() {
            Ok(n) => {
                if args.len() > 2 {
                    return Err(fail(shell, name, "too many arguments", 1));
                }
                Ok((n & 0xff) as i32)
            }
            Err(_) => {
                shell.report(&format!("{}: {}: numeric argument required", name, text));
                Ok(2)
            }
        },
    }
}

pub fn exit(shell: &mut Shell, args: &[String]) -> Flow {
    match status_argument(shell, "exit", args) {
        Ok(status) => {
            shell.status = status;
            Flow::Exit
        }
        Err(flow) => flow,
    }
}

pub fn logout(shell: &mut Shell, _args: &[String]) -> Flow {
    fail(shell, "logout", "not login shell: use `exit'", 1)
}

pub fn return_(shell: &mut Shell, args: &[String]) -> Flow {
    let in_function = !shell.frames.is_empty() || shell.sourcing > 0;
    if !in_function && shell.subshell_level == 0 {
        return fail(shell, "return", "can only `return' from a function or sourced script", 2);
    }
    match status_argument(shell, "return", args) {
        Ok(status) => {
            shell.status = status;
            if in_function {
                Flow::Return
            } else {
                Flow::Exit
            }
        }
        Err(flow) => flow,
    }
}
