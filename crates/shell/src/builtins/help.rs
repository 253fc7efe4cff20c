//! `help [pattern]`: the builtins this shell has.

use super::{done, fail, print};
use crate::exec::Flow;
use crate::pattern::Pattern;
use crate::shell::Shell;

pub fn help(shell: &mut Shell, args: &[String]) -> Flow {
    let names: Vec<&str> = super::names().collect();
    if args.len() > 1 {
        let mut out = String::new();
        for pattern in &args[1..] {
            let matcher = Pattern::new(pattern, false, false);
            let hits: Vec<&&str> = names.iter().filter(|n| matcher.matches(n)).collect();
            if hits.is_empty() {
                return fail(shell, "help", &format!("no help topics match `{}'.  Try `help help' or `man -k {}' or `info {}'.", pattern, pattern, pattern), 1);
            }
            for name in hits {
                out.push_str(&format!("{}: {}\n", name, super::help_synopsis(name)));
            }
        }
        print(shell, "help", &out);
        return done(shell, 0);
    }
    let mut out = String::from(
        "GNU bash, version 5.2.15(1)-release (airlock)\n\
         These shell commands are defined internally.  Type `help' to see this list.\n\
         Type `help name' to find out more about the function `name'.\n\n",
    );
    for name in names {
        out.push_str(&format!("{}\n", super::help_synopsis(name)));
    }
    print(shell, "help", &out);
    done(shell, 0)
}
