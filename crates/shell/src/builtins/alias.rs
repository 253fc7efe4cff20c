//! `alias [-p] [name[=value] ...]` and `unalias [-a] name ...`.

use super::{done, print};
use crate::exec::Flow;
use crate::shell::Shell;

pub fn alias(shell: &mut Shell, args: &[String]) -> Flow {
    let operands: Vec<&String> = args[1..].iter().filter(|a| a.as_str() != "-p" && a.as_str() != "--").collect();
    if operands.is_empty() {
        let text: String = shell.aliases.map.borrow().iter().map(|(k, v)| format!("alias {}={}\n", k, crate::text::single_quote(v))).collect();
        print(shell, "alias", &text);
        return done(shell, 0);
    }
    let mut status = 0;
    let mut out = String::new();
    for operand in operands {
        match operand.find('=') {
            Some(eq) => {
                let (name, value) = (&operand[..eq], &operand[eq + 1..]);
                if name.is_empty() || name.contains(|c: char| matches!(c, '/' | '$' | '`' | '=' | ' ' | '\t' | '\n' | '|' | '&' | ';' | '(' | ')' | '<' | '>' | '\'' | '"' | '\\')) {
                    shell.report(&format!("alias: `{}': invalid alias name", name));
                    status = 1;
                    continue;
                }
                shell.aliases.map.borrow_mut().insert(name.to_string(), value.to_string());
            }
            None => {
                let value = shell.aliases.map.borrow().get(operand.as_str()).cloned();
                match value {
                    Some(value) => out.push_str(&format!("alias {}={}\n", operand, crate::text::single_quote(&value))),
                    None => {
                        shell.report(&format!("alias: {}: not found", operand));
                        status = 1;
                    }
                }
            }
        }
    }
    print(shell, "alias", &out);
    done(shell, status)
}

pub fn unalias(shell: &mut Shell, args: &[String]) -> Flow {
    if args.get(1).map(String::as_str) == Some("-a") {
        shell.aliases.map.borrow_mut().clear();
        return done(shell, 0);
    }
    if args.len() < 2 {
        shell.report("unalias: usage: unalias [-a] name [name ...]");
        return done(shell, 2);
    }
    let mut status = 0;
    for name in &args[1..] {
        if name == "--" {
            continue;
        }
        if shell.aliases.map.borrow_mut().remove(name.as_str()).is_none() {
            shell.report(&format!("unalias: {}: not found", name));
            status = 1;
        }
    }
    done(shell, status)
}
