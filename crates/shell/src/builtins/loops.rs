//! `break [n]` and `continue [n]`.

use super::{after_dashes, too_many_arguments};
use crate::exec::Flow;
use crate::shell::Shell;

/// How many loops to leave, or the flow an error leads to (bash's `get_numeric_arg`).
fn levels(shell: &mut Shell, name: &str, args: &[String]) -> Result<u32, Flow> {
    if shell.loop_depth == 0 {
        shell.report(&format!("{}: only meaningful in a `for', `while', or `until' loop", name));
        shell.status = 0;
        return Err(Flow::Normal);
    }
    let args = after_dashes(args);
    let text = match args.first() {
        None => return Ok(1),
        Some(text) => text,
    };
    let count = match text.trim().parse::<i64>() {
        Ok(count) => count,
        Err(_) => {
            shell.report(&format!("{}: {}: numeric argument required", name, text));
            shell.status = 128;
            return Err(Flow::Exit);
        }
    };
    if args.len() > 1 {
        return Err(too_many_arguments(shell, name));
    }
    if count < 1 {
        // bash then leaves every enclosing loop, with status 1.
        shell.report(&format!("{}: {}: loop count out of range", name, text));
        shell.status = 1;
        return Err(Flow::Break(shell.loop_depth));
    }
    Ok(count.min(shell.loop_depth as i64) as u32)
}

/// `break` or `continue`: the flow `jump` makes of the loop count.
fn leave_loops(shell: &mut Shell, name: &str, args: &[String], jump: fn(u32) -> Flow) -> Flow {
    match levels(shell, name, args) {
        Ok(n) => {
            shell.status = 0;
            jump(n)
        }
        Err(flow) => flow,
    }
}

pub fn break_(shell: &mut Shell, args: &[String]) -> Flow {
    leave_loops(shell, "break", args, Flow::Break)
}

pub fn continue_(shell: &mut Shell, args: &[String]) -> Flow {
    leave_loops(shell, "continue", args, Flow::Continue)
}
