//! Builtin commands: one module per builtin (or per family sharing one implementation,
//! like `declare`/`local`/`typeset`), found through one sorted table.
//!
//! A builtin is `fn(&mut Shell, argv) -> Flow`: it sets `shell.status` and returns how
//! control continues (only `return`, `break`, `exit`, `eval`, `source` change it).

pub mod alias;
pub mod cd;
pub mod declare;
pub mod dirs;
pub mod echo;
mod escape;
pub mod eval;
pub mod exit;
pub mod getopts;
pub mod hash;
pub mod help;
pub mod jobs;
pub mod lookup;
pub mod loops;
pub mod mapfile;
pub mod misc;
pub mod printf;
pub mod read;
pub mod set;
pub mod shopt;
pub mod signals;
pub mod source;
pub mod test;
pub mod trivial;
pub mod umask;
pub mod unset;
pub mod vars;

use crate::exec::Flow;
use crate::shell::Shell;

pub type BuiltinFn = fn(&mut Shell, &[String]) -> Flow;

/// Every builtin, sorted by name (binary-searched).
const TABLE: &[(&str, BuiltinFn)] = &[
    (".", source::source),
    (":", trivial::colon),
    ("[", test::bracket),
    ("alias", alias::alias),
    ("bg", jobs::bg),
    ("bind", misc::bind),
    ("break", loops::break_),
    ("builtin", lookup::builtin),
    ("caller", misc::caller),
    ("cd", cd::cd),
    ("command", lookup::command),
    ("compgen", misc::compgen),
    ("complete", misc::complete),
    ("continue", loops::continue_),
    ("declare", declare::declare),
    ("dirs", dirs::dirs),
    ("disown", jobs::disown),
    ("echo", echo::echo),
    ("enable", misc::enable),
    ("eval", eval::eval),
    ("exec", eval::exec),
    ("exit", exit::exit),
    ("export", vars::export),
    ("false", trivial::false_),
    ("fc", misc::fc),
    ("fg", jobs::fg),
    ("getopts", getopts::getopts),
    ("hash", hash::hash),
    ("help", help::help),
    ("history", misc::history),
    ("jobs", jobs::jobs),
    ("kill", signals::kill),
    ("let", vars::let_),
    ("local", declare::local),
    ("logout", exit::logout),
    ("mapfile", mapfile::mapfile),
    ("popd", dirs::popd),
    ("printf", printf::printf),
    ("pushd", dirs::pushd),
    ("pwd", cd::pwd),
    ("read", read::read),
    ("readarray", mapfile::mapfile),
    ("readonly", vars::readonly),
    ("return", exit::return_),
    ("set", set::set),
    ("shift", vars::shift),
    ("shopt", shopt::shopt),
    ("source", source::source),
    ("suspend", jobs::suspend),
    ("test", test::test),
    ("times", misc::times),
    ("trap", signals::trap),
    ("true", trivial::true_),
    ("type", lookup::type_),
    ("typeset", declare::declare),
    ("ulimit", misc::ulimit),
    ("umask", umask::umask),
    ("unalias", alias::unalias),
    ("unset", unset::unset),
    ("wait", jobs::wait),
];

pub fn lookup(name: &str) -> Option<BuiltinFn> {
    TABLE.binary_search_by(|(n, _)| n.cmp(&name)).ok().map(|i| TABLE[i].1)
}

pub fn names() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|(n, _)| *n)
}

/// POSIX special builtins (`type` and `command -V` say so; errors in them are fatal in
/// POSIX mode).
pub fn is_special(name: &str) -> bool {
    matches!(
        name,
        "." | ":" | "break" | "continue" | "eval" | "exec" | "exit" | "export" | "readonly" | "return" | "set" | "shift"
            | "source" | "times" | "trap" | "unset"
    )
}

/// One line describing a builtin (`help`).
pub fn help_synopsis(name: &str) -> &'static str {
    match name {
        "." | "source" => "source filename [arguments]",
        ":" => ": [arguments]",
        "[" => "[ arg... ]",
        "alias" => "alias [-p] [name[=value] ... ]",
        "bg" => "bg [job_spec ...]",
        "bind" => "bind (accepted, no effect)",
        "break" => "break [n]",
        "builtin" => "builtin [shell-builtin [arg ...]]",
        "caller" => "caller [expr]",
        "cd" => "cd [-L|[-P [-e]] [-@]] [dir]",
        "command" => "command [-pVv] command [arg ...]",
        "compgen" => "compgen [-abkv] [-A action] [-W wordlist] [word]",
        "complete" => "complete (accepted, no effect)",
        "continue" => "continue [n]",
        "declare" => "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]",
        "dirs" => "dirs [-clpv] [+N] [-N]",
        "disown" => "disown [-h] [-ar] [jobspec ... | pid ...]",
        "echo" => "echo [-neE] [arg ...]",
        "enable" => "enable [-a] [-p]",
        "eval" => "eval [arg ...]",
        "exec" => "exec [-cl] [-a name] [command [argument ...]] [redirection ...]",
        "exit" => "exit [n]",
        "export" => "export [-fn] [name[=value] ...] or export -p",
        "false" => "false",
        "fc" => "fc (not supported)",
        "fg" => "fg [job_spec]",
        "getopts" => "getopts optstring name [arg ...]",
        "hash" => "hash [-lr] [-p pathname] [-dt] [name ...]",
        "help" => "help [pattern ...]",
        "history" => "history [-c] [n]",
        "jobs" => "jobs [-lnprs] [jobspec ...] or jobs -x command [args]",
        "kill" => "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]",
        "let" => "let arg [arg ...]",
        "local" => "local [option] name[=value] ...",
        "logout" => "logout [n]",
        "mapfile" => "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
        "popd" => "popd [-n] [+N | -N]",
        "printf" => "printf [-v var] format [arguments]",
        "pushd" => "pushd [-n] [+N | -N | dir]",
        "pwd" => "pwd [-LP]",
        "read" => "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]",
        "readarray" => "readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
        "readonly" => "readonly [-aAf] [name[=value] ...] or readonly -p",
        "return" => "return [n]",
        "set" => "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]",
        "shift" => "shift [n]",
        "shopt" => "shopt [-pqsu] [-o] [optname ...]",
        "suspend" => "suspend [-f]",
        "test" => "test [expr]",
        "times" => "times",
        "trap" => "trap [-lp] [[arg] signal_spec ...]",
        "true" => "true",
        "type" => "type [-afptP] name [name ...]",
        "ulimit" => "ulimit [-a] (reports limits; setting them is accepted)",
        "typeset" => "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]",
        "umask" => "umask [-p] [-S] [mode]",
        "unalias" => "unalias [-a] name [name ...]",
        "unset" => "unset [-f] [-v] [-n] [name ...]",
        "wait" => "wait [-fn] [-p var] [id ...]",
        _ => "",
    }
}

/// Sets the status and continues.
pub(crate) fn done(shell: &mut Shell, status: i32) -> Flow {
    shell.status = status;
    Flow::Normal
}

/// `name: message` on stderr, status `status`.
pub(crate) fn fail(shell: &mut Shell, name: &str, message: &str, status: i32) -> Flow {
    shell.report(&format!("{}: {}", name, message));
    done(shell, status)
}

/// An error (if any) with the usual prefix, then `name: usage: synopsis`, which bash
/// prints without one; status 2.
pub(crate) fn usage(shell: &mut Shell, name: &str, error: Option<&str>) -> Flow {
    if let Some(error) = error {
        shell.report(&format!("{}: {}", name, error));
    }
    shell.write_err(&format!("{}: usage: {}\n", name, help_synopsis(name)));
    done(shell, 2)
}

/// "too many arguments" to `break`, `continue`, `shift`, `return` or `exit`: bash abandons
/// everything up to the top level (its DISCARD), so `bash -c`, a run of the session and a
/// subshell end with status 1, and a script goes on with its next command line.
pub(crate) fn too_many_arguments(shell: &mut Shell, name: &str) -> Flow {
    shell.report(&format!("{}: too many arguments", name));
    shell.status = 1;
    if shell.mode == crate::shell::Mode::Script {
        shell.discarding = true;
        Flow::Abort
    } else {
        Flow::Exit
    }
}

/// The arguments after a leading `--` (the numeric builtins accept one).
pub(crate) fn after_dashes(args: &[String]) -> &[String] {
    match args.get(1) {
        Some(first) if first == "--" => &args[2..],
        _ => &args[1..],
    }
}

/// Writes to standard output; a failure is reported as bash does ("write error").
pub(crate) fn write_out(shell: &mut Shell, name: &str, data: &[u8]) -> bool {
    match shell.write_fd(1, data) {
        Ok(()) => true,
        Err(crate::sys::Errno::PIPE) => {
            // The reader went away: the shell ends as SIGPIPE would end it (status 141),
            // silently; an inline pipeline stage just ends (see exec_with_name).
            shell.broken_pipe = true;
            false
        }
        Err(error) => {
            shell.report(&format!("{}: write error: {}", name, error));
            false
        }
    }
}

pub(crate) fn print(shell: &mut Shell, name: &str, text: &str) -> bool {
    write_out(shell, name, &crate::text::to_bytes(text))
}

/// One option as it was given: its letter, whether it came as `+x` (where the builtin
/// takes `+` options), and its value.
pub(crate) struct Given {
    pub letter: char,
    pub plus: bool,
    pub value: Option<String>,
}

/// The options a builtin was given, in order.
pub(crate) struct Options {
    pub given: Vec<Given>,
}

impl Options {
    pub fn has(&self, letter: char) -> bool {
        self.given.iter().any(|option| option.letter == letter)
    }

    /// The value of the last `-letter`.
    pub fn value(&self, letter: char) -> Option<String> {
        self.given.iter().rev().find(|option| option.letter == letter).and_then(|option| option.value.clone())
    }

    /// Which of `letters` came last (`cd -L -P` is physical, `cd -P -L` logical).
    pub fn last_of(&self, letters: &str) -> Option<char> {
        self.given.iter().rev().map(|option| option.letter).find(|letter| letters.contains(*letter))
    }
}

/// `options(...)` in a builtin, returning its usage error from the builtin.
macro_rules! read_options {
    ($shell:expr, $name:expr, $args:expr, $spec:expr) => {
        match $crate::builtins::options($shell, $name, $args, $spec) {
            Ok(parsed) => parsed,
            Err(flow) => return flow,
        }
    };
}
pub(crate) use read_options;

/// Reads the leading options of `args` as bash's `internal_getopt` does and returns them
/// with the index of the first operand: bundled letters (`-LP`), a value in the rest of
/// the word or the next one, `--` ending the options, `-` alone an operand. `spec` lists
/// the letters, a letter followed by `:` takes a value, and a leading `+` accepts `+x`
/// too. A letter not in it or a missing value is bash's usage error (`name: -x: invalid
/// option` and `name: usage: ...`, status 2): the `Err` is the flow to return.
pub(crate) fn options(shell: &mut Shell, name: &str, args: &[String], spec: &str) -> Result<(Options, usize), Flow> {
    let (takes_plus, spec) = match spec.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let mut given = Vec::new();
    let mut index = 1;
    while let Some(arg) = args.get(index) {
        if arg == "--" {
            index += 1;
            break;
        }
        let (plus, letters) = match (arg.strip_prefix('-'), arg.strip_prefix('+')) {
            (Some(rest), _) if !rest.is_empty() => (false, rest),
            (_, Some(rest)) if takes_plus && !rest.is_empty() => (true, rest),
            _ => break,
        };
        let sign = if plus { '+' } else { '-' };
        for (at, letter) in letters.char_indices() {
            let position = match spec.find(letter).filter(|_| letter != ':') {
                Some(position) => position,
                None => return Err(usage(shell, name, Some(&format!("{}{}: invalid option", sign, letter)))),
            };
            if !spec[position + letter.len_utf8()..].starts_with(':') {
                given.push(Given { letter, plus, value: None });
                continue;
            }
            let rest = &letters[at + letter.len_utf8()..];
            let value = if !rest.is_empty() {
                rest.to_string()
            } else {
                index += 1;
                match args.get(index) {
                    Some(value) => value.clone(),
                    None => return Err(usage(shell, name, Some(&format!("{}{}: option requires an argument", sign, letter)))),
                }
            };
            given.push(Given { letter, plus, value: Some(value) });
            break;
        }
        index += 1;
    }
    Ok((Options { given }, index))
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_is_sorted() {
        let names: Vec<&str> = super::names().collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }
}
