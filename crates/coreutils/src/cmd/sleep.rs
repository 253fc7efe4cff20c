//! `sleep`: pauses for the sum of its arguments (`1.5`, `2m`, `1h`, `0.5d`, `inf`). In the
//! sandbox the kernel ends the process at the run's deadline; sleeping in slices no longer
//! than the time left makes that happen on time.

use std::ffi::OsString;
use std::time::Duration;

use common::duration::parse_duration;
use common::io::quote;
use common::{Command, Io, UError};

const HELP: &str = "Usage: {name} NUMBER[SUFFIX]...\n  or:  {name} OPTION\nPause for NUMBER seconds.  SUFFIX may be 's' for seconds (the default),\n'm' for minutes, 'h' for hours or 'd' for days.  NUMBER need not be an\ninteger.  Given two or more arguments, pause for the amount of time\nspecified by the sum of their values.\n\n{standard}";

const SLEEP: Command = Command::compact("sleep", "", HELP).operands_between(1, usize::MAX);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut total = 0.0f64;
    let mut valid = true;
    for word in SLEEP.operands(&args, io, &mut |_, _, _| Ok(()))? {
        match word.to_str().and_then(parse_duration) {
            Some(seconds) => total += seconds,
            None => {
                io.error(format!("invalid time interval {}", quote(&word)));
                valid = false;
            }
        }
    }
    if !valid {
        io.try_help();
        return Ok(1);
    }
    sleep_seconds(total);
    Ok(0)
}

/// Sleeps `seconds` (possibly infinite) in slices bounded by the run's deadline.
pub fn sleep_seconds(seconds: f64) {
    let mut remaining = seconds;
    while remaining > 0.0 {
        let mut slice = remaining.min(86400.0);
        if let Some(ms) = airlock_sys::deadline_remaining_ms() {
            slice = slice.min(ms as f64 / 1000.0 + 0.001);
        }
        std::thread::sleep(Duration::from_secs_f64(slice.max(0.0)));
        if remaining.is_finite() {
            remaining -= slice;
        }
    }
}
