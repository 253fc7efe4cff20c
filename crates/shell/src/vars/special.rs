//! Variables bash computes when read (RANDOM, SECONDS, LINENO, PIPESTATUS, FUNCNAME, ...)
//! and the variables a new shell starts with.

use std::collections::BTreeMap;

use super::{attr, Value, Var};
use crate::shell::{Mode, Shell};

/// Bash's RANDOM generator (Park–Miller "minimal standard", folded to 15 bits), so that
/// `RANDOM=42; echo $RANDOM` prints what bash prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Random {
    pub seed: u32,
    pub last: u32,
}

impl Random {
    pub fn new(seed: u32) -> Random {
        Random { seed, last: 0 }
    }

    fn step(last: u32) -> u32 {
        let ret = if last == 0 { 123_459_876i64 } else { last as i64 };
        let h = ret / 127_773;
        let l = ret - 127_773 * h;
        let t = 16_807 * l - 2_836 * h;
        (if t < 0 { t + 0x7fff_ffff } else { t }) as u32
    }

    pub fn next(&mut self) -> u32 {
        loop {
            self.seed = Random::step(self.seed);
            let value = ((self.seed >> 16) ^ (self.seed & 0xffff)) & 0x7fff;
            if value != self.last {
                self.last = value;
                return value;
            }
        }
    }

    pub fn reseed(&mut self, seed: u32) {
        self.seed = seed;
        self.last = 0;
    }
}

const DYNAMIC_NAMES: &[&str] = &[
    "RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "EPOCHSECONDS", "EPOCHREALTIME", "BASH_SUBSHELL", "PIPESTATUS",
    "FUNCNAME", "BASH_SOURCE", "BASH_LINENO", "SHELLOPTS", "BASHOPTS", "DIRSTACK", "BASH_ARGC", "BASH_ARGV", "_", "BASH_COMMAND",
];

impl Shell {
    /// The value of a dynamic variable (scalar ones).
    pub(crate) fn dynamic_scalar(&mut self, name: &str) -> Option<String> {
        Some(match name {
            "RANDOM" => self.random.next().to_string(),
            "SRANDOM" => self.sys.random_u32().to_string(),
            "SECONDS" => {
                let elapsed = self.sys.monotonic_ns().wrapping_sub(self.start_ns) / 1_000_000_000;
                elapsed.to_string()
            }
            "LINENO" => self.lineno.to_string(),
            "BASHPID" => self.sys.getpid().to_string(),
            "EPOCHSECONDS" => (self.sys.now_ns() / 1_000_000_000).to_string(),
            "EPOCHREALTIME" => {
                let ns = self.sys.now_ns();
                format!("{}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1000)
            }
            "BASH_SUBSHELL" => self.subshell_level.to_string(),
            "_" => self.last_arg.clone(),
            "BASH_COMMAND" => self.bash_command.clone(),
            "SHELLOPTS" => enabled_names(crate::options::SET_OPTIONS, &self.options.set),
            "BASHOPTS" => enabled_names(crate::options::SHOPT_OPTIONS, &self.options.shopt),
            _ => return self.dynamic_array(name).and_then(|v| v.first().map(str::to_string)),
        })
    }

    /// The value of a dynamic array variable.
    pub(crate) fn dynamic_array(&mut self, name: &str) -> Option<Value> {
        let list: Vec<String> = match name {
            "PIPESTATUS" => self.pipestatus.iter().map(|s| s.to_string()).collect(),
            "FUNCNAME" => {
                if self.frames.is_empty() {
                    return Some(Value::Unset);
                }
                let mut names: Vec<String> = self.frames.iter().rev().map(|f| f.name.clone()).collect();
                if self.mode == Mode::Script {
                    names.push("main".to_string());
                }
                names
            }
            // `bash -c` has no bottom frame for its top level (a script or sourced file has).
            "BASH_SOURCE" => {
                let mut sources: Vec<String> = self.frames.iter().rev().map(|f| f.source.clone()).collect();
                if !self.source_name.is_empty() {
                    sources.push(self.source_name.clone());
                }
                sources
            }
            "BASH_LINENO" => {
                let mut lines: Vec<String> = self.frames.iter().rev().map(|f| f.call_line.to_string()).collect();
                if !self.source_name.is_empty() {
                    lines.push("0".to_string());
                }
                lines
            }
            "DIRSTACK" => {
                let mut dirs = vec![self.cwd.clone()];
                dirs.extend(self.dirstack.iter().rev().cloned());
                dirs
            }
            "BASH_ARGC" | "BASH_ARGV" => Vec::new(),
            _ => return None,
        };
        Some(Value::Indexed(list.into_iter().enumerate().map(|(i, v)| (i as i64, v)).collect::<BTreeMap<_, _>>()))
    }

    /// Assigning to a dynamic variable: RANDOM reseeds, SECONDS restarts the count.
    pub(crate) fn assign_dynamic(&mut self, name: &str, value: &str) -> bool {
        match name {
            "RANDOM" => {
                let seed = value.trim().parse::<i64>().unwrap_or(0);
                self.random.reseed(seed as u32);
                true
            }
            "SECONDS" => {
                let seconds = value.trim().parse::<u64>().unwrap_or(0);
                // Wrapping: the clock may have run for less than `seconds` (SECONDS=100 at start).
                self.start_ns = self.sys.monotonic_ns().wrapping_sub(seconds.wrapping_mul(1_000_000_000));
                true
            }
            _ => false,
        }
    }

    /// Sets the variables every shell starts with.
    pub fn init_variables(&mut self, environment: &[String]) {
        for entry in environment {
            if let Some(eq) = entry.find('=') {
                let (name, value) = (&entry[..eq], &entry[eq + 1..]);
                if shell_parser::is_name(name) {
                    let var = self.vars.global_mut(name);
                    var.value = Value::Scalar(value.to_string());
                    var.attrs |= attr::EXPORT;
                }
            }
        }
        for name in DYNAMIC_NAMES {
            let var = self.vars.global_mut(name);
            var.attrs |= attr::DYNAMIC;
            if !var.is_set() {
                var.value = Value::Scalar(String::new());
            }
        }
        let defaults: &[(&str, &str)] = &[
            ("IFS", " \t\n"),
            ("PS1", "\\s-\\v\\$ "),
            ("PS2", "> "),
            ("PS4", "+ "),
            ("OPTIND", "1"),
            ("OPTERR", "1"),
            ("BASH_VERSION", "5.2.15(1)-release"),
            ("BASH", "/bin/bash"),
            ("OSTYPE", "linux-gnu"),
            ("HOSTTYPE", "x86_64"),
            ("MACHTYPE", "x86_64-pc-linux-gnu"),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("HISTFILESIZE", "500"),
            ("HISTSIZE", "500"),
        ];
        for (name, value) in defaults {
            if self.vars.get(name).map_or(true, |v| !v.is_set()) {
                self.vars.global_mut(name).value = Value::Scalar(value.to_string());
            }
        }
        let versinfo = ["5", "2", "15", "1", "release", "x86_64-pc-linux-gnu"];
        let var = self.vars.global_mut("BASH_VERSINFO");
        var.value = Value::Indexed(versinfo.iter().enumerate().map(|(i, v)| (i as i64, v.to_string())).collect());
        var.attrs |= attr::READONLY;
        let ppid = self.sys.getppid().to_string();
        let var = self.vars.global_mut("PPID");
        var.value = Value::Scalar(ppid);
        var.attrs |= attr::READONLY | attr::INTEGER;
        for name in ["UID", "EUID"] {
            let var = self.vars.global_mut(name);
            if !var.is_set() {
                var.value = Value::Scalar("1000".to_string());
            }
            var.attrs |= attr::READONLY | attr::INTEGER;
        }
        let level = self.get_scalar("SHLVL").and_then(|s| s.parse::<i64>().ok()).unwrap_or(0) + 1;
        let var = self.vars.global_mut("SHLVL");
        var.value = Value::Scalar(level.to_string());
        var.attrs |= attr::EXPORT;
        let cwd = match self.get_scalar("PWD") {
            Some(pwd) if pwd.starts_with('/') && self.same_directory(&pwd, ".") => pwd,
            _ => self.sys.getcwd().unwrap_or_else(|_| "/".to_string()),
        };
        self.cwd = cwd.clone();
        let var = self.vars.global_mut("PWD");
        var.value = Value::Scalar(cwd);
        var.attrs |= attr::EXPORT;
        if self.vars.get("OLDPWD").is_none() {
            let var = self.vars.global_mut("OLDPWD");
            var.attrs |= attr::EXPORT;
        }
    }

    /// Whether two paths name the same directory (device and inode).
    pub(crate) fn same_directory(&mut self, a: &str, b: &str) -> bool {
        match (self.sys.stat(a, true), self.sys.stat(b, true)) {
            (Ok(x), Ok(y)) => x.dev == y.dev && x.ino == y.ino && x.kind == crate::sys::FileKind::Dir,
            _ => false,
        }
    }
}

/// A plain global variable with a value (for tests and setup code).
pub fn scalar_var(value: &str) -> Var {
    Var::scalar(value)
}

#[cfg(test)]
mod tests {
    use super::Random;

    #[test]
    fn random_matches_bash() {
        // bash -c 'RANDOM=42; echo $RANDOM $RANDOM $RANDOM'
        let mut random = Random::new(0);
        random.reseed(42);
        assert_eq!([random.next(), random.next(), random.next()], [17772, 26794, 1435]);
    }
}

/// The names of the options that are on, joined with ':' (`$SHELLOPTS`, `$BASHOPTS`).
fn enabled_names<T>(table: &[(&str, T)], on: &[bool]) -> String {
    let names: Vec<&str> = table.iter().zip(on).filter(|(_, on)| **on).map(|((name, _), _)| *name).collect();
    names.join(":")
}
