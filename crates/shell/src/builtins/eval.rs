//! `eval args` and `exec [command]`.

use super::{done, fail, read_options};
use crate::exec::{CommandKind, Flow};
use crate::shell::Shell;

pub fn eval(shell: &mut Shell, args: &[String]) -> Flow {
    let (_, index) = read_options!(shell, "eval", args, "");
    let text = args[index..].join(" ");
    if text.trim().is_empty() {
        return done(shell, 0);
    }
    shell.status = 0;
    let line = shell.lineno;
    let (flow, syntax_error) = shell.run_source(&text, "eval", line);
    if syntax_error.is_some() {
        shell.status = 2;
    }
    flow
}

/// `exec` with a command runs it and ends the shell with its status (WASI cannot replace
/// a process, so this waits for it). Without one, its redirections stay (handled by the
/// caller).
pub fn exec(shell: &mut Shell, args: &[String]) -> Flow {
    let (_, index) = read_options!(shell, "exec", args, "cla:");
    if index >= args.len() {
        return done(shell, 0);
    }
    let argv = &args[index..];
    match shell.resolve_command(&argv[0], false) {
        CommandKind::External(path) => {
            let flow = shell.run_external(&path, argv);
            if flow != Flow::Normal {
                return flow;
            }
            Flow::Exit
        }
        CommandKind::NotFound => {
            let _ = fail(shell, "exec", &format!("{}: not found", argv[0]), 127);
            Flow::Exit
        }
        CommandKind::Builtin(builtin) => {
            let flow = builtin(shell, argv);
            if flow != Flow::Normal {
                return flow;
            }
            Flow::Exit
        }
        CommandKind::Function(_) => {
            let _ = fail(shell, "exec", &format!("{}: not found", argv[0]), 127);
            Flow::Exit
        }
    }
}
