//! `break [n]` and `continue [n]`.

use super::{done, fail};
use crate::exec::Flow;
use crate::shell::Shell;

fn levels(shell: &mut Shell, name: &str, args: &[String]) -> Result<u32, Flow> {
    if shell.loop_depth == 0 {
        shell.report(&format!("{}: only meaningful in a `for', `while', or `until' loop", name));
        return Err(done(shell, 0));
    }
    match args.get(1) {
        None => Ok(1),
        Some(text) => match text.parse::<i64>() {
            Ok(n) if n >= 1 => Ok(n.min(shell.loop_depth as i64) as u32),
            Ok(_) => Err(fail(shell, name, &format!("{}: loop count out of range", text), 1)),
            Err(_) => {
                shell.report(&format!("{}: {}: numeric argument required", name, text));
                shell.status = 128;
                Err(Flow::Exit)
            }
        },
    }
}

pub fn break_(shell: &mut Shell, args: &[String]) -> Flow {
    match levels(shell, "break", args) {
        Ok(n) => {
            shell.status = 0;
            Flow::Break(n)
        }
        Err(flow) => flow,
    }
}

pub fn continue_(shell: &mut Shell, args: &[String]) -> Flow {
    match levels(shell, "continue", args) {
        Ok(n) => {
            shell.status = 0;
            Flow::Continue(n)
        }
        Err(flow) => flow,
    }
}
