//! `timeout`: runs a command and signals it (its whole process group) when DURATION has
//! passed. Status 124 on timeout (unless `--preserve-status`), 137 when it had to be
//! killed with KILL, 125 for timeout's own errors, 126/127 when the command cannot run /
//! is not found, else the command's status. The child is polled with short sleeps: the
//! sandbox has no signals to wake us.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use common::args::Order;
use common::duration::parse_duration;
use common::io::quote;
use common::signals::{signal_name, signal_number};
use common::{Command, Io, UError};

const SPEC: &str = "signal,s: kill-after,k: preserve-status foreground verbose,v";

const TIMEOUT: Command = Command { usage_status: CANCELED, order: Order::RequireOrder, ..Command::compact("timeout", SPEC, HELP) };

const CANCELED: i32 = 125;
const TIMED_OUT: i32 = 124;
const SIGKILL: u32 = 9;
const SIGCONT: u32 = 18;

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut signal = 15u32;
    let mut kill_after: Option<f64> = None;
    let mut preserve = false;
    let mut verbose = false;
    let operands = TIMEOUT.operands(&args, io, &mut |_, id, value| {
        match id {
            "signal" => {
                let text = value.unwrap_or_default();
                match text.to_str().and_then(signal_number) {
                    Some(n) => signal = n,
                    None => {
                        return Err(UError::usage(CANCELED, format!("{}: invalid signal", quote(&text))));
                    }
                }
            }
            "kill-after" => {
                let text = value.unwrap_or_default();
                match text.to_str().and_then(parse_duration) {
                    Some(d) => kill_after = Some(d),
                    None => {
                        return Err(UError::usage(CANCELED, format!("invalid time interval {}", quote(&text))));
                    }
                }
            }
            "preserve-status" => preserve = true,
            "foreground" => {}
            "verbose" => verbose = true,
            _ => {}
        }
        Ok(())
    })?;
    if operands.len() < 2 {
        if operands.len() == 1 {
            io.error(format!("missing operand after {}", quote(&operands[0])));
        }
        io.try_help();
        return Ok(CANCELED);
    }
    let duration = match operands[0].to_str().and_then(parse_duration) {
        Some(d) => d,
        None => {
            return Err(UError::usage(CANCELED, format!("invalid time interval {}", quote(&operands[0]))));
        }
    };
    let command = &operands[1..];
    let _ = io.stdout.flush();
    let child = match common::process::start(command, None) {
        Ok(c) => c,
        Err(e) => {
            io.error(format!("failed to run command {}: {}", quote(&command[0]), common::strerror(&e)));
            return Ok(if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 });
        }
    };
    let start = Instant::now();
    let limit = seconds(duration);
    let mut kill_at: Option<Instant> = None;
    let mut timed_out = false;
    let mut killed = false;
    let mut step = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if !timed_out {
                    return Ok(status);
                }
                if killed {
                    return Ok(128 + SIGKILL as i32);
                }
                return Ok(if preserve { status } else { TIMED_OUT });
            }
            Ok(None) => {}
            Err(e) => {
                io.error(format!("error waiting for command: {}", common::strerror(&e)));
                return Ok(CANCELED);
            }
        }
        let now = Instant::now();
        if !timed_out && limit.map_or(false, |l| now.duration_since(start) >= l) {
            timed_out = true;
            send(io, &child, signal, verbose, &command[0]);
            if signal == SIGKILL {
                killed = true;
            } else {
                let _ = child.kill(SIGCONT);
                kill_at = kill_after.and_then(seconds).map(|k| now + k);
            }
        }
        if let Some(at) = kill_at {
            if !killed && now >= at {
                send(io, &child, SIGKILL, verbose, &command[0]);
                killed = true;
            }
        }
        std::thread::sleep(step);
        step = (step * 2).min(Duration::from_millis(20));
    }
}

fn send(io: &mut Io, child: &common::process::Child, signal: u32, verbose: bool, command: &OsString) {
    if verbose {
        let name = signal_name(signal).map(String::from).unwrap_or_else(|| signal.to_string());
        io.error(format!("sending signal {} to command {}", name, quote(command)));
    }
    let _ = child.kill(signal);
}

/// A finite positive duration; 0 (or an unrepresentable one) means no limit.
fn seconds(value: f64) -> Option<Duration> {
    if value > 0.0 && value < 1e12 {
        Some(Duration::from_secs_f64(value))
    } else {
        None
    }
}

const HELP: &str = "Usage: {name} [OPTION] DURATION COMMAND [ARG]...\n  or:  {name} [OPTION]\nStart COMMAND, and kill it if still running after DURATION.\n\n      --preserve-status\n                 exit with the same status as COMMAND, even when the\n                   command times out\n      --foreground\n                 when not running timeout directly from a shell prompt,\n                   allow COMMAND to read from the TTY and get TTY signals\n  -k, --kill-after=DURATION\n                 also send a KILL signal if COMMAND is still running\n                   this long after the initial signal was sent\n  -s, --signal=SIGNAL\n                 specify the signal to be sent on timeout;\n                   SIGNAL may be a name like 'HUP' or a number;\n  -v, --verbose  diagnose to stderr any signal sent upon timeout\n{standard}\nDURATION is a floating point number with an optional suffix:\n's' for seconds (the default), 'm' for minutes, 'h' for hours or 'd' for days.\nA duration of 0 disables the associated timeout.\n\nIf the command times out, and --preserve-status is not set, then exit with\nstatus 124.  Otherwise, exit with the status of COMMAND.  If no signal\nis specified, send the TERM signal upon timeout.\n";
