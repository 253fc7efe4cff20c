//! `echo [-neE] args`; `-e` escapes as `printf %b` has them, but octal only as `\0NNN`.

use super::escape;
use super::{done, write_out};
use crate::exec::Flow;
use crate::options::Shopt;
use crate::shell::Shell;

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
    let mut out = Vec::new();
    for (i, arg) in args[index..].iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        let arg = crate::text::to_bytes(arg);
        if !escapes {
            out.extend_from_slice(&arg);
            continue;
        }
        // echo -e stays silent where printf warns (`\x` without digits).
        if escape::expand_all(&arg, &mut out, escape::Mode::Echo, &mut Vec::new()) {
            newline = false;
            break;
        }
    }
    if newline {
        out.push(b'\n');
    }
    let ok = write_out(shell, "echo", &out);
    done(shell, if ok { 0 } else { 1 })
}
