//! `exit`, `logout` and `return`.

use super::{after_dashes, fail, too_many_arguments};
use crate::exec::Flow;
use crate::shell::Shell;

/// The status `exit` or `return` was given (bash's `get_exitstat`): `$?` without one, 2
/// after "numeric argument required".
fn status_argument(shell: &mut Shell, name: &str, args: &[String]) -> Result<i32, Flow> {
    let args = after_dashes(args);
    match args.first() {
        None => Ok(shell.status),
        Some(text) => match text.trim().parse::<i64>() {
            Ok(_) if args.len() > 1 => Err(too_many_arguments(shell, name)),
            Ok(n) => Ok((n & 0xff) as i32),
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
    let status = match status_argument(shell, "return", args) {
        Ok(status) => status,
        Err(flow) => return flow,
    };
    let in_function = !shell.frames.is_empty() || shell.sourcing > 0;
    if !in_function && shell.subshell_level == 0 {
        return fail(shell, "return", "can only `return' from a function or sourced script", 2);
    }
    shell.status = status;
    if in_function {
        Flow::Return
    } else {
        Flow::Exit
    }
}
