//! hexdump's format strings (`-e`, `-f`, and the built-in `-C`/`-b`/... formats, which are
//! format strings too): parsing into format units `[reps]/[bytes] "text %conv..."` and
//! printing a conversion with C printf flags, width and precision.

/// What one conversion prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conv {
    /// Literal text only.
    Text,
    /// `%_a[dox]`: the offset of the current byte.
    Address(u8),
    /// `%_A[dox]`: the offset after all input, printed once at the end.
    EndAddress(u8),
    /// `%_c`: character or C escape or 3-digit octal.
    CharEscaped,
    /// `%_p`: printable character or '.'.
    Printable,
    /// `%_u`: US-ASCII control names.
    Names,
    Char,
    Signed,
    Unsigned(u8),
    Float(u8),
    Str,
    /// Blank padding after the end of the input.
    Blank,
}

/// One conversion with the literal text before it (C's printf pieces).
#[derive(Clone, Debug)]
pub struct Pr {
    pub text: Vec<u8>,
    pub conv: Conv,
    pub flags: Vec<u8>,
    pub width: Option<usize>,
    pub precision: Option<usize>,
    pub bytes: usize,
    /// Set on a unit's last piece when it repeats: its final whitespace character is dropped
    /// on the last iteration.
    pub nospace: bool,
}

#[derive(Clone, Debug)]
pub struct Unit {
    pub reps: usize,
    pub bytes: usize,
    pub set_reps: bool,
    pub prs: Vec<Pr>,
    /// Holds `%_A`: printed only at the end, skipped (with the rest of its format) per block.
    pub ignore: bool,
}

/// One format string (a `-e` argument or a line of a `-f` file).
#[derive(Clone, Debug)]
pub struct Format {
    pub units: Vec<Unit>,
    pub bytes: usize,
}

/// C-style escapes in format text.
fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' {
            i += 1;
            match raw.get(i) {
                None => {
                    out.push(b'\\');
                    break;
                }
                Some(b'a') => out.push(7),
                Some(b'b') => out.push(8),
                Some(b'f') => out.push(12),
                Some(b'n') => out.push(b'\n'),
                Some(b'r') => out.push(b'\r'),
                Some(b't') => out.push(b'\t'),
                Some(b'v') => out.push(11),
                Some(c) => out.push(*c),
            }
        } else {
            out.push(raw[i]);
        }
        i += 1;
    }
    out
}

fn skip_space(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn number(s: &[u8], i: &mut usize) -> usize {
    let start = *i;
    while *i < s.len() && s[*i].is_ascii_digit() {
        *i += 1;
    }
    std::str::from_utf8(&s[start..*i]).ok().and_then(|t| t.parse().ok()).unwrap_or(0)
}

/// Parses one format string into units (util-linux's add_fmt + rewrite).
pub fn parse(fmt: &[u8]) -> Result<Format, String> {
    let bad = || format!("bad format {{{}}}", String::from_utf8_lossy(fmt));
    let mut units = Vec::new();
    let mut i = 0;
    loop {
        i = skip_space(fmt, i);
        if i >= fmt.len() {
            break;
        }
        let mut unit = Unit { reps: 1, bytes: 0, set_reps: false, prs: Vec::new(), ignore: false };
        if fmt[i].is_ascii_digit() {
            unit.reps = number(fmt, &mut i);
            unit.set_reps = true;
            if i < fmt.len() && !(fmt[i].is_ascii_whitespace() || fmt[i] == b'/') {
                return Err(bad());
            }
            if i < fmt.len() && fmt[i] != b'/' {
                i = skip_space(fmt, i + 1);
            }
        }
        if i < fmt.len() && fmt[i] == b'/' {
            i = skip_space(fmt, i + 1);
        }
        if i < fmt.len() && fmt[i].is_ascii_digit() {
            unit.bytes = number(fmt, &mut i);
            if i < fmt.len() && !fmt[i].is_ascii_whitespace() && fmt[i] != b'"' {
                return Err(bad());
            }
            i = skip_space(fmt, i);
        }
        if i >= fmt.len() || fmt[i] != b'"' {
            return Err(bad());
        }
        let start = i + 1;
        let end = match fmt[start..].iter().position(|c| *c == b'"') {
            Some(e) => start + e,
            None => return Err(bad()),
        };
        let text = unescape(&fmt[start..end]);
        i = end + 1;
        split_conversions(&text, &mut unit)?;
        units.push(unit);
    }
    let bytes = units.iter().map(|u| u.bytes * u.reps).sum();
    Ok(Format { units, bytes })
}

/// Splits a unit's text into pieces of `text %conversion` and works out their byte counts.
fn split_conversions(text: &[u8], unit: &mut Unit) -> Result<(), String> {
    let mut i = 0;
    let mut conversions = 0;
    let explicit = unit.bytes;
    while i < text.len() {
        let start = i;
        while i < text.len() && text[i] != b'%' {
            i += 1;
        }
        if i >= text.len() {
            unit.prs.push(Pr { text: text[start..].to_vec(), conv: Conv::Text, flags: Vec::new(), width: None, precision: None, bytes: 0, nospace: false });
            break;
        }
        let literal = text[start..i].to_vec();
        let conv_start = i;
        i += 1;
        let flags_start = i;
        while i < text.len() && b" -0+#".contains(&text[i]) {
            i += 1;
        }
        let flags = text[flags_start..i].to_vec();
        let width = if i < text.len() && text[i].is_ascii_digit() { Some(number(text, &mut i)) } else { None };
        let precision = if i < text.len() && text[i] == b'.' {
            i += 1;
            Some(number(text, &mut i))
        } else {
            None
        };
        let spec = String::from_utf8_lossy(&text[conv_start..(i + 1).min(text.len())]).into_owned();
        let c = *text.get(i).ok_or_else(|| format!("bad conversion character {}", spec))?;
        i += 1;
        let bad_count = |conv: &str| format!("bad byte count for conversion character {}", conv);
        let count = |allowed: &[usize], default: usize, conv: &str| -> Result<usize, String> {
            match explicit {
                0 => Ok(default),
                n if allowed.contains(&n) => Ok(n),
                _ => Err(bad_count(conv)),
            }
        };
        let (conv, bytes) = match c {
            b'c' => (Conv::Char, count(&[1], 1, "c")?),
            b'd' | b'i' => (Conv::Signed, count(&[1, 2, 4, 8], 4, &(c as char).to_string())?),
            b'o' | b'u' | b'x' | b'X' => (Conv::Unsigned(c), count(&[1, 2, 4, 8], 4, &(c as char).to_string())?),
            b'e' | b'E' | b'f' | b'g' | b'G' => (Conv::Float(c), count(&[4, 8], 8, &(c as char).to_string())?),
            b's' => {
                let n = match (precision, explicit) {
                    (Some(p), _) => p,
                    (None, n) if n > 0 => n,
                    _ => return Err("%s requires a precision or a byte count".to_string()),
                };
                (Conv::Str, n)
            }
            b'_' => {
                let sub = *text.get(i).ok_or_else(|| format!("bad conversion character %_"))?;
                i += 1;
                match sub {
                    b'a' | b'A' => {
                        let radix = *text.get(i).unwrap_or(&0);
                        if !matches!(radix, b'd' | b'o' | b'x') {
                            return Err(format!("bad conversion character %_{}{}", sub as char, if radix == 0 { String::new() } else { (radix as char).to_string() }));
                        }
                        i += 1;
                        if sub == b'A' {
                            unit.ignore = true;
                            (Conv::EndAddress(radix), 0)
                        } else {
                            (Conv::Address(radix), 0)
                        }
                    }
                    b'c' => (Conv::CharEscaped, count(&[1], 1, "_c")?),
                    b'p' => (Conv::Printable, count(&[1], 1, "_p")?),
                    b'u' => (Conv::Names, count(&[1], 1, "_u")?),
                    other => return Err(format!("bad conversion character %_{}", other as char)),
                }
            }
            other => return Err(format!("bad conversion character %{}", other as char)),
        };
        if !matches!(conv, Conv::Address(_) | Conv::EndAddress(_)) {
            if explicit > 0 && conversions > 0 {
                return Err("byte count with multiple conversion characters".to_string());
            }
            conversions += 1;
        }
        unit.prs.push(Pr { text: literal, conv, flags, width, precision, bytes, nospace: false });
    }
    if unit.bytes == 0 {
        unit.bytes = unit.prs.iter().map(|p| p.bytes).sum();
    }
    Ok(())
}

/// util-linux's rewrite step once the block size is known: the last unit of a shorter
/// format repeats to fill the block, and repeated units lose their final trailing space.
pub fn finish(formats: &mut [Format], block: usize) {
    for f in formats.iter_mut() {
        let total = f.bytes;
        let count = f.units.len();
        for (index, unit) in f.units.iter_mut().enumerate() {
            if index + 1 == count && total < block && !unit.set_reps && unit.bytes > 0 {
                unit.reps += (block - total) / unit.bytes;
            }
            if unit.reps > 1 {
                if let Some(last) = unit.prs.last_mut() {
                    let tail: &[u8] = if last.conv == Conv::Text { &last.text } else { &[] };
                    last.nospace = tail.last().map_or(false, |c| c.is_ascii_whitespace());
                }
            }
        }
    }
}

const NAMES: [&str; 32] = [
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "lf", "vt", "ff", "cr", "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs", "rs", "us",
];

fn little_endian(data: &[u8]) -> u64 {
    data.iter().rev().fold(0u64, |v, b| v << 8 | *b as u64)
}

/// Prints one piece for the data at `data` (address `address`); `last` drops the trailing
/// space of a repeated unit's final iteration.
pub fn print(pr: &Pr, data: &[u8], address: u64, last: bool, out: &mut Vec<u8>) {
    let text: &[u8] = if pr.conv == Conv::Text && last && pr.nospace { &pr.text[..pr.text.len() - 1] } else { &pr.text };
    out.extend_from_slice(text);
    let p = Printf { flags: &pr.flags, width: pr.width, precision: pr.precision };
    match pr.conv {
        Conv::Text => {}
        Conv::Blank => p.string(b"", out),
        Conv::Address(r) | Conv::EndAddress(r) => p.unsigned(address, r, out),
        Conv::Char => p.string(&data[..1], out),
        Conv::Printable => {
            let c = data[0];
            p.string(&[if (0x20..0x7f).contains(&c) { c } else { b'.' }], out)
        }
        Conv::CharEscaped => {
            let c = data[0];
            let escaped: Option<&[u8]> = match c {
                0 => Some(b"\\0"),
                7 => Some(b"\\a"),
                8 => Some(b"\\b"),
                12 => Some(b"\\f"),
                10 => Some(b"\\n"),
                13 => Some(b"\\r"),
                9 => Some(b"\\t"),
                11 => Some(b"\\v"),
                _ => None,
            };
            match escaped {
                Some(e) => p.string(e, out),
                None if (0x20..0x7f).contains(&c) => p.string(&[c], out),
                None => p.string(format!("{:03o}", c).as_bytes(), out),
            }
        }
        Conv::Names => {
            let c = data[0];
            if c < 32 {
                p.string(NAMES[c as usize].as_bytes(), out)
            } else if c == 127 {
                p.string(b"del", out)
            } else if c < 127 {
                p.string(&[c], out)
            } else {
                p.unsigned(c as u64, b'x', out)
            }
        }
        Conv::Signed => {
            let v = little_endian(&data[..pr.bytes]);
            let shift = 64 - 8 * pr.bytes as u32;
            p.signed(((v << shift) as i64) >> shift, out)
        }
        Conv::Unsigned(c) => p.unsigned(little_endian(&data[..pr.bytes]), c, out),
        Conv::Float(c) => {
            let v = little_endian(&data[..pr.bytes]);
            let x = if pr.bytes == 4 { f32::from_bits(v as u32) as f64 } else { f64::from_bits(v) };
            p.float(x, c, out)
        }
        Conv::Str => {
            let s = &data[..pr.bytes.min(data.len())];
            let end = s.iter().position(|b| *b == 0).unwrap_or(s.len());
            p.string(&s[..end], out)
        }
    }
}

/// The flags, width and precision of one C printf conversion.
struct Printf<'a> {
    flags: &'a [u8],
    width: Option<usize>,
    precision: Option<usize>,
}

impl<'a> Printf<'a> {
    fn has(&self, f: u8) -> bool {
        self.flags.contains(&f)
    }

    /// Pads `body` (after `sign`/prefix) to the width.
    fn pad(&self, prefix: &str, body: &[u8], zero_ok: bool, out: &mut Vec<u8>) {
        let len = prefix.len() + body.len();
        let width = self.width.unwrap_or(0);
        if self.has(b'-') {
            out.extend_from_slice(prefix.as_bytes());
            out.extend_from_slice(body);
            out.extend(std::iter::repeat(b' ').take(width.saturating_sub(len)));
        } else if zero_ok && self.has(b'0') {
            out.extend_from_slice(prefix.as_bytes());
            out.extend(std::iter::repeat(b'0').take(width.saturating_sub(len)));
            out.extend_from_slice(body);
        } else {
            out.extend(std::iter::repeat(b' ').take(width.saturating_sub(len)));
            out.extend_from_slice(prefix.as_bytes());
            out.extend_from_slice(body);
        }
    }

    fn string(&self, s: &[u8], out: &mut Vec<u8>) {
        let s = match self.precision {
            Some(p) if p < s.len() => &s[..p],
            _ => s,
        };
        self.pad("", s, false, out)
    }

    fn digits(&self, digits: String) -> String {
        match self.precision {
            Some(0) if digits == "0" => String::new(),
            Some(p) if digits.len() < p => format!("{}{}", "0".repeat(p - digits.len()), digits),
            _ => digits,
        }
    }

    /// What goes before a signed number: `-`, or what the `+` and ` ` flags ask for.
    fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.has(b'+') {
            "+"
        } else if self.has(b' ') {
            " "
        } else {
            ""
        }
    }

    fn signed(&self, v: i64, out: &mut Vec<u8>) {
        let sign = self.sign(v < 0);
        let body = self.digits(v.unsigned_abs().to_string());
        self.pad(sign, body.as_bytes(), self.precision.is_none(), out)
    }

    fn unsigned(&self, v: u64, conv: u8, out: &mut Vec<u8>) {
        let (digits, prefix) = match conv {
            b'o' => {
                let d = self.digits(format!("{:o}", v));
                let d = if self.has(b'#') && !d.starts_with('0') { format!("0{}", d) } else { d };
                (d, "")
            }
            b'x' => (self.digits(format!("{:x}", v)), if self.has(b'#') && v != 0 { "0x" } else { "" }),
            b'X' => (self.digits(format!("{:X}", v)), if self.has(b'#') && v != 0 { "0X" } else { "" }),
            _ => (self.digits(v.to_string()), ""),
        };
        self.pad(prefix, digits.as_bytes(), self.precision.is_none(), out)
    }

    fn float(&self, x: f64, conv: u8, out: &mut Vec<u8>) {
        let sign = self.sign(x.is_sign_negative() && !x.is_nan());
        let upper = conv.is_ascii_uppercase();
        let a = x.abs();
        let body = if a.is_nan() {
            "nan".to_string()
        } else if a.is_infinite() {
            "inf".to_string()
        } else {
            let precision = self.precision.unwrap_or(6);
            match conv.to_ascii_lowercase() {
                b'e' => exp_form(a, precision),
                b'f' => format!("{:.*}", precision, a),
                _ => super::super::cmd_od::format_g(a, precision.max(1)),
            }
        };
        let body = if upper { body.to_uppercase() } else { body };
        self.pad(sign, body.as_bytes(), a.is_finite(), out)
    }
}

/// C's `%.Ne`: mantissa with N decimals, exponent with sign and at least two digits.
fn exp_form(a: f64, precision: usize) -> String {
    let s = format!("{:.*e}", precision, a);
    match s.split_once('e') {
        Some((m, e)) => {
            let e: i32 = e.parse().unwrap_or(0);
            format!("{}e{}{:02}", m, if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => s,
    }
}
