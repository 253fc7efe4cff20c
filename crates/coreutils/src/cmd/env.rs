//! `env`: prints the environment, or runs a command in a modified one: `-i` (or a lone `-`)
//! starts empty, `-u NAME` unsets, `NAME=VALUE` sets, `-C DIR` changes directory, `-0` ends
//! printed lines with NUL, `-S STRING` splits one argument into several (for `#!` lines),
//! `-v` traces to stderr. Status 125 for env's own errors, 126/127 when the command cannot
//! run / is not found, else the command's status.

use std::ffi::OsString;
use std::io::ErrorKind;

use common::args::{bytes_os, os_bytes, Order, Parsed};
use common::io::quote;
use common::{Command, Io, UError};

const SPEC: &str = "ignore-environment,i null,0 unset,u: chdir,C: split-string,S: debug,v default-signal:: ignore-signal:: block-signal:: list-signal-handling";

const ENV: Command = Command { usage_status: CANCELED, order: Order::RequireOrder, ..Command::compact("env", SPEC, HELP) };

const CANCELED: i32 = 125;

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let args = match expand_split_strings(&args[1..]) {
        Ok(a) => a,
        Err(message) => {
            io.error(message);
            return Ok(CANCELED);
        }
    };
    let mut ignore = false;
    let mut terminator = b'\n';
    let mut unset: Vec<OsString> = Vec::new();
    let mut chdir: Option<OsString> = None;
    let mut debug = false;
    let mut operands: Vec<OsString> = Vec::new();
    ENV.options_after_name(&args, io, &mut |_, p| {
        match p {
            Parsed::Opt { id: "ignore-environment", .. } => ignore = true,
            Parsed::Opt { id: "null", .. } => terminator = 0,
            Parsed::Opt { id: "unset", value } => unset.extend(value),
            Parsed::Opt { id: "chdir", value } => chdir = value,
            Parsed::Opt { id: "debug", .. } => debug = true,
            Parsed::Opt { id: "split-string", .. } => {}
            Parsed::Opt { id, .. } => {
                return Err(UError::new(CANCELED, format!("option not supported in the sandbox: --{}", id)));
            }
            Parsed::Operand(o) => operands.push(o),
        }
        Ok(())
    })?;
    if operands.first().map_or(false, |o| os_bytes(o) == b"-") {
        ignore = true;
        operands.remove(0);
    }
    let mut env: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    if ignore {
        if debug {
            let _ = writeln!(io.stderr, "cleaning environ");
        }
    } else {
        env = std::env::vars_os().map(|(k, v)| (os_bytes(&k).to_vec(), os_bytes(&v).to_vec())).collect();
    }
    for name in &unset {
        let name = os_bytes(name);
        if name.is_empty() || name.contains(&b'=') {
            io.error(format!("cannot unset {}: Invalid argument", quote(&bytes_os(name))));
            return Ok(CANCELED);
        }
        if debug {
            let _ = writeln!(io.stderr, "unset:    {}", String::from_utf8_lossy(name));
        }
        env.retain(|(k, _)| k != name);
    }
    let mut command_start = operands.len();
    for (i, operand) in operands.iter().enumerate() {
        let bytes = os_bytes(operand);
        let eq = match bytes.iter().position(|b| *b == b'=') {
            Some(eq) => eq,
            None => {
                command_start = i;
                break;
            }
        };
        if debug {
            let _ = writeln!(io.stderr, "setenv:   {}", String::from_utf8_lossy(bytes));
        }
        let (key, value) = (bytes[..eq].to_vec(), bytes[eq + 1..].to_vec());
        match env.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => env.push((key, value)),
        }
    }
    let command = &operands[command_start..];
    if command.is_empty() {
        if chdir.is_some() {
            return Err(UError::usage(CANCELED, "must specify command with --chdir (-C)"));
        }
        let mut out = Vec::new();
        for (key, value) in &env {
            out.extend_from_slice(key);
            out.push(b'=');
            out.extend_from_slice(value);
            out.push(terminator);
        }
        let _ = io.out(&out);
        return Ok(0);
    }
    if terminator == 0 {
        return Err(UError::usage(CANCELED, "cannot specify --null (-0) with command"));
    }
    if let Some(dir) = &chdir {
        if let Err(e) = change_dir(dir) {
            io.error(format!("cannot change directory to {}: {}", quote(dir), common::strerror(&e)));
            return Ok(CANCELED);
        }
    }
    if debug {
        let _ = writeln!(io.stderr, "executing: {}", command[0].to_string_lossy());
        for (i, arg) in command.iter().enumerate() {
            let _ = writeln!(io.stderr, "   arg[{}]= {}", i, quote(arg));
        }
    }
    let env_list: Vec<OsString> = env
        .iter()
        .map(|(k, v)| {
            let mut entry = k.clone();
            entry.push(b'=');
            entry.extend_from_slice(v);
            bytes_os(&entry)
        })
        .collect();
    let _ = io.stdout.flush();
    Ok(match common::process::run_and_wait_env(command, &env_list) {
        Ok(status) => status,
        Err(e) => {
            io.error(format!("{}: {}", quote(&command[0]), common::strerror(&e)));
            if e.kind() == ErrorKind::NotFound {
                127
            } else {
                126
            }
        }
    })
}

fn change_dir(dir: &OsString) -> std::io::Result<()> {
    #[cfg(target_os = "wasi")]
    {
        airlock_sys::change_dir(&dir.to_string_lossy())
    }
    #[cfg(not(target_os = "wasi"))]
    {
        std::env::set_current_dir(dir)
    }
}

/// Replaces each `-S STRING` among the leading options by the words STRING splits into,
/// as GNU env does before it parses options again.
fn expand_split_strings(args: &[OsString]) -> Result<Vec<OsString>, String> {
    let mut out: Vec<OsString> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = os_bytes(&args[i]);
        if arg == b"--" || arg.first() != Some(&b'-') || arg.len() < 2 {
            out.extend(args[i..].iter().cloned());
            break;
        }
        let value: Option<(Vec<u8>, usize)> = if let Some(rest) = arg.strip_prefix(b"--split-string=") {
            Some((rest.to_vec(), 1))
        } else if arg.len() > 3 && b"--split-string".starts_with(arg) && i + 1 < args.len() {
            Some((os_bytes(&args[i + 1]).to_vec(), 2))
        } else if let Some(rest) = arg.strip_prefix(b"-S") {
            if !rest.is_empty() {
                Some((rest.to_vec(), 1))
            } else if i + 1 < args.len() {
                Some((os_bytes(&args[i + 1]).to_vec(), 2))
            } else {
                None
            }
        } else {
            None
        };
        match value {
            Some((text, used)) => {
                out.extend(split_string(&text)?.into_iter().map(|w| bytes_os(&w)));
                i += used;
            }
            None => {
                out.push(args[i].clone());
                // Options whose value is the next word: keep the value with them.
                if (arg == b"-u" || arg == b"-C" || arg == b"--unset" || arg == b"--chdir") && i + 1 < args.len() {
                    out.push(args[i + 1].clone());
                    i += 1;
                }
                i += 1;
            }
        }
    }
    Ok(out)
}

/// GNU env's -S syntax: whitespace separates, '…' is literal, "…" allows escapes and
/// ${NAME}, `\_` is a separator (a space inside "…"), `\c` ends the string, `#` at the
/// start of a word starts a comment.
fn split_string(text: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut words = Vec::new();
    let mut word: Vec<u8> = Vec::new();
    let mut in_word = false;
    let mut i = 0;
    #[derive(PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let mut quote_mode = Quote::None;
    while i < text.len() {
        let c = text[i];
        i += 1;
        match quote_mode {
            Quote::Single => {
                if c == b'\'' {
                    quote_mode = Quote::None;
                } else if c == b'\\' && i < text.len() && (text[i] == b'\\' || text[i] == b'\'') {
                    word.push(text[i]);
                    i += 1;
                } else {
                    word.push(c);
                }
                continue;
            }
            Quote::None if matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                continue;
            }
            Quote::None if c == b'#' && !in_word => break,
            _ => {}
        }
        in_word = true;
        match c {
            b'\'' if quote_mode == Quote::None => quote_mode = Quote::Single,
            b'"' if quote_mode == Quote::None => quote_mode = Quote::Double,
            b'"' => quote_mode = Quote::None,
            b'\\' => {
                let e = match text.get(i) {
                    Some(e) => *e,
                    None => return Err("invalid backslash at end of string in -S".to_string()),
                };
                i += 1;
                match e {
                    b'_' if quote_mode == Quote::None => {
                        if !word.is_empty() {
                            words.push(std::mem::take(&mut word));
                        }
                        in_word = false;
                    }
                    b'_' => word.push(b' '),
                    b'c' if quote_mode == Quote::Double => return Err("'\\c' must not appear in double-quoted -S string".to_string()),
                    b'c' => {
                        return Ok(finish(words, word, in_word));
                    }
                    b'f' => word.push(0x0c),
                    b'n' => word.push(b'\n'),
                    b'r' => word.push(b'\r'),
                    b't' => word.push(b'\t'),
                    b'v' => word.push(0x0b),
                    b'\\' | b'\'' | b'"' | b'#' | b'$' | b' ' => word.push(e),
                    _ => return Err(format!("invalid sequence '\\{}' in -S", e as char)),
                }
            }
            b'$' => {
                let rest = &text[i..];
                let close = rest.iter().position(|b| *b == b'}');
                let name = match (rest.first(), close) {
                    (Some(b'{'), Some(end)) if end > 1 => &rest[1..end],
                    _ => return Err(format!("only ${{VARNAME}} expansion is supported, error at: {}", String::from_utf8_lossy(&text[i - 1..]))),
                };
                if let Some((_, value)) = std::env::vars_os().find(|(k, _)| os_bytes(k) == name) {
                    word.extend_from_slice(os_bytes(&value));
                }
                i += name.len() + 2;
            }
            _ => word.push(c),
        }
    }
    if quote_mode != Quote::None {
        return Err("no terminating quote in -S string".to_string());
    }
    Ok(finish(words, word, in_word))
}

fn finish(mut words: Vec<Vec<u8>>, word: Vec<u8>, in_word: bool) -> Vec<Vec<u8>> {
    if in_word {
        words.push(word);
    }
    words
}

const HELP: &str = "Usage: {name} [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]\nSet each NAME to VALUE in the environment and run COMMAND.\n\nMandatory arguments to long options are mandatory for short options too.\n  -i, --ignore-environment  start with an empty environment\n  -0, --null           end each output line with NUL, not newline\n  -u, --unset=NAME     remove variable from the environment\n  -C, --chdir=DIR      change working directory to DIR\n  -S, --split-string=S  process and split S into separate arguments;\n                        used to pass multiple arguments on shebang lines\n  -v, --debug          print verbose information for each processing step\n{standard}\nA mere - implies -i.  If no COMMAND, print the resulting environment.\n";
