//! Signal names and numbers (Linux numbering, as the sandbox kernel uses): for `kill`,
//! `timeout -s`, `env --default-signal` and messages.

const SIGNALS: &[(&str, u32)] = &[
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("ILL", 4),
    ("TRAP", 5),
    ("ABRT", 6),
    ("BUS", 7),
    ("FPE", 8),
    ("KILL", 9),
    ("USR1", 10),
    ("SEGV", 11),
    ("USR2", 12),
    ("PIPE", 13),
    ("ALRM", 14),
    ("TERM", 15),
    ("STKFLT", 16),
    ("CHLD", 17),
    ("CONT", 18),
    ("STOP", 19),
    ("TSTP", 20),
    ("TTIN", 21),
    ("TTOU", 22),
    ("URG", 23),
    ("XCPU", 24),
    ("XFSZ", 25),
    ("VTALRM", 26),
    ("PROF", 27),
    ("WINCH", 28),
    ("POLL", 29),
    ("PWR", 30),
    ("SYS", 31),
];

/// A signal by name (`TERM`, `SIGTERM`, case-sensitive like GNU) or number (`15`, `0`).
pub fn signal_number(text: &str) -> Option<u32> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<u32>().ok().filter(|n| *n <= 64);
    }
    let name = text.strip_prefix("SIG").unwrap_or(text);
    match name {
        "IO" => return Some(29),
        "IOT" => return Some(6),
        "CLD" => return Some(17),
        _ => {}
    }
    SIGNALS.iter().find(|(n, _)| *n == name).map(|(_, number)| *number)
}

/// The name of signal `number` without `SIG` (`TERM`), if it has one.
pub fn signal_name(number: u32) -> Option<&'static str> {
    SIGNALS.iter().find(|(_, n)| *n == number).map(|(name, _)| *name)
}

/// Every (name, number), in number order.
pub fn all() -> &'static [(&'static str, u32)] {
    SIGNALS
}
