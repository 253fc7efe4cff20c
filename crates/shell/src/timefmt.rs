//! `strftime` for `printf %(fmt)T` (in UTC: the sandbox has no time zone database).

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
];

struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    weekday: u32,
    yearday: u32,
}

fn civil(epoch: i64) -> Civil {
    let days = epoch.div_euclid(86_400);
    let secs = epoch.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let cumulative = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let yearday = cumulative[(month - 1) as usize] + day - 1 + if leap && month > 2 { 1 } else { 0 };
    Civil {
        year,
        month,
        day,
        hour: (secs / 3600) as u32,
        minute: (secs % 3600 / 60) as u32,
        second: (secs % 60) as u32,
        weekday: (days + 4).rem_euclid(7) as u32,
        yearday,
    }
}

pub fn strftime(format: &str, epoch: i64) -> String {
    let t = civil(epoch);
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let spec = match chars.next() {
            Some(spec) => spec,
            None => {
                out.push('%');
                break;
            }
        };
        let hour12 = if t.hour % 12 == 0 { 12 } else { t.hour % 12 };
        let piece = match spec {
            'Y' => t.year.to_string(),
            'C' => format!("{:02}", t.year / 100),
            'y' => format!("{:02}", t.year % 100),
            'm' => format!("{:02}", t.month),
            'd' => format!("{:02}", t.day),
            'e' => format!("{:2}", t.day),
            'H' => format!("{:02}", t.hour),
            'I' => format!("{:02}", hour12),
            'k' => format!("{:2}", t.hour),
            'l' => format!("{:2}", hour12),
            'M' => format!("{:02}", t.minute),
            'S' => format!("{:02}", t.second),
            'p' => (if t.hour < 12 { "AM" } else { "PM" }).to_string(),
            'P' => (if t.hour < 12 { "am" } else { "pm" }).to_string(),
            'j' => format!("{:03}", t.yearday + 1),
            'a' => DAYS[t.weekday as usize][..3].to_string(),
            'A' => DAYS[t.weekday as usize].to_string(),
            'b' | 'h' => MONTHS[t.month as usize - 1][..3].to_string(),
            'B' => MONTHS[t.month as usize - 1].to_string(),
            'u' => (if t.weekday == 0 { 7 } else { t.weekday }).to_string(),
            'w' => t.weekday.to_string(),
            's' => epoch.to_string(),
            'z' => "+0000".to_string(),
            'Z' => "UTC".to_string(),
            'n' => "\n".to_string(),
            't' => "\t".to_string(),
            '%' => "%".to_string(),
            'F' => format!("{}-{:02}-{:02}", t.year, t.month, t.day),
            'T' => format!("{:02}:{:02}:{:02}", t.hour, t.minute, t.second),
            'R' => format!("{:02}:{:02}", t.hour, t.minute),
            'D' => format!("{:02}/{:02}/{:02}", t.month, t.day, t.year % 100),
            'c' => format!(
                "{} {} {:2} {:02}:{:02}:{:02} {}",
                &DAYS[t.weekday as usize][..3],
                &MONTHS[t.month as usize - 1][..3],
                t.day,
                t.hour,
                t.minute,
                t.second,
                t.year
            ),
            other => format!("%{}", other),
        };
        out.push_str(&piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::strftime;

    #[test]
    fn formats_utc() {
        assert_eq!(strftime("%Y-%m-%d %H:%M:%S %a %j", 0), "1970-01-01 00:00:00 Thu 001");
        assert_eq!(strftime("%F %T", 1_700_000_000), "2023-11-14 22:13:20");
    }
}
