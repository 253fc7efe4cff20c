//! `export`, `readonly` (both on top of `declare`), `let` and `shift`.

use super::declare::{run, Mode};
use super::{done, fail};
use crate::exec::Flow;
use crate::shell::Shell;

pub fn export(shell: &mut Shell, args: &[String]) -> Flow {
    run(shell, args, Mode::Export, "export")
}

pub fn readonly(shell: &mut Shell, args: &[String]) -> Flow {
    run(shell, args, Mode::Readonly, "readonly")
}

/// `let expr...`: status 0 when the last expression is non-zero.
pub fn let_(shell: &mut Shell, args: &[String]) -> Flow {
    if args.len() < 2 {
        return fail(shell, "let", "expression expected", 1);
    }
    let mut last = 0;
    for expr in &args[1..] {
        match shell.eval_arith_text(expr) {
            Ok(value) => last = value,
            Err(message) => return fail(shell, "let", &message, 1),
        }
    }
    done(shell, (last == 0) as i32)
}

pub fn shift(shell: &mut Shell, args: &[String]) -> Flow {
    let args = super::after_dashes(args);
    let count = match args.first() {
        None => 1,
        Some(text) => match text.trim().parse::<i64>() {
            Ok(_) if args.len() > 1 => return super::too_many_arguments(shell, "shift"),
            Ok(n) if n >= 0 => n as usize,
            Ok(_) => return fail(shell, "shift", &format!("{}: shift count out of range", text), 1),
            Err(_) => return fail(shell, "shift", &format!("{}: numeric argument required", text), 1),
        },
    };
    if count > shell.positional.len() {
        return done(shell, 1);
    }
    shell.positional.drain(..count);
    done(shell, 0)
}
