//! `trap` and `kill`.

use super::{done, fail, print, read_options};
use crate::exec::Flow;
use crate::shell::Shell;
use crate::traps::{canonical_signal, signal_number, SIGNALS};

fn display_name(name: &str) -> String {
    if matches!(name, "EXIT" | "ERR" | "DEBUG" | "RETURN") {
        name.to_string()
    } else {
        format!("SIG{}", name)
    }
}

fn signal_list() -> String {
    let mut out = String::new();
    for (i, (name, number)) in SIGNALS.iter().enumerate() {
        out.push_str(&format!("{:>2}) SIG{}", number, name));
        out.push(if (i + 1) % 5 == 0 || i + 1 == SIGNALS.len() { '\n' } else { '\t' });
    }
    out
}

pub fn trap(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "trap", args, "lp");
    if given.has('l') {
        print(shell, "trap", &signal_list());
        return done(shell, 0);
    }
    let print_mode = given.has('p');
    let operands = &args[index..];
    if operands.is_empty() || print_mode {
        let selected: Vec<String> = if operands.is_empty() {
            let mut all = shell.traps.all();
            all.sort_by_key(|(name, _)| signal_number(name).unwrap_or(100 + name.len() as u32));
            all.into_iter().map(|(name, _)| name).collect()
        } else {
            operands.iter().filter_map(|s| canonical_signal(s)).collect()
        };
        let mut out = String::new();
        for name in selected {
            if let Some(action) = shell.traps.get(&name) {
                out.push_str(&format!("trap -- {} {}\n", crate::text::single_quote(action), display_name(&name)));
            }
        }
        print(shell, "trap", &out);
        return done(shell, 0);
    }
    let (action, signals) = if operands.len() == 1 || (operands[0].parse::<u32>().is_ok() && canonical_signal(&operands[0]).is_some()) {
        ("-".to_string(), operands)
    } else {
        (operands[0].clone(), &operands[1..])
    };
    let mut status = 0;
    let depth = shell.frames.len();
    for spec in signals {
        match canonical_signal(spec) {
            Some(name) => {
                if action == "-" {
                    shell.traps.remove(&name);
                } else {
                    shell.traps.set(&name, &action, depth);
                }
            }
            None => {
                shell.report(&format!("trap: {}: invalid signal specification", spec));
                status = 1;
            }
        }
    }
    done(shell, status)
}

pub fn kill(shell: &mut Shell, args: &[String]) -> Flow {
    let mut signal = 15u32;
    let mut index = 1;
    if let Some(first) = args.get(1) {
        if first == "-l" || first == "-L" {
            return list(shell, &args[2..]);
        }
        if first == "-s" || first == "-n" {
            let spec = match args.get(2) {
                Some(spec) => spec,
                None => return fail(shell, "kill", &format!("{}: option requires an argument", first), 2),
            };
            match canonical_signal(spec).and_then(|n| signal_number(&n)) {
                Some(n) => signal = n,
                None => return fail(shell, "kill", &format!("{}: invalid signal specification", spec), 1),
            }
            index = 3;
        } else if let Some(spec) = first.strip_prefix('-') {
            if spec == "-" {
                index = 2;
            } else if !spec.is_empty() {
                match canonical_signal(spec).and_then(|n| signal_number(&n)) {
                    Some(n) => signal = n,
                    None => return fail(shell, "kill", &format!("{}: invalid signal specification", spec), 1),
                }
                index = 2;
            }
        }
    }
    if index >= args.len() {
        return fail(shell, "kill", "usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]", 2);
    }
    let mut status = 0;
    let mut flow = Flow::Normal;
    for target in &args[index..] {
        let pid: i32 = if target.starts_with('%') {
            match shell.jobs.find(target) {
                Some(job) => -(job.pids[0] as i32),
                None => {
                    shell.report(&format!("kill: {}: no such job", target));
                    status = 1;
                    continue;
                }
            }
        } else {
            match target.parse::<i32>() {
                Ok(pid) => pid,
                Err(_) => {
                    shell.report(&format!("kill: {}: arguments must be process or job IDs", target));
                    status = 1;
                    continue;
                }
            }
        };
        let own = shell.sys.getpid() as i32;
        if pid == own || (shell.subshell_level == 0 && pid == shell.shell_pid as i32) {
            flow = shell.deliver_own_signal(signal);
            continue;
        }
        // Background jobs run in their own process group: signal the group so that
        // programs the job started get it too.
        let pid = if pid > 0 && shell.jobs.by_pid(pid as u32).is_some() { -pid } else { pid };
        if let Err(error) = shell.sys.kill(pid, signal) {
            let shown = if pid < -1 { (-pid).to_string() } else { pid.to_string() };
            shell.report(&format!("kill: ({}) - {}", shown, error));
            status = 1;
        }
    }
    if flow != Flow::Normal {
        return flow;
    }
    done(shell, status)
}

fn list(shell: &mut Shell, specs: &[String]) -> Flow {
    if specs.is_empty() {
        print(shell, "kill", &signal_list());
        return done(shell, 0);
    }
    let mut out = String::new();
    let mut status = 0;
    for spec in specs {
        if let Ok(number) = spec.parse::<u32>() {
            let number = if number > 128 { number - 128 } else { number };
            match SIGNALS.iter().find(|(_, n)| *n == number) {
                Some((name, _)) => out.push_str(&format!("{}\n", name)),
                None => {
                    shell.report(&format!("kill: {}: invalid signal specification", spec));
                    status = 1;
                }
            }
        } else {
            match canonical_signal(spec).and_then(|n| signal_number(&n)) {
                Some(n) => out.push_str(&format!("{}\n", n)),
                None => {
                    shell.report(&format!("kill: {}: invalid signal specification", spec));
                    status = 1;
                }
            }
        }
    }
    print(shell, "kill", &out);
    done(shell, status)
}
