//! `cd` and `pwd`, keeping the logical path (`$PWD`) as bash does unless `-P`.

use super::{done, fail, print, read_options};
use crate::exec::Flow;
use crate::sys::FileKind;
use crate::options::Opt;
use crate::shell::Shell;

pub fn cd(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "cd", args, "LPe@");
    let physical = given.last_of("LP").map_or(shell.options.get(Opt::Physical), |letter| letter == 'P');
    let operands = &args[index..];
    if operands.len() > 1 {
        return fail(shell, "cd", "too many arguments", 1);
    }
    let mut announce = false;
    let target = match operands.first().map(String::as_str) {
        None => match shell.get_scalar("HOME") {
            Some(home) if !home.is_empty() => home,
            Some(_) => return done(shell, 0),
            None => return fail(shell, "cd", "HOME not set", 1),
        },
        Some("-") => match shell.get_scalar("OLDPWD") {
            Some(old) if !old.is_empty() => {
                announce = true;
                old
            }
            _ => return fail(shell, "cd", "OLDPWD not set", 1),
        },
        Some(dir) => {
            let dir = dir.to_string();
            match cdpath_lookup(shell, &dir) {
                Some(found) => {
                    announce = true;
                    found
                }
                None => dir,
            }
        }
    };
    match shell.change_directory(&target, physical) {
        Ok(()) => {
            if announce {
                let cwd = shell.cwd.clone();
                print(shell, "cd", &format!("{}\n", cwd));
            }
            done(shell, 0)
        }
        Err(message) => fail(shell, "cd", &message, 1),
    }
}

/// A relative directory found through `CDPATH` (not for `./x`, `../x` or `/x`).
fn cdpath_lookup(shell: &mut Shell, dir: &str) -> Option<String> {
    if dir.starts_with('/') || dir.starts_with("./") || dir.starts_with("../") || dir == "." || dir == ".." {
        return None;
    }
    let cdpath = shell.get_scalar("CDPATH")?;
    for entry in cdpath.split(':') {
        if entry.is_empty() {
            continue;
        }
        let candidate = format!("{}/{}", entry.trim_end_matches('/'), dir);
        if shell.sys.stat(&candidate, true).map_or(false, |s| s.kind == FileKind::Dir) {
            return Some(candidate);
        }
    }
    None
}

/// Resolves `.` and `..` textually, as a logical `cd` does.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

impl Shell {
    /// Changes directory (logical unless `physical`), updating PWD and OLDPWD. The error
    /// is worded for `cd: <message>`.
    pub fn change_directory(&mut self, target: &str, physical: bool) -> Result<(), String> {
        let absolute = if target.starts_with('/') { target.to_string() } else { format!("{}/{}", self.cwd, target) };
        let logical = normalize(&absolute);
        let attempt = if physical { absolute.clone() } else { logical.clone() };
        match self.sys.stat(&attempt, true) {
            Ok(stat) if stat.kind != FileKind::Dir => return Err(format!("{}: Not a directory", target)),
            Err(error) => return Err(format!("{}: {}", target, error.message())),
            Ok(_) => {}
        }
        if let Err(error) = self.sys.chdir(&attempt) {
            return Err(format!("{}: {}", target, error.message()));
        }
        let new = if physical { self.sys.getcwd().unwrap_or(logical) } else { logical };
        let old = std::mem::replace(&mut self.cwd, new.clone());
        self.set_var("OLDPWD", &old);
        self.set_var("PWD", &new);
        Ok(())
    }
}

pub fn pwd(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, _) = read_options!(shell, "pwd", args, "LP");
    let physical = given.last_of("LP").map_or(shell.options.get(Opt::Physical), |letter| letter == 'P');
    let path = if physical { shell.sys.getcwd().unwrap_or_else(|_| shell.cwd.clone()) } else { shell.cwd.clone() };
    let ok = print(shell, "pwd", &format!("{}\n", path));
    done(shell, if ok { 0 } else { 1 })
}
