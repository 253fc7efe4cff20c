//! The sandbox's long-lived session shell (docs/abi.md, "The session shell"): started as
//! `bash --airlock-session`, it runs one request per `run()` and reports its status and
//! state. Variables, functions, aliases, options, cwd and traps carry over between runs;
//! `exit N` ends the run, not the session.
//!
//! The kernel passes the sandbox's shell limits after the flag:
//! `bash --airlock-session --call-depth=N --substitution-depth=N`.

use crate::exec::Flow;
use crate::sys::Sys;
use crate::json::{self, Json};
use crate::options::Shopt;
use crate::shell::{Limits, Mode, Shell};
use crate::vars::{attr, Var};

pub const SESSION_FLAG: &str = "--airlock-session";

/// The limits given after [`SESSION_FLAG`]; the defaults for any not given. An argument
/// that is not a known limit with a positive number is an error naming it.
pub fn parse_limits(args: &[String]) -> Result<Limits, String> {
    let mut limits = Limits::default();
    for arg in args {
        let (name, value) = arg.split_once('=').unwrap_or((arg.as_str(), ""));
        let slot = match name {
            "--call-depth" => &mut limits.call_depth,
            "--substitution-depth" => &mut limits.substitution_depth,
            _ => return Err(format!("{}: unknown session argument", arg)),
        };
        *slot = match value.parse::<u32>() {
            Ok(n) if n > 0 => n,
            _ => return Err(format!("{}: the limit must be a positive integer", arg)),
        };
    }
    Ok(limits)
}

pub fn run(sys: Box<dyn Sys>, args: &[String]) -> i32 {
    let mut shell = Shell::new(sys, Mode::Session);
    let limits = match parse_limits(args) {
        Ok(limits) => limits,
        Err(message) => {
            shell.write_err(&format!("bash: {}\n", message));
            return 2;
        }
    };
    let environment = shell.sys.environment();
    shell.init_variables(&environment);
    shell.options.set_shopt(Shopt::ExpandAliases, true);
    // Each run is a `bash -c`: `$-` shows `c`.
    shell.options.extra_flags = "c".to_string();
    let blob = shell.sys.blob();
    if !blob.is_empty() {
        match crate::state::decode_state(&blob) {
            Ok(state) => {
                shell.restore(state);
                shell.mode = Mode::Session;
                shell.subshell_level = 0;
                shell.subst_depth = 0;
                if shell.sys.chdir(&shell.cwd.clone()).is_err() {
                    shell.cwd = shell.sys.getcwd().unwrap_or_else(|_| "/".to_string());
                }
            }
            Err(_) => shell.write_err("bash: saved session state is from another version; starting a fresh session\n"),
        }
    }
    // After the restore: the sandbox's limits now, not the saved state's.
    shell.limits = limits;
    while let Some(request) = shell.sys.session_next() {
        let status = run_request(&mut shell, &request);
        let state = shell.state_bytes();
        shell.sys.session_done(status, &state);
    }
    0
}

/// How many runs `history` keeps when HISTSIZE is not a number (bash's default).
const DEFAULT_HISTORY_SIZE: usize = 500;

/// Adds a run's command to the history, as an interactive bash adds a line.
fn remember(shell: &mut Shell, command: &str) {
    let entry = command.trim_end_matches('\n');
    if entry.trim().is_empty() {
        return;
    }
    shell.history.push(entry.to_string());
    let size = shell.get_scalar("HISTSIZE").and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(DEFAULT_HISTORY_SIZE);
    if shell.history.len() > size {
        let excess = shell.history.len() - size;
        shell.history.drain(..excess);
    }
}

/// Runs one request; its exit status.
pub fn run_request(shell: &mut Shell, request: &[u8]) -> i32 {
    let text = String::from_utf8_lossy(request);
    let request = match json::parse(&text) {
        Ok(request) => request,
        Err(error) => {
            shell.write_err(&format!("bash: malformed run request: {}\n", error));
            return 2;
        }
    };
    shell.cancelled = None;
    shell.steps = 0;
    shell.lineno = 0;
    if let Some(cwd) = request.get("cwd").and_then(Json::as_str) {
        if let Err(message) = shell.change_directory(cwd, false) {
            shell.write_err(&format!("bash: cd: {}\n", message));
            return 1;
        }
    }
    let mut saved: Vec<(String, Option<Var>)> = Vec::new();
    if let Some(Json::Object(env)) = request.get("env") {
        for (name, value) in env {
            if let (true, Some(value)) = (shell_parser::is_name(name), value.as_str()) {
                saved.push((name.clone(), shell.vars.get(name).cloned()));
                shell.set_var(name, value);
                if let Some(var) = shell.vars.get_mut(name) {
                    var.attrs |= attr::EXPORT;
                }
            }
        }
    }
    let command = request.get("command").and_then(Json::as_str).unwrap_or("").to_string();
    remember(shell, &command);
    let (flow, syntax_error) = shell.run_source(&command, "-c", 1);
    if let Some(status) = syntax_error {
        shell.status = status;
    }
    let _ = flow == Flow::Exit;
    // A run ends like `bash -c` does: the EXIT trap runs (once; the next run starts
    // without it).
    if shell.cancelled.is_none() {
        shell.status = shell.finish();
    }
    if let Some(status) = shell.cancelled.take() {
        shell.status = status;
    }
    for (name, previous) in saved.into_iter().rev() {
        shell.vars.put(&name, previous);
    }
    crate::builtins::jobs::reap(shell);
    shell.status & 0xff
}
