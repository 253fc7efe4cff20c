//! `umask [-p] [-S] [mode]`.

use super::{done, fail, print};
use crate::exec::Flow;
use crate::shell::Shell;

pub fn umask(shell: &mut Shell, args: &[String]) -> Flow {
    let mut symbolic = false;
    let mut reusable = false;
    let mut index = 1;
    while let Some(arg) = args.get(index) {
        match arg.as_str() {
            "-S" => symbolic = true,
            "-p" => reusable = true,
            "--" => {
                index += 1;
                break;
            }
            _ => break,
        }
        index += 1;
    }
    let current = shell.sys.umask(None);
    let mode = match args.get(index) {
        None => {
            let text = if symbolic {
                format!("{}u={},g={},o={}\n", if reusable { "umask -S " } else { "" }, perms(!current >> 6), perms(!current >> 3), perms(!current))
            } else {
                format!("{}{:04o}\n", if reusable { "umask " } else { "" }, current)
            };
            print(shell, "umask", &text);
            return done(shell, 0);
        }
        Some(mode) => mode.clone(),
    };
    let new = if mode.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
        match u32::from_str_radix(&mode, 8) {
            Ok(value) if value <= 0o777 => value,
            _ => return fail(shell, "umask", &format!("{}: octal number out of range", mode), 1),
        }
    } else {
        match symbolic_mode(&mode, current) {
            Some(value) => value,
            None => return fail(shell, "umask", &format!("`{}': invalid symbolic mode operator", mode), 1),
        }
    };
    shell.sys.umask(Some(new));
    done(shell, 0)
}

fn perms(bits: u32) -> String {
    let mut out = String::new();
    if bits & 4 != 0 {
        out.push('r');
    }
    if bits & 2 != 0 {
        out.push('w');
    }
    if bits & 1 != 0 {
        out.push('x');
    }
    out
}

/// `u=rwx,g=rx,o=` style: the permissions given are what new files may have.
fn symbolic_mode(text: &str, current: u32) -> Option<u32> {
    let mut allowed = !current & 0o777;
    for clause in text.split(',') {
        let op_at = clause.find(|c| matches!(c, '=' | '+' | '-'))?;
        let (who, rest) = clause.split_at(op_at);
        let op = rest.chars().next()?;
        let mut bits = 0;
        for c in rest[1..].chars() {
            bits |= match c {
                'r' => 4,
                'w' => 2,
                'x' => 1,
                _ => return None,
            };
        }
        let mut mask = 0;
        for c in if who.is_empty() { "a".chars() } else { who.chars() } {
            mask |= match c {
                'u' => 0o700,
                'g' => 0o070,
                'o' => 0o007,
                'a' => 0o777,
                _ => return None,
            };
        }
        let spread = (bits << 6 | bits << 3 | bits) & mask;
        match op {
            '=' => allowed = (allowed & !mask) | spread,
            '+' => allowed |= spread,
            _ => allowed &= !spread,
        }
    }
    Some(!allowed & 0o777)
}
