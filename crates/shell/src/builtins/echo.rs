//! `echo [-neE] args`: `-e` escapes (also used by `printf %b` and `${x@E}`).

use super::{done, write_out};
use crate::exec::Flow;
use crate::options::Shopt;
use crate::shell::Shell;
use shell_parser::bytes;

pub fn echo(shell: &mut Shell, args: &[String]) -> Flow {
    let mut newline = true;
    let mut escapes = shell.options.shopt(Shopt::XpgEcho);
    let mut index = 1;
    while index < args.len() {
        let arg = &args[index];
        if arg.len() < 2 || !arg.starts_with('-') || !arg[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in arg[1..].chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        index += 1;
    }
    let mut out = String::new();
    for (i, arg) in args[index..].iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if escapes {
            let (text, stop) = unescape(arg, false);
            out.push_str(&text);
            if stop {
                newline = false;
                break;
            }
        } else {
            out.push_str(arg);
        }
    }
    if newline {
        out.push('\n');
    }
    let ok = write_out(shell, "echo", &crate::text::to_bytes(&out));
    done(shell, if ok { 0 } else { 1 })
}

/// Backslash escapes of `echo -e` (`printf_style`: `\NNN` octal without the leading 0,
/// as in printf formats). Returns the text and whether `\c` asked to stop all output.
pub fn unescape(text: &str, printf_style: bool) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' || i + 1 >= chars.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = chars[i + 1];
        i += 2;
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'c' => return (bytes::normalize(out), true),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' => out.push('\\'),
            '0'..='7' if e == '0' || printf_style => {
                let max = if e == '0' && !printf_style { 3 } else { 2 };
                let mut value = if e == '0' && !printf_style { 0 } else { e as u32 - '0' as u32 };
                let mut n = 0;
                while n < max && i < chars.len() && ('0'..='7').contains(&chars[i]) {
                    value = value * 8 + (chars[i] as u32 - '0' as u32);
                    i += 1;
                    n += 1;
                }
                bytes::push_byte(&mut out, (value & 0xff) as u8);
            }
            'x' => {
                let (value, used) = hex(&chars[i..], 2);
                if used == 0 {
                    out.push_str("\\x");
                } else {
                    i += used;
                    bytes::push_byte(&mut out, value as u8);
                }
            }
            'u' | 'U' => {
                let (value, used) = hex(&chars[i..], if e == 'u' { 4 } else { 8 });
                if used == 0 {
                    out.push('\\');
                    out.push(e);
                } else {
                    i += used;
                    out.push(char::from_u32(value).unwrap_or('\u{FFFD}'));
                }
            }
            '"' if printf_style => out.push('"'),
            '\'' if printf_style => out.push('\''),
            '?' if printf_style => out.push('?'),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    (bytes::normalize(out), false)
}

fn hex(chars: &[char], max: usize) -> (u32, usize) {
    let mut value = 0u32;
    let mut used = 0;
    while used < max && used < chars.len() {
        match chars[used].to_digit(16) {
            Some(d) => value = value * 16 + d,
            None => break,
        }
        used += 1;
    }
    (value, used)
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn escapes() {
        assert_eq!(unescape("a\\tb\\n", false).0, "a\tb\n");
        assert_eq!(unescape("\\0101", false).0, "A");
        assert_eq!(unescape("\\101", true).0, "A");
        assert_eq!(unescape("\\101", false).0, "\\101");
        assert_eq!(unescape("x\\cy", false), ("x".to_string(), true));
        assert_eq!(unescape("\\x41\\u00e9", false).0, "Aé");
    }
}
