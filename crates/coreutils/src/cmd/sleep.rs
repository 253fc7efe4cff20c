//! `sleep`: pauses for the sum of its arguments (`1.5`, `2m`, `1h`, `0.5d`, `inf`). In the
//! sandbox the kernel ends the process at the run's deadline; sleeping in slices no longer
//! than the time left makes that happen on time.

use std::ffi::OsString;
use std::time::Duration;

use common::args::{parse, HasArg, Order, Parsed};
use common::duration::parse_duration;
use common::io::quote;
use common::{Io, OptSpec};

const SPEC: &[OptSpec] = &[OptSpec::long("help", "help", HasArg::No), OptSpec::long("version", "version", HasArg::No)];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 1),
    };
    let mut total = 0.0f64;
    let mut count = 0;
    let mut valid = true;
    for item in parsed {
        match item {
            Parsed::Opt { id: "help", .. } => {
                let text = format!("Usage: {0} NUMBER[SUFFIX]...\n  or:  {0} OPTION\nPause for NUMBER seconds.  SUFFIX may be 's' for seconds (the default),\n'm' for minutes, 'h' for hours or 'd' for days.  NUMBER need not be an\ninteger.  Given two or more arguments, pause for the amount of time\nspecified by the sum of their values.\n\n      --help        display this help and exit\n      --version     output version information and exit\n", io.name);
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text("sleep").as_bytes());
                return 0;
            }
            Parsed::Operand(word) => {
                count += 1;
                match word.to_str().and_then(parse_duration) {
                    Some(seconds) => total += seconds,
                    None => {
                        io.error(format!("invalid time interval {}", quote(&word)));
                        valid = false;
                    }
                }
            }
        }
    }
    if count == 0 {
        io.error("missing operand");
        io.try_help();
        return 1;
    }
    if !valid {
        io.try_help();
        return 1;
    }
    sleep_seconds(total);
    0
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
