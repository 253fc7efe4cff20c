//! `jobs`, `wait`, and the job-control builtins that need a terminal (`fg`, `bg`,
//! `suspend`), which report that job control is off, as a non-interactive bash does.

use super::{done, fail, print, read_options};
use crate::exec::Flow;
use crate::shell::Shell;

/// Collects statuses of background children that have ended, without blocking.
pub fn reap(shell: &mut Shell) {
    let pids: Vec<u32> = shell.jobs.list.iter().filter(|j| j.status.is_none()).flat_map(|j| j.pids.clone()).chain(shell.jobs.hidden.clone()).collect();
    for pid in pids {
        if let Ok(Some(exited)) = shell.sys.wait(pid as i32, true) {
            shell.jobs.mark_done(exited.pid, exited.status);
        }
    }
}

pub fn jobs(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "jobs", args, "lnprsx");
    if given.has('x') {
        return fail(shell, "jobs", "-x: not supported", 2);
    }
    let (pids_only, long, running_only, stopped_only) = (given.has('p'), given.has('l'), given.has('r'), given.has('s'));
    reap(shell);
    let mut out = String::new();
    let mut finished = Vec::new();
    let specs = &args[index..];
    for job in shell.jobs.list.clone() {
        if !specs.is_empty() && !specs.iter().any(|s| shell.jobs.find(s).map(|j| j.id) == Some(job.id)) {
            continue;
        }
        if stopped_only || (running_only && job.status.is_some()) {
            continue;
        }
        if pids_only {
            out.push_str(&format!("{}\n", job.pids[0]));
            continue;
        }
        let state = match job.status {
            None => "Running".to_string(),
            Some(0) => "Done".to_string(),
            Some(status) => format!("Exit {}", status),
        };
        let marker = shell.jobs.marker(job.id);
        let suffix = if job.status.is_none() { " &" } else { "" };
        if long {
            out.push_str(&format!("[{}]{} {} {:<24}{}{}\n", job.id, marker, job.pids[0], state, job.command, suffix));
        } else {
            out.push_str(&format!("[{}]{}  {:<24}{}{}\n", job.id, marker, state, job.command, suffix));
        }
        if job.status.is_some() {
            finished.push(job.id);
        }
    }
    for id in finished {
        shell.jobs.remove(id);
    }
    print(shell, "jobs", &out);
    done(shell, 0)
}

/// `wait [-fn] [-p var] [id ...]`; with `-p` the pid whose status is returned goes to
/// `var` (which stays unset when there is none).
pub fn wait(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "wait", args, "fnp:");
    let (any, pid_var) = (given.has('n'), given.value('p'));
    if let Some(name) = &pid_var {
        if !shell_parser::is_name(name) {
            return fail(shell, "wait", &format!("`{}': not a valid identifier", name), 1);
        }
        let _ = shell.vars.unset(name, true);
    }
    let mut waited = None;
    let flow = wait_for(shell, any, &args[index..], &mut waited);
    if let (Some(name), Some(pid)) = (pid_var, waited) {
        shell.set_var(&name, &pid.to_string());
    }
    flow
}

/// Waits as `wait` does; `waited` gets the pid whose status is returned.
fn wait_for(shell: &mut Shell, any: bool, targets: &[String], waited: &mut Option<u32>) -> Flow {
    if any {
        let mut running: Vec<u32> = shell.jobs.list.iter().filter(|j| j.status.is_none()).filter_map(|j| j.pids.last().copied()).collect();
        if !targets.is_empty() {
            // `wait -n ID...`: only those jobs count.
            let mut chosen = Vec::new();
            for target in targets {
                let job = if target.starts_with('%') { shell.jobs.find(target) } else { target.parse::<u32>().ok().and_then(|pid| shell.jobs.by_pid(pid)) };
                match job.and_then(|j| j.pids.last().copied()) {
                    Some(pid) => chosen.push(pid),
                    None => shell.report(&format!("wait: {}: no such job", target)),
                }
            }
            if chosen.is_empty() {
                return done(shell, 127);
            }
            running.retain(|pid| chosen.contains(pid));
        }
        let finished = shell.jobs.list.iter().find(|j| j.status.is_some()).map(|j| (j.id, j.status.unwrap_or(0), j.pids.last().copied()));
        if let Some((id, status, pid)) = finished {
            shell.jobs.remove(id);
            *waited = pid;
            return done(shell, status);
        }
        if running.is_empty() {
            return done(shell, 127);
        }
        loop {
            match shell.sys.wait(-1, false) {
                Ok(Some(exited)) => {
                    shell.jobs.mark_done(exited.pid, exited.status);
                    if running.contains(&exited.pid) {
                        if let Some(id) = shell.jobs.by_pid(exited.pid).map(|j| j.id) {
                            shell.jobs.remove(id);
                        }
                        *waited = Some(exited.pid);
                        return done(shell, exited.status);
                    }
                }
                _ => return done(shell, 127),
            }
        }
    }
    if targets.is_empty() {
        let pids: Vec<u32> = shell.jobs.list.iter().filter(|j| j.status.is_none()).flat_map(|j| j.pids.clone()).chain(shell.jobs.hidden.clone()).collect();
        for pid in pids {
            let status = shell.wait_pid(pid);
            shell.jobs.mark_done(pid, status);
            let flow = shell.check_poll();
            if flow != Flow::Normal {
                return flow;
            }
        }
        shell.jobs.list.clear();
        return done(shell, 0);
    }
    let mut status = 0;
    for target in targets {
        let pid = if target.starts_with('%') {
            match shell.jobs.find(target) {
                Some(job) => job.pids.last().copied().unwrap_or(0),
                None => {
                    shell.report(&format!("wait: {}: no such job", target));
                    status = 127;
                    continue;
                }
            }
        } else {
            match target.parse::<u32>() {
                Ok(pid) => pid,
                Err(_) => {
                    shell.report(&format!("wait: `{}': not a pid or valid job spec", target));
                    status = 1;
                    continue;
                }
            }
        };
        *waited = Some(pid);
        if let Some(job) = shell.jobs.by_pid(pid).cloned() {
            status = match job.status {
                Some(s) => s,
                None => {
                    let s = shell.wait_pid(pid);
                    shell.jobs.mark_done(pid, s);
                    s
                }
            };
            shell.jobs.remove(job.id);
            continue;
        }
        if let Some(&(_, s)) = shell.jobs.reaped.iter().rev().find(|(p, _)| *p == pid) {
            status = s;
            continue;
        }
        if shell.jobs.hidden.contains(&pid) {
            status = shell.wait_pid(pid);
            shell.jobs.mark_done(pid, status);
            continue;
        }
        *waited = None;
        shell.report(&format!("wait: pid {} is not a child of this shell", pid));
        status = 127;
    }
    let flow = shell.check_poll();
    if flow != Flow::Normal {
        return flow;
    }
    done(shell, status)
}

pub fn fg(shell: &mut Shell, _args: &[String]) -> Flow {
    fail(shell, "fg", "no job control", 1)
}

pub fn bg(shell: &mut Shell, _args: &[String]) -> Flow {
    fail(shell, "bg", "no job control", 1)
}

pub fn suspend(shell: &mut Shell, _args: &[String]) -> Flow {
    fail(shell, "suspend", "cannot suspend a shell without job control", 1)
}

pub fn disown(shell: &mut Shell, args: &[String]) -> Flow {
    if args.len() == 1 || args.iter().any(|a| a == "-a") {
        shell.jobs.list.clear();
        return done(shell, 0);
    }
    for spec in &args[1..] {
        if let Some(id) = shell.jobs.find(spec).map(|j| j.id) {
            shell.jobs.remove(id);
        }
    }
    done(shell, 0)
}
