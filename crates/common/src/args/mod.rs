//! The command contract over the shared parser (getopt.rs): a command's options, help text,
//! version text and usage errors in GNU's words, so a command only handles its own options
//! (as uucore gives uutils), and [`Seen`], what a parse found, for commands that ask for it
//! afterwards instead of answering each option as it comes.

mod getopt;

pub use getopt::*;

use std::ffi::OsString;

use crate::error::UError;
use crate::io::Io;

/// `--help` and `--version`, which every command declared by a [`Command`] accepts.
const STANDARD: &str = "help version";

/// What `{standard}` in a help text stands for: GNU's two lines for those options.
const STANDARD_HELP: &str = "      --help        display this help and exit\n      --version     output version information and exit\n";

/// A command's contract with the shared parser: its options, its help text and the exit
/// status of a usage error. `Command::options` handles `--help`, `--version`, `--`, grouping,
/// abbreviations and usage errors, so a command only handles its own options.
pub struct Command<'a> {
    /// The name `--version` prints; empty: the name the command was called by.
    pub name: &'a str,
    /// Options as a table (commands not yet on the compact form) ...
    pub spec: &'a [OptSpec],
    /// ... or, and, as one string read by [`table`].
    pub opts: &'static str,
    /// What `--help` prints; `{name}` stands for the name the command was called by and
    /// `{standard}` for GNU's `--help` and `--version` lines.
    pub help: &'a str,
    /// GNU's status for a usage error: 1 for most tools, 2 for cmp/diff/grep/sort.
    pub usage_status: i32,
    pub order: Order,
    /// How a tool outside GNU's wording reports a bad option (hostname prints its usage on
    /// stdout and exits 255); None: `name: message` and GNU's `Try 'NAME --help'` line.
    pub usage_error: Option<UsageError>,
    /// What `--version` prints when it is not GNU's line (`{name}` as in `help`).
    pub version: &'a str,
    /// How many operands [`Command::operands`] accepts: fewer is GNU's `missing operand`
    /// usage error, more its `extra operand 'X'`.
    pub min_operands: usize,
    pub max_operands: usize,
    /// What a missing operand is called in that error: `operand`, or `file operand` (touch,
    /// truncate).
    pub missing: &'a str,
    /// The options every command accepts besides its own, in [`table`]'s form: `--help` and
    /// `--version`; empty for a tool that has neither (ncurses' clear knows only `-V`).
    pub standard: &'static str,
    /// Where options end besides `--` and [`Order`]: the first word this accepts is an
    /// operand, and so is every word after it (find's options end at its first starting
    /// point or expression word, `-name` included).
    pub ends_options: OptionsEnd,
}

/// The test of [`Command::ends_options`] (a struct, as [`UsageError`] is).
#[derive(Clone, Copy)]
pub struct OptionsEnd(pub fn(&[u8]) -> bool);

/// A command's own report of a bad option (a struct: rustc 1.63, which builds the wasm,
/// refuses a bare `fn(&mut Io, ..)` type in a const fn).
pub struct UsageError(pub fn(&mut Io, ArgError) -> UError);

impl<'a> Command<'a> {
    pub const fn new(name: &'a str, spec: &'a [OptSpec], help: &'a str) -> Command<'a> {
        Command { spec, ..Command::compact(name, "", help) }
    }

    /// A command whose options are one string in [`table`]'s form.
    pub const fn compact(name: &'a str, opts: &'static str, help: &'a str) -> Command<'a> {
        Command { name, spec: &[], opts, help, usage_status: 1, order: Order::Permute, usage_error: None, version: "", min_operands: 0, max_operands: usize::MAX, missing: "operand", standard: STANDARD, ends_options: OptionsEnd(getopt::never) }
    }

    /// The same command taking between `min` and `max` operands (see [`Command::operands`]).
    pub const fn operands_between(self, min: usize, max: usize) -> Command<'a> {
        Command { min_operands: min, max_operands: max, ..self }
    }

    /// For commands whose words are not options (true, false, echo, test): GNU answers
    /// `--help` and `--version` only as the sole argument. Returns whether it answered.
    pub fn sole(&self, args: &[OsString], io: &mut Io) -> bool {
        let text = match args {
            [_, only] if only == "--help" => self.help_text(io),
            [_, only] if only == "--version" => self.version_text(io),
            _ => return false,
        };
        // As in GNU's tools, a failed write of the help text is left to the final flush.
        let _ = io.out(text.as_bytes());
        true
    }

    /// For commands whose every word is an operand, even one starting with `-` (expr,
    /// printf): `--help` and `--version` only as the sole argument (as [`Command::sole`]),
    /// one leading `--` dropped, and the rest counted as [`Command::operands`] counts them.
    pub fn words(&self, args: &[OsString], io: &mut Io) -> Result<Vec<OsString>, UError> {
        if self.sole(args, io) {
            return Err(UError::exit(0));
        }
        let mut words = args.get(1..).unwrap_or(&[]).to_vec();
        if words.first().map_or(false, |w| w == "--") {
            words.remove(0);
        }
        self.count(&words, self.min_operands, self.max_operands)?;
        Ok(words)
    }

    fn help_text(&self, io: &Io) -> String {
        self.help.replace("{name}", &io.name).replace("{standard}", STANDARD_HELP)
    }

    fn version_text(&self, io: &Io) -> String {
        match self.version {
            "" => crate::version_text(if self.name.is_empty() { &io.name } else { self.name }),
            text => text.replace("{name}", &io.name),
        }
    }

    /// Parses `args` (argv[0] first) and calls `each` with every option and operand in order,
    /// as GNU's getopt loop meets them: `--help` and `--version` print and end the command
    /// (`Err(UError::exit(0))`) there, so an error in an earlier option still wins.
    pub fn options(&self, args: &[OsString], io: &mut Io, each: &mut dyn FnMut(&mut Io, Parsed) -> Result<(), UError>) -> Result<(), UError> {
        self.options_after_name(args.get(1..).unwrap_or(&[]), io, each)
    }

    /// `options` for arguments without argv[0] (commands that rewrite obsolete forms first).
    pub fn options_after_name(&self, args: &[OsString], io: &mut Io, each: &mut dyn FnMut(&mut Io, Parsed) -> Result<(), UError>) -> Result<(), UError> {
        let mut spec = table(self.opts);
        spec.extend_from_slice(self.spec);
        spec.extend(table(self.standard));
        let OptionsEnd(ends) = self.ends_options;
        let parsed = parse_until(args, &spec, self.order, ends).map_err(|e| match self.usage_error {
            Some(UsageError(report)) => report(io, e),
            None => UError::usage(self.usage_status, e),
        })?;
        for p in parsed {
            let text = match &p {
                Parsed::Opt { id: "help", .. } => Some(self.help_text(io)),
                Parsed::Opt { id: "version", .. } => Some(self.version_text(io)),
                _ => None,
            };
            if let Some(text) = text {
                // As in GNU's tools, a failed write of the help text is left to the final flush.
                let _ = io.out(text.as_bytes());
                return Err(UError::exit(0));
            }
            each(io, p)?;
        }
        Ok(())
    }

    /// The shape most commands have: `each` sees every option (its id and value) as
    /// `options` meets them, and the operands come back, counted against `min_operands` and
    /// `max_operands` in GNU's words and the command's usage status.
    pub fn operands(&self, args: &[OsString], io: &mut Io, each: &mut dyn FnMut(&mut Io, &'static str, Option<OsString>) -> Result<(), UError>) -> Result<Vec<OsString>, UError> {
        self.operands_after_name(args.get(1..).unwrap_or(&[]), io, each)
    }

    /// `operands` for arguments without argv[0] (commands that rewrite obsolete forms first).
    pub fn operands_after_name(&self, args: &[OsString], io: &mut Io, each: &mut dyn FnMut(&mut Io, &'static str, Option<OsString>) -> Result<(), UError>) -> Result<Vec<OsString>, UError> {
        let mut operands = Vec::new();
        self.options_after_name(args, io, &mut |io, p| match p {
            Parsed::Opt { id, value } => each(io, id, value),
            Parsed::Operand(operand) => {
                operands.push(operand);
                Ok(())
            }
        })?;
        self.count(&operands, self.min_operands, self.max_operands)?;
        Ok(operands)
    }

    /// The options seen and the operands, for a command that only reads its options after
    /// parsing (GNU's tools that set flags in the getopt loop and act after it): asks
    /// [`Seen::flag`], [`Seen::last_of`], [`Seen::value`] instead of a callback of `id =>
    /// x = true` arms. Operands are counted as [`Command::operands`] counts them. A command
    /// that must reject a bad value before a later `--help` (GNU checks it in the loop) keeps
    /// [`Command::operands`].
    pub fn seen(&self, args: &[OsString], io: &mut Io) -> Result<Seen, UError> {
        self.seen_checking(args, io, &mut |_, _, _| Ok(()))
    }

    /// [`Command::seen`] whose `check` sees each option as the loop meets it, for the values
    /// GNU rejects there (touch --time=WORD), so such an error still wins over a later `--help`.
    pub fn seen_checking(&self, args: &[OsString], io: &mut Io, check: &mut dyn FnMut(&mut Io, &'static str, Option<&OsString>) -> Result<(), UError>) -> Result<Seen, UError> {
        let mut opts = Vec::new();
        let operands = self.operands(args, io, &mut |io, id, value| {
            check(io, id, value.as_ref())?;
            opts.push((id, value));
            Ok(())
        })?;
        Ok(Seen { opts, operands })
    }

    /// GNU's check of an operand count, for a command whose bounds depend on its options
    /// (basename takes two names, or any number with -a): none is `missing operand`, too few
    /// `missing operand after 'LAST'`, too many `extra operand 'FIRST EXTRA'`.
    pub fn count(&self, operands: &[OsString], min: usize, max: usize) -> Result<(), UError> {
        let message = match operands.len() {
            0 if min > 0 => format!("missing {}", self.missing),
            n if n < min => format!("missing {} after {}", self.missing, crate::io::quote(&operands[n - 1])),
            n if n > max => format!("extra operand {}", crate::io::quote(&operands[max])),
            _ => return Ok(()),
        };
        Err(UError::usage(self.usage_status, message))
    }

    /// All options and operands at once (argv[0] first), for commands that look at them as a
    /// whole; `--help` and `--version` are handled as `options` handles them.
    pub fn parse(&self, args: &[OsString], io: &mut Io) -> Result<Vec<Parsed>, UError> {
        let mut out = Vec::new();
        self.options(args, io, &mut |_, p| {
            out.push(p);
            Ok(())
        })?;
        Ok(out)
    }
}

/// What [`Command::seen`] found: every option in the order given (with its value) and the
/// operands. GNU's overriding is kept by asking for the last: `-L -P` is `last_of(&["L", "P"])`,
/// `-m 1 -m 2` is `value("m")` = 2.
#[derive(Debug, Default)]
pub struct Seen {
    pub opts: Vec<(&'static str, Option<OsString>)>,
    pub operands: Vec<OsString>,
}

impl Seen {
    /// Whether option `id` was given at all.
    pub fn flag(&self, id: &str) -> bool {
        self.opts.iter().any(|(seen, _)| *seen == id)
    }

    /// How often `id` was given (`-vv`).
    pub fn count(&self, id: &str) -> usize {
        self.opts.iter().filter(|(seen, _)| *seen == id).count()
    }

    /// Which of `ids` was given last: for options that override each other (`-L`/`-P`).
    pub fn last_of(&self, ids: &[&str]) -> Option<&'static str> {
        self.opts.iter().rev().map(|(seen, _)| *seen).find(|seen| ids.contains(seen))
    }

    /// The value of the last `id` given (a later `-m` overrides an earlier one).
    pub fn value(&self, id: &str) -> Option<&OsString> {
        self.opts.iter().rev().find(|(seen, _)| *seen == id).and_then(|(_, value)| value.as_ref())
    }

    /// Every value of `id`, in order (options that accumulate, like `-e` or `-f`).
    pub fn values<'s>(&'s self, id: &'s str) -> impl Iterator<Item = &'s OsString> + 's {
        self.opts.iter().filter(move |(seen, _)| *seen == id).filter_map(|(_, value)| value.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    const OPTS: &str = "all,a lines,n: color:: count";

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }


    fn run_contract(args: &[&str]) -> (i32, String, String, Vec<Parsed>) {
        const CMD: Command = Command { usage_status: 2, ..Command::compact("demo", OPTS, "Usage: {name} [OPTION]...\n{standard}") };
        let (mut stdin, mut stdout, mut stderr) = (&b""[..], Vec::new(), Vec::new());
        let mut io = Io { name: "demo".into(), stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
        let mut seen = Vec::new();
        let result = CMD.options(&os(args), &mut io, &mut |_, p| match p {
            Parsed::Opt { id: "lines", value: Some(v) } if v == "bad" => Err(UError::new(1, "invalid number of lines: 'bad'")),
            other => {
                seen.push(other);
                Ok(())
            }
        });
        let status = io.finish(result.map(|()| 0));
        (status, String::from_utf8_lossy(&stdout).into_owned(), String::from_utf8_lossy(&stderr).into_owned(), seen)
    }

    #[test]
    fn contract_answers_help_version_and_usage_errors() {
        assert_eq!(run_contract(&["demo", "-a", "--help", "-z"]).0, 2, "a usage error anywhere wins, as getopt reads all first here");
        let (status, out, err, seen) = run_contract(&["demo", "-a", "--he", "x"]);
        assert_eq!((status, out.as_str(), err.as_str()), (0, &format!("Usage: demo [OPTION]...\n{}", STANDARD_HELP)[..], ""));
        assert_eq!(seen, vec![Parsed::Opt { id: "all", value: None }], "options after --help are not seen");
        let (status, out, _, _) = run_contract(&["demo", "--version"]);
        assert_eq!((status, out.as_str()), (0, "demo (Airlock coreutils) 0.1.0\n"));
        let (status, _, err, _) = run_contract(&["demo", "--nope"]);
        assert_eq!((status, err.as_str()), (2, "demo: unrecognized option '--nope'\nTry 'demo --help' for more information.\n"));
        let (status, out, err, _) = run_contract(&["demo", "-n", "bad", "--help"]);
        assert_eq!((status, out.as_str(), err.as_str()), (1, "", "demo: invalid number of lines: 'bad'\n"), "an invalid value before --help is reported first");
    }

    #[test]
    fn operands_are_returned_and_counted() {
        const CMD: Command = Command::compact("demo", OPTS, "").operands_between(1, 2);
        let run = |args: &[&str]| {
            let (mut stdin, mut stdout, mut stderr) = (&b""[..], Vec::new(), Vec::new());
            let mut io = Io { name: "demo".into(), stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
            let mut seen = Vec::new();
            let result = CMD.operands(&os(args), &mut io, &mut |_, id, _| {
                seen.push(id);
                Ok(())
            });
            let operands = result.map_err(|e| (e.status, e.message)).map(|o| o.len());
            (operands, seen)
        };
        assert_eq!(run(&["demo", "x", "-a", "y"]), (Ok(2), vec!["all"]));
        assert_eq!(run(&["demo", "-a"]).0, Err((1, "missing operand".to_string())));
        assert_eq!(run(&["demo", "x", "y", "z w"]).0, Err((1, "extra operand 'z w'".to_string())));
        const TWO: Command = Command { missing: "file operand", ..Command::compact("demo", "", "").operands_between(2, 2) };
        let (mut stdin, mut stdout, mut stderr) = (&b""[..], Vec::new(), Vec::new());
        let mut io = Io { name: "demo".into(), stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
        let err = TWO.operands(&os(&["demo", "a"]), &mut io, &mut |_, _, _| Ok(())).map(|_| ()).unwrap_err();
        assert_eq!((err.status, err.message.as_str(), err.usage), (1, "missing file operand after 'a'", true));
    }

    #[test]
    fn seen_keeps_order_overrides_and_counts() {
        const CMD: Command = Command::compact("demo", "L P m: v,verbose", "").operands_between(1, 1);
        let (mut stdin, mut stdout, mut stderr) = (&b""[..], Vec::new(), Vec::new());
        let mut io = Io { name: "demo".into(), stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
        let seen = CMD.seen(&os(&["demo", "-L", "-m", "1", "x", "-vP", "--verb", "-m2"]), &mut io).unwrap();
        assert_eq!(seen.operands, os(&["x"]));
        assert_eq!((seen.flag("L"), seen.flag("nope"), seen.count("v")), (true, false, 2));
        assert_eq!((seen.last_of(&["L", "P"]), seen.last_of(&["nope"])), (Some("P"), None));
        assert_eq!(seen.value("m").map(|v| v.as_os_str()), Some(OsStr::new("2")));
        assert_eq!(seen.values("m").count(), 2);
        let err = CMD.seen(&os(&["demo", "-L"]), &mut io).map(|_| ()).unwrap_err();
        assert_eq!((err.status, err.message.as_str()), (1, "missing operand"));
    }

}
