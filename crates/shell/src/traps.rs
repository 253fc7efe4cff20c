//! Traps: EXIT, ERR, DEBUG, RETURN and the signals a script can send itself (`kill -INT
//! $$`). The sandbox delivers no asynchronous signals to the shell, so signal traps run
//! when the shell signals itself or the session is interrupted.

use std::collections::BTreeMap;

use shell_parser::ast::SimpleCommand;

use crate::exec::Flow;
use crate::shell::Shell;

/// Signal names and numbers (Linux), as `kill -l` and `trap -l` list them.
pub const SIGNALS: &[(&str, u32)] = &[
    ("HUP", 1), ("INT", 2), ("QUIT", 3), ("ILL", 4), ("TRAP", 5), ("ABRT", 6), ("BUS", 7), ("FPE", 8), ("KILL", 9),
    ("USR1", 10), ("SEGV", 11), ("USR2", 12), ("PIPE", 13), ("ALRM", 14), ("TERM", 15), ("STKFLT", 16), ("CHLD", 17),
    ("CONT", 18), ("STOP", 19), ("TSTP", 20), ("TTIN", 21), ("TTOU", 22), ("URG", 23), ("XCPU", 24), ("XFSZ", 25),
    ("VTALRM", 26), ("PROF", 27), ("WINCH", 28), ("IO", 29), ("PWR", 30), ("SYS", 31),
];

/// A signal or pseudo-signal name (`INT`, `SIGINT`, `2`, `EXIT`, `0`) in canonical form.
pub fn canonical_signal(spec: &str) -> Option<String> {
    let upper = spec.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    if let Ok(number) = name.parse::<u32>() {
        if number == 0 {
            return Some("EXIT".to_string());
        }
        return SIGNALS.iter().find(|(_, n)| *n == number).map(|(s, _)| s.to_string());
    }
    if matches!(name, "EXIT" | "ERR" | "DEBUG" | "RETURN") {
        return Some(name.to_string());
    }
    SIGNALS.iter().find(|(s, _)| *s == name).map(|(s, _)| s.to_string())
}

pub fn signal_number(name: &str) -> Option<u32> {
    if name == "EXIT" {
        return Some(0);
    }
    SIGNALS.iter().find(|(s, _)| *s == name).map(|(_, n)| *n)
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Traps {
    actions: BTreeMap<String, String>,
    /// ERR/DEBUG/RETURN traps apply in the current function (`set -E`, `set -T`, or at
    /// the top level).
    err_active: bool,
    debug_active: bool,
    /// The function depth at which the RETURN trap was set.
    return_depth: Option<usize>,
    initialized: bool,
}

/// What `enter_function` changed, for `leave_function`.
pub struct FunctionTraps {
    err_active: bool,
    debug_active: bool,
}

impl Traps {
    fn active(&self) -> (bool, bool) {
        if self.initialized {
            (self.err_active, self.debug_active)
        } else {
            (true, true)
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.actions.get(name).map(String::as_str)
    }

    pub fn set(&mut self, name: &str, action: &str, depth: usize) {
        if name == "RETURN" {
            self.return_depth = Some(depth);
        }
        self.actions.insert(name.to_string(), action.to_string());
    }

    pub fn remove(&mut self, name: &str) {
        self.actions.remove(name);
    }

    pub fn all(&self) -> Vec<(String, String)> {
        self.actions.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    pub fn any(&self) -> bool {
        !self.actions.is_empty()
    }

    pub fn has_debug(&self) -> bool {
        self.active().1 && self.actions.contains_key("DEBUG")
    }

    pub fn to_pairs(&self) -> Vec<(String, String)> {
        self.all()
    }

    pub fn from_pairs(pairs: Vec<(String, String)>) -> Traps {
        Traps { actions: pairs.into_iter().collect(), ..Traps::default() }
    }

    /// A subshell keeps ignored signals only (bash resets the others).
    pub fn reset_for_subshell(&mut self) {
        self.actions.retain(|name, action| action.is_empty() && !matches!(name.as_str(), "EXIT" | "ERR" | "DEBUG" | "RETURN"));
    }

    pub fn enter_function(&mut self, errtrace: bool, functrace: bool) -> FunctionTraps {
        let (err, debug) = self.active();
        let saved = FunctionTraps { err_active: err, debug_active: debug };
        self.initialized = true;
        self.err_active = errtrace;
        self.debug_active = functrace;
        saved
    }

    pub fn leave_function(&mut self, saved: FunctionTraps) {
        self.err_active = saved.err_active;
        self.debug_active = saved.debug_active;
    }
}

impl Shell {
    /// Runs trap text like `eval`, keeping `$?` as it was.
    pub(crate) fn run_trap_action(&mut self, action: &str) -> Flow {
        let status = self.status;
        let was_in_trap = std::mem::replace(&mut self.in_trap, true);
        let (flow, _) = self.run_source(action, "", self.lineno);
        self.in_trap = was_in_trap;
        if flow != Flow::Exit {
            self.status = status;
        }
        flow
    }

    pub(crate) fn run_err_trap(&mut self) {
        if self.in_trap || !self.traps.active().0 {
            return;
        }
        if let Some(action) = self.traps.get("ERR").map(str::to_string) {
            let _ = self.run_trap_action(&action);
        }
    }

    pub(crate) fn run_debug_trap(&mut self, _command: &SimpleCommand) -> Flow {
        match self.traps.get("DEBUG").map(str::to_string) {
            Some(action) if !action.is_empty() => self.run_trap_action(&action),
            _ => Flow::Normal,
        }
    }

    pub(crate) fn run_return_trap(&mut self) {
        if self.in_trap {
            return;
        }
        let depth = self.frames.len();
        let applies = self.traps.return_depth == Some(depth) || (self.traps.active().1 && self.traps.return_depth.is_some());
        if !applies {
            return;
        }
        if let Some(action) = self.traps.get("RETURN").map(str::to_string) {
            if !action.is_empty() {
                let _ = self.run_trap_action(&action);
            }
        }
    }

    /// Runs the EXIT trap once, as the shell ends; returns the final status.
    pub fn finish(&mut self) -> i32 {
        if let Some(action) = self.traps.get("EXIT").map(str::to_string) {
            self.traps.remove("EXIT");
            let status = self.status;
            let was = std::mem::replace(&mut self.in_trap, true);
            let (flow, _) = self.run_source(&action, "", self.lineno);
            self.in_trap = was;
            if flow != Flow::Exit {
                self.status = status;
            }
        }
        self.status & 0xff
    }

    /// A signal this shell sent to itself: run its trap, or take the default action.
    pub(crate) fn deliver_own_signal(&mut self, signal: u32) -> Flow {
        let name = match SIGNALS.iter().find(|(_, n)| *n == signal) {
            Some((name, _)) => *name,
            None => return Flow::Normal,
        };
        match self.traps.get(name).map(str::to_string) {
            Some(action) if action.is_empty() => Flow::Normal,
            Some(action) => self.run_trap_action(&action),
            None if matches!(signal, 17 | 18 | 20 | 21 | 22 | 23 | 28) => Flow::Normal,
            None => {
                self.status = 128 + signal as i32;
                Flow::Exit
            }
        }
    }
}
