//! `time pipeline`: elapsed (and, where the OS interface can tell, CPU) time on stderr.

use shell_parser::ast::TimeMode;

use crate::shell::Shell;

impl Shell {
    pub(crate) fn times_now(&mut self) -> u64 {
        self.sys.monotonic_ns()
    }

    #[inline(never)]
    pub(crate) fn report_times(&mut self, started: u64, mode: TimeMode) {
        let elapsed = self.sys.monotonic_ns().saturating_sub(started);
        let seconds = elapsed as f64 / 1e9;
        let text = match mode {
            TimeMode::Posix => format!("real {:.2}\nuser {:.2}\nsys {:.2}\n", seconds, 0.0, 0.0),
            TimeMode::Bash => match self.get_scalar("TIMEFORMAT") {
                Some(format) => format!("{}\n", timeformat(&format, seconds)),
                None => format!("\nreal\t{}\nuser\t{}\nsys\t{}\n", minutes(seconds), minutes(0.0), minutes(0.0)),
            },
        };
        self.write_err(&text);
    }
}

fn minutes(seconds: f64) -> String {
    let whole = seconds.floor() as u64;
    format!("{}m{:.3}s", whole / 60, seconds - (whole / 60 * 60) as f64)
}

/// `TIMEFORMAT`: `%[p][l]R|U|S|P` and `%%`.
fn timeformat(format: &str, real: f64) -> String {
    let mut out = String::new();
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut precision = 3;
        let mut long = false;
        if let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
            precision = d.min(3) as usize;
            i += 1;
        }
        if chars.get(i) == Some(&'l') {
            long = true;
            i += 1;
        }
        let value = match chars.get(i) {
            Some('R') => real,
            Some('U') | Some('S') => 0.0,
            Some('P') => 0.0,
            Some('%') => {
                out.push('%');
                i += 1;
                continue;
            }
            _ => {
                out.push('%');
                continue;
            }
        };
        i += 1;
        if long {
            let whole = value.floor() as u64;
            out.push_str(&format!("{}m{:.*}s", whole / 60, precision, value - (whole / 60 * 60) as f64));
        } else {
            out.push_str(&format!("{:.*}", precision, value));
        }
    }
    out
}
