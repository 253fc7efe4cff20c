//! Sizes for people: GNU's `human_readable` with ceiling rounding (`ls -h`, `du -h`,
//! `df -h`: 1.1K, 15M). Parsing sizes with suffixes is `crate::size`.

/// `n` in powers of `base` (1024, or 1000 for --si) with one decimal below 10, rounded up,
/// as GNU's human_readable(human_autoscale | human_ceiling | human_SI [| human_B]).
pub fn human_size(n: u64, base: u64) -> String {
    const UNITS: &[u8] = b"KMGTPEZY";
    if n < base {
        return n.to_string();
    }
    let mut amt = n;
    let mut tenths = 0u64;
    let mut rounding = 0u64; // 0 exact, 1 below half, 2 half, 3 above half
    let mut exponent = 0usize;
    while amt >= base && exponent < UNITS.len() {
        let r10 = (amt % base) * 10 + tenths;
        let r2 = (r10 % base) * 2 + (rounding >> 1);
        amt /= base;
        tenths = r10 / base;
        rounding = if r2 < base { (r2 != 0) as u64 } else { 2 + (base < r2) as u64 };
        exponent += 1;
    }
    let mut fraction = String::new();
    if amt < 10 {
        if rounding > 0 {
            tenths += 1;
            rounding = 0;
            if tenths == 10 {
                amt += 1;
                tenths = 0;
            }
        }
        if amt < 10 {
            fraction = format!(".{}", tenths);
            tenths = 0;
            rounding = 0;
        }
    }
    if tenths + rounding > 0 {
        amt += 1;
        if amt == base && exponent < UNITS.len() {
            exponent += 1;
            amt = 1;
            fraction = ".0".to_string();
        }
    }
    let unit = UNITS[exponent - 1] as char;
    let unit = if base == 1024 || unit != 'K' { unit } else { 'k' };
    format!("{}{}{}", amt, fraction, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human() {
        assert_eq!(human_size(0, 1024), "0");
        assert_eq!(human_size(1023, 1024), "1023");
        assert_eq!(human_size(1024, 1024), "1.0K");
        assert_eq!(human_size(1025, 1024), "1.1K");
        assert_eq!(human_size(4096, 1024), "4.0K");
        assert_eq!(human_size(10 * 1024 + 1, 1024), "11K");
        assert_eq!(human_size(1024 * 1024 - 1, 1024), "1.0M");
        assert_eq!(human_size(1_500_000, 1000), "1.5M");
    }
}
