//! numfmt's options: parsing and checking them, and the field selection.

use common::args::bytes_os;
use common::io::quote;

pub const SPEC: &str = "from: from-unit: to: to-unit: round: padding: suffix: grouping delimiter,d: field: debug header:: format: invalid: zero-terminated,z help version";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    None,
    Auto,
    Si,
    Iec,
    IecI,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    Up,
    Down,
    FromZero,
    TowardsZero,
    Nearest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invalid {
    Abort,
    Fail,
    Warn,
    Ignore,
}

pub struct Options {
    pub from: Scale,
    pub to: Scale,
    pub from_unit: u64,
    pub to_unit: u64,
    pub round: Round,
    pub invalid: Invalid,
    pub suffix: Option<Vec<u8>>,
    /// Positive: right-align to this width; negative: left-align; 0: none.
    pub padding: i64,
    pub zero_width: usize,
    pub precision: Option<i64>,
    pub format: Option<Vec<u8>>,
    pub format_prefix: Vec<u8>,
    pub format_suffix: Vec<u8>,
    pub grouping: bool,
    pub delimiter: Option<u8>,
    /// Inclusive field ranges; empty means field 1.
    pub fields: Vec<(usize, usize)>,
    pub header: u64,
    pub line_delim: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            from: Scale::None,
            to: Scale::None,
            from_unit: 1,
            to_unit: 1,
            round: Round::FromZero,
            invalid: Invalid::Abort,
            suffix: None,
            padding: 0,
            zero_width: 0,
            precision: None,
            format: None,
            format_prefix: Vec::new(),
            format_suffix: Vec::new(),
            grouping: false,
            delimiter: None,
            fields: Vec::new(),
            header: 0,
            line_delim: b'\n',
        }
    }
}

/// GNU's argmatch: an exact or unambiguous abbreviated choice, or its error text.
fn choose<T: Copy>(option: &str, value: &[u8], choices: &[(&str, T)]) -> Result<T, String> {
    let text = String::from_utf8_lossy(value);
    if let Some((_, v)) = choices.iter().find(|(name, _)| *name == text) {
        return Ok(*v);
    }
    let matches: Vec<&(&str, T)> = choices.iter().filter(|(name, _)| !text.is_empty() && name.starts_with(&*text)).collect();
    if matches.len() == 1 {
        return Ok(matches[0].1);
    }
    let kind = if matches.is_empty() { "invalid" } else { "ambiguous" };
    let mut message = format!("{} argument {} for {}\nValid arguments are:", kind, quote(&bytes_os(value)), quote(&bytes_os(option.as_bytes())));
    for (name, _) in choices {
        message.push_str(&format!("\n  - {}", quote(&bytes_os(name.as_bytes()))));
    }
    Err(message)
}

/// A unit size: a positive integer with an optional suffix (K = 1000, Ki = 1024).
fn unit_size(value: &[u8]) -> Result<u64, String> {
    let text = String::from_utf8_lossy(value);
    let invalid = || format!("invalid unit size: {}", quote(&bytes_os(value)));
    let digits_end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let number: u64 = text[..digits_end].parse().map_err(|_| invalid())?;
    let suffix = &text[digits_end..];
    let multiplier: u64 = if suffix.is_empty() {
        1
    } else {
        let letter = suffix.as_bytes()[0];
        let power = b"KMGTPEZY".iter().position(|c| *c == letter).ok_or_else(invalid)? as u32 + 1;
        let base: u64 = match &suffix[1..] {
            "" => 1000,
            "i" => 1024,
            _ => return Err(invalid()),
        };
        base.checked_pow(power).ok_or_else(invalid)?
    };
    match number.checked_mul(multiplier) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(invalid()),
    }
}

impl Options {
    pub fn set(&mut self, id: &str, value: Option<Vec<u8>>) -> Result<(), String> {
        let v = value.unwrap_or_default();
        let scales = [("none", Scale::None), ("auto", Scale::Auto), ("si", Scale::Si), ("iec", Scale::Iec), ("iec-i", Scale::IecI)];
        match id {
            "from" => self.from = choose("--from", &v, &scales)?,
            "to" => {
                let to_scales = [("none", Scale::None), ("si", Scale::Si), ("iec", Scale::Iec), ("iec-i", Scale::IecI)];
                self.to = choose("--to", &v, &to_scales)?
            }
            "from-unit" => self.from_unit = unit_size(&v)?,
            "to-unit" => self.to_unit = unit_size(&v)?,
            "round" => {
                let modes = [("up", Round::Up), ("down", Round::Down), ("from-zero", Round::FromZero), ("towards-zero", Round::TowardsZero), ("nearest", Round::Nearest)];
                self.round = choose("--round", &v, &modes)?
            }
            "invalid" => {
                let modes = [("abort", Invalid::Abort), ("fail", Invalid::Fail), ("warn", Invalid::Warn), ("ignore", Invalid::Ignore)];
                self.invalid = choose("--invalid", &v, &modes)?
            }
            "padding" => {
                let n = String::from_utf8_lossy(&v).parse::<i64>().unwrap_or(0);
                if n == 0 {
                    return Err(format!("invalid padding value {}", quote(&bytes_os(&v))));
                }
                self.padding = n;
            }
            "suffix" => self.suffix = Some(v),
            "grouping" => self.grouping = true,
            "delimiter" => {
                if v.len() > 1 {
                    return Err("the delimiter must be a single character".to_string());
                }
                self.delimiter = Some(v.first().copied().unwrap_or(0));
            }
            "field" => {
                if !self.fields.is_empty() {
                    return Err("multiple field specifications".to_string());
                }
                self.fields = parse_fields(&v)?;
            }
            "header" => {
                self.header = if v.is_empty() {
                    1
                } else {
                    match String::from_utf8_lossy(&v).parse::<u64>() {
                        Ok(n) if n > 0 => n,
                        _ => return Err(format!("invalid header value {}", quote(&bytes_os(&v)))),
                    }
                }
            }
            "format" => self.format = Some(v),
            "zero-terminated" => self.line_delim = 0,
            _ => {}
        }
        Ok(())
    }

    /// Checks combinations and parses --format.
    pub fn finish(&mut self) -> Result<(), String> {
        if self.format.is_some() && self.grouping {
            return Err("--grouping cannot be combined with --format".to_string());
        }
        if let Some(format) = self.format.clone() {
            self.parse_format(&format)?;
        }
        if self.grouping && self.to != Scale::None {
            return Err("grouping cannot be combined with --to".to_string());
        }
        Ok(())
    }

    /// GNU's parse_format_string: `%[0]['][-][N][.N]f` with a literal prefix and suffix.
    fn parse_format(&mut self, format: &[u8]) -> Result<(), String> {
        let shown = quote(&bytes_os(format));
        let mut i = 0;
        let mut prefix_len = 0;
        loop {
            if i >= format.len() {
                return Err(format!("format {} has no % directive", shown));
            }
            if format[i] == b'%' && format.get(i + 1) != Some(&b'%') {
                break;
            }
            i += if format[i] == b'%' { 2 } else { 1 };
            prefix_len += 1;
        }
        // GNU keeps the prefix's first `prefix_len` bytes as they are (`%%` included).
        self.format_prefix = format[..prefix_len.min(format.len())].to_vec();
        i += 1;
        let mut zero = false;
        loop {
            let skip = format[i..].iter().take_while(|c| **c == b' ').count();
            i += skip;
            match format.get(i) {
                Some(b'\'') => {
                    self.grouping = true;
                    i += 1;
                }
                Some(b'0') => {
                    zero = true;
                    i += 1;
                }
                _ if skip == 0 => break,
                _ => {}
            }
        }
        let start = i;
        if matches!(format.get(i), Some(b'-') | Some(b'+')) {
            i += 1;
        }
        while i < format.len() && format[i].is_ascii_digit() {
            i += 1;
        }
        let width: i64 = std::str::from_utf8(&format[start..i]).ok().and_then(|t| t.parse().ok()).unwrap_or(0);
        if width != 0 {
            if width < 0 {
                self.padding = width;
            } else if zero {
                self.zero_width = width as usize;
            } else {
                self.padding = width;
            }
        }
        if i >= format.len() {
            return Err(format!("format {} ends in %", shown));
        }
        if format[i] == b'.' {
            i += 1;
            let p_start = i;
            if matches!(format.get(i), Some(b' ') | Some(b'\t') | Some(b'+')) {
                return Err(format!("invalid precision in format {}", shown));
            }
            if format.get(i) == Some(&b'-') {
                i += 1;
            }
            while i < format.len() && format[i].is_ascii_digit() {
                i += 1;
            }
            let precision: i64 = std::str::from_utf8(&format[p_start..i]).ok().and_then(|t| if t.is_empty() { Some(0) } else { t.parse().ok() }).unwrap_or(-1);
            if precision < 0 {
                return Err(format!("invalid precision in format {}", shown));
            }
            self.precision = Some(precision);
        }
        if format.get(i) != Some(&b'f') {
            return Err(format!("invalid format {}, directive must be %[0]['][-][N][.][N]f", shown));
        }
        i += 1;
        let suffix_start = i;
        while i < format.len() {
            if format[i] == b'%' {
                if format.get(i + 1) != Some(&b'%') {
                    return Err(format!("format {} has too many % directives", shown));
                }
                i += 2;
            } else {
                i += 1;
            }
        }
        self.format_suffix = format[suffix_start..].to_vec();
        Ok(())
    }

    pub fn auto_padding(&self) -> bool {
        self.padding == 0 && self.delimiter.is_none()
    }

    pub fn includes(&self, field: usize) -> bool {
        if self.fields.is_empty() {
            return field == 1;
        }
        self.fields.iter().any(|(lo, hi)| *lo <= field && field <= *hi)
    }
}

/// cut-style field list: `N`, `N-`, `N-M`, `-M`, `-`, comma separated.
fn parse_fields(spec: &[u8]) -> Result<Vec<(usize, usize)>, String> {
    let text = String::from_utf8_lossy(spec).into_owned();
    let mut out = Vec::new();
    for part in text.split(|c| c == ',' || c == ' ') {
        let invalid = || format!("invalid field value {}", quote(&bytes_os(part.as_bytes())));
        let number = |t: &str| -> Result<usize, String> {
            let n: usize = t.parse().map_err(|_| invalid())?;
            if n == 0 {
                return Err("fields are numbered from 1".to_string());
            }
            Ok(n)
        };
        let range = match part.split_once('-') {
            None => {
                let n = number(part)?;
                (n, n)
            }
            Some((lo, hi)) => {
                let lo = if lo.is_empty() { 1 } else { number(lo)? };
                let hi = if hi.is_empty() { usize::MAX } else { number(hi)? };
                if hi < lo {
                    return Err("invalid decreasing range".to_string());
                }
                (lo, hi)
            }
        };
        out.push(range);
    }
    Ok(out)
}

pub const HELP: &str = "Usage: {name} [OPTION]... [NUMBER]...\nReformat NUMBER(s), or the numbers from standard input if none are specified.\n\nMandatory arguments to long options are mandatory for short options too.\n      --debug          print warnings about invalid input\n  -d, --delimiter=X    use X instead of whitespace for field delimiter\n      --field=FIELDS   replace the numbers in these input fields (default=1);\n                         see FIELDS below\n      --format=FORMAT  use printf style floating-point FORMAT;\n                         see FORMAT below for details\n      --from=UNIT      auto-scale input numbers to UNITs; default is 'none';\n                         see UNIT below\n      --from-unit=N    specify the input unit size (instead of the default 1)\n      --grouping       use locale-defined grouping of digits, e.g. 1,000,000\n                         (which means it has no effect in the C/POSIX locale)\n      --header[=N]     print (without converting) the first N header lines;\n                         N defaults to 1 if not specified\n      --invalid=MODE   failure mode for invalid numbers: MODE can be:\n                         abort (default), fail, warn, ignore\n      --padding=N      pad the output to N characters; positive N will\n                         right-align; negative N will left-align;\n                         padding is ignored if the output is wider than N;\n                         the default is to automatically pad if a whitespace\n                         is found\n      --round=METHOD   use METHOD for rounding when scaling; METHOD can be:\n                         up, down, from-zero (default), towards-zero, nearest\n      --suffix=SUFFIX  add SUFFIX to output numbers, and accept optional\n                         SUFFIX in input numbers\n      --to=UNIT        auto-scale output numbers to UNITs; see UNIT below\n      --to-unit=N      the output unit size (instead of the default 1)\n  -z, --zero-terminated    line delimiter is NUL, not newline\n{standard}";
