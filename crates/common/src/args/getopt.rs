//! GNU `getopt_long` semantics: short options may be grouped (`-la`) and take their argument
//! attached or as the next word (`-n5`, `-n 5`); long options take `--name=value` or the next
//! word, and may be abbreviated to any unambiguous prefix; `--` ends options; operands and
//! options may be mixed (permutation) unless the command asks for POSIX order; a lone `-` is
//! an operand. Errors carry GNU's exact wording.

use std::ffi::{OsStr, OsString};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    Required,
    /// Only as `--name=value` or `-xVALUE` (GNU's optional_argument).
    Optional,
}

/// One option a command accepts. `id` is what the parser reports back. Commands write their
/// options as one compact string (see [`table`]); this is its parsed form.
#[derive(Debug, Clone, Copy)]
pub struct OptSpec {
    pub id: &'static str,
    pub short: Option<char>,
    pub long: Option<&'static str>,
    pub arg: HasArg,
}

impl OptSpec {
    pub const fn flag(id: &'static str, short: char, long: &'static str) -> OptSpec {
        OptSpec { id, short: Some(short), long: Some(long), arg: HasArg::No }
    }
    pub const fn short(id: &'static str, short: char, arg: HasArg) -> OptSpec {
        OptSpec { id, short: Some(short), long: None, arg }
    }
    pub const fn long(id: &'static str, long: &'static str, arg: HasArg) -> OptSpec {
        OptSpec { id, short: None, long: Some(long), arg }
    }
    pub const fn both(id: &'static str, short: char, long: &'static str, arg: HasArg) -> OptSpec {
        OptSpec { id, short: Some(short), long: Some(long), arg }
    }
}

/// Reads a command's options written getopt_long-like as one string, which is smaller in the
/// binary than a table of structs and does not repeat a multi-line shape per option: words
/// separated by white space, each `[ID=]NAME[,NAME][:|::]` where a one-letter NAME is the
/// short option and a longer one the long option, `:` means a required argument and `::` an
/// optional one (only attached: `--name=value`, `-xVALUE`). ID, the name the parser reports,
/// defaults to the first NAME: `b,bytes:` reports `b`, `bytes,b:` reports `bytes`.
pub fn table(opts: &'static str) -> Vec<OptSpec> {
    opts.split_ascii_whitespace()
        .map(|word| {
            let (word, arg) = match word.strip_suffix("::") {
                Some(w) => (w, HasArg::Optional),
                None => match word.strip_suffix(':') {
                    Some(w) => (w, HasArg::Required),
                    None => (word, HasArg::No),
                },
            };
            let (id, names) = word.split_once('=').unwrap_or(("", word));
            let mut spec = OptSpec { id, short: None, long: None, arg };
            for name in names.split(',') {
                if spec.id.is_empty() {
                    spec.id = name;
                }
                match name.len() {
                    1 => spec.short = name.chars().next(),
                    _ => spec.long = Some(name),
                }
            }
            spec
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Opt { id: &'static str, value: Option<OsString> },
    Operand(OsString),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    InvalidShort(char),
    UnrecognizedLong(String),
    MissingShortArg(char),
    MissingLongArg(String),
    LongTakesNoArg(String),
    Ambiguous(String, Vec<String>),
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgError::InvalidShort(c) => write!(f, "invalid option -- '{}'", c),
            ArgError::UnrecognizedLong(s) => write!(f, "unrecognized option '{}'", s),
            ArgError::MissingShortArg(c) => write!(f, "option requires an argument -- '{}'", c),
            ArgError::MissingLongArg(s) => write!(f, "option '--{}' requires an argument", s),
            ArgError::LongTakesNoArg(s) => write!(f, "option '--{}' doesn't allow an argument", s),
            ArgError::Ambiguous(s, options) => {
                write!(f, "option '{}' is ambiguous; possibilities:", s)?;
                for o in options {
                    write!(f, " '--{}'", o)?;
                }
                Ok(())
            }
        }
    }
}

/// How option parsing should treat operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// GNU default: options anywhere (unless POSIXLY_CORRECT is set).
    Permute,
    /// Options end at the first operand (env, xargs, nice, timeout: the rest is a command).
    RequireOrder,
}

/// Parses `args` (without argv[0]) against `spec`.
pub fn parse(args: &[OsString], spec: &[OptSpec], order: Order) -> Result<Vec<Parsed>, ArgError> {
    parse_until(args, spec, order, never)
}

/// The test of a command whose options end only at `--` (and its [`Order`]).
pub(super) fn never(_: &[u8]) -> bool {
    false
}

/// [`parse`] whose options also end at the first word `ends` accepts, which is an operand
/// as every word after it is (see [`Command::ends_options`]).
pub fn parse_until(args: &[OsString], spec: &[OptSpec], order: Order, ends: fn(&[u8]) -> bool) -> Result<Vec<Parsed>, ArgError> {
    let posix = order == Order::RequireOrder || std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let bytes = os_bytes(arg);
        i += 1;
        if ends(bytes) {
            out.extend(args[i - 1..].iter().cloned().map(Parsed::Operand));
            break;
        }
        if bytes == b"--" {
            out.extend(args[i..].iter().cloned().map(Parsed::Operand));
            break;
        }
        if bytes.len() >= 2 && bytes.starts_with(b"--") {
            let body = &bytes[2..];
            let (name, attached) = match body.iter().position(|b| *b == b'=') {
                Some(eq) => (&body[..eq], Some(bytes_os(&body[eq + 1..]))),
                None => (body, None),
            };
            let name_str = String::from_utf8_lossy(name).into_owned();
            let option = find_long(spec, &name_str, &String::from_utf8_lossy(bytes))?;
            let long_name = option.long.unwrap_or("");
            let value = match option.arg {
                HasArg::No => {
                    if attached.is_some() {
                        return Err(ArgError::LongTakesNoArg(long_name.to_string()));
                    }
                    None
                }
                HasArg::Optional => attached,
                HasArg::Required => match attached {
                    Some(v) => Some(v),
                    None => {
                        if i < args.len() {
                            i += 1;
                            Some(args[i - 1].clone())
                        } else {
                            return Err(ArgError::MissingLongArg(long_name.to_string()));
                        }
                    }
                },
            };
            out.push(Parsed::Opt { id: option.id, value });
            continue;
        }
        if bytes.len() >= 2 && bytes[0] == b'-' {
            let mut j = 1;
            while j < bytes.len() {
                let c = bytes[j] as char;
                let option = spec.iter().find(|o| o.short == Some(c)).ok_or(ArgError::InvalidShort(c))?;
                j += 1;
                match option.arg {
                    HasArg::No => out.push(Parsed::Opt { id: option.id, value: None }),
                    HasArg::Optional => {
                        let value = if j < bytes.len() { Some(bytes_os(&bytes[j..])) } else { None };
                        out.push(Parsed::Opt { id: option.id, value });
                        break;
                    }
                    HasArg::Required => {
                        let value = if j < bytes.len() {
                            bytes_os(&bytes[j..])
                        } else if i < args.len() {
                            i += 1;
                            args[i - 1].clone()
                        } else {
                            return Err(ArgError::MissingShortArg(c));
                        };
                        out.push(Parsed::Opt { id: option.id, value: Some(value) });
                        break;
                    }
                }
            }
            continue;
        }
        out.push(Parsed::Operand(arg.clone()));
        if posix {
            out.extend(args[i..].iter().cloned().map(Parsed::Operand));
            break;
        }
    }
    Ok(out)
}

fn find_long<'a>(spec: &'a [OptSpec], name: &str, whole: &str) -> Result<&'a OptSpec, ArgError> {
    if let Some(exact) = spec.iter().find(|o| o.long == Some(name)) {
        return Ok(exact);
    }
    let matches: Vec<&OptSpec> = spec.iter().filter(|o| o.long.map_or(false, |l| l.starts_with(name))).collect();
    match matches.len() {
        0 => Err(ArgError::UnrecognizedLong(whole.split('=').next().unwrap_or(whole).to_string())),
        1 => Ok(matches[0]),
        _ => {
            // Several names for the same option are not ambiguous.
            if matches.iter().all(|o| o.id == matches[0].id) {
                return Ok(matches[0]);
            }
            Err(ArgError::Ambiguous(format!("--{}", name), matches.iter().filter_map(|o| o.long.map(String::from)).collect()))
        }
    }
}

/// The bytes of an OS string (on Unix and WASI, OsStr is bytes).
pub fn os_bytes(s: &OsStr) -> &[u8] {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        s.as_bytes()
    }
    #[cfg(target_os = "wasi")]
    {
        use std::os::wasi::ffi::OsStrExt;
        s.as_bytes()
    }
}

/// An OS string from bytes.
pub fn bytes_os(b: &[u8]) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        OsStr::from_bytes(b).to_os_string()
    }
    #[cfg(target_os = "wasi")]
    {
        use std::os::wasi::ffi::OsStrExt;
        OsStr::from_bytes(b).to_os_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTS: &str = "all,a lines,n: color:: count";

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn groups_attached_and_permuted() {
        let parsed = parse(&os(&["x", "-an5", "y", "--lines", "7"]), &table(OPTS), Order::Permute).unwrap();
        assert_eq!(parsed.len(), 5);
        assert_eq!(parsed[2], Parsed::Opt { id: "lines", value: Some("5".into()) });
        assert_eq!(parsed[4], Parsed::Opt { id: "lines", value: Some("7".into()) });
    }

    #[test]
    fn abbreviations_and_errors() {
        assert!(parse(&os(&["--li=3"]), &table(OPTS), Order::Permute).is_ok());
        let err = parse(&os(&["--co"]), &table(OPTS), Order::Permute).unwrap_err();
        assert_eq!(err.to_string(), "option '--co' is ambiguous; possibilities: '--color' '--count'");
        assert_eq!(parse(&os(&["-z"]), &table(OPTS), Order::Permute).unwrap_err().to_string(), "invalid option -- 'z'");
        assert_eq!(parse(&os(&["-n"]), &table(OPTS), Order::Permute).unwrap_err().to_string(), "option requires an argument -- 'n'");
        assert_eq!(parse(&os(&["--nope"]), &table(OPTS), Order::Permute).unwrap_err().to_string(), "unrecognized option '--nope'");
    }

    #[test]
    fn compact_table() {
        let spec = table("b,bytes: lines,n:: q=silent x");
        assert_eq!((spec[0].id, spec[0].short, spec[0].long, spec[0].arg), ("b", Some('b'), Some("bytes"), HasArg::Required));
        assert_eq!((spec[1].id, spec[1].short, spec[1].long, spec[1].arg), ("lines", Some('n'), Some("lines"), HasArg::Optional));
        assert_eq!((spec[2].id, spec[2].short, spec[2].long, spec[2].arg), ("q", None, Some("silent"), HasArg::No));
        assert_eq!((spec[3].id, spec[3].short, spec[3].long), ("x", Some('x'), None));
    }

    #[test]
    fn double_dash_and_lone_dash() {
        let parsed = parse(&os(&["-", "--", "-a"]), &table(OPTS), Order::Permute).unwrap();
        assert_eq!(parsed, vec![Parsed::Operand("-".into()), Parsed::Operand("-a".into())]);
    }

    #[test]
    fn ends_options_at_the_first_word_it_accepts() {
        let ends = |w: &[u8]| w.len() > 2 && w[0] == b'-';
        let parsed = parse_until(&os(&["-n", "-x", "-a", "-name", "-a"]), &table(OPTS), Order::RequireOrder, ends).unwrap();
        assert_eq!(parsed[0], Parsed::Opt { id: "lines", value: Some("-x".into()) }, "an option's argument is not tested");
        assert_eq!(parsed[1..], [Parsed::Opt { id: "all", value: None }, Parsed::Operand("-name".into()), Parsed::Operand("-a".into())]);
    }

    #[test]
    fn require_order_stops_at_first_operand() {
        let parsed = parse(&os(&["cmd", "-a"]), &table(OPTS), Order::RequireOrder).unwrap();
        assert_eq!(parsed, vec![Parsed::Operand("cmd".into()), Parsed::Operand("-a".into())]);
    }
}
