//! jq 1.6's command line: short options may be combined in any order (`-rc`), long ones
//! are exact, options may follow the program, the first positional argument is the
//! program (or, with -f, the file holding it), and with --args/--jsonargs the remaining
//! positionals become `$ARGS.positional` instead of input files.

use std::ffi::OsString;

use super::json;
use super::print::{Colors, Style};
use super::value::Value;

pub enum OptError {
    Version,
    /// A usage mistake: printed with jq's hint.
    Usage(String),
    /// Printed as is.
    Fatal(String),
}

#[derive(Default)]
pub struct Options {
    pub program: String,
    pub files: Vec<OsString>,
    pub null_input: bool,
    pub raw_input: bool,
    pub slurp: bool,
    pub raw_output: bool,
    pub join_output: bool,
    pub ascii: bool,
    pub compact: bool,
    pub tab: bool,
    pub indent: usize,
    pub color: bool,
    pub sort_keys: bool,
    pub exit_status: bool,
    pub seq: bool,
    pub stream: bool,
    pub named: Vec<(String, Value)>,
    pub positional: Vec<Value>,
}

impl Options {
    pub fn style(&self) -> Style {
        let pretty = !self.compact && (self.tab || self.indent > 0);
        Style {
            indent: if pretty && !self.tab { Some(self.indent) } else { None },
            tab: pretty && self.tab,
            sort_keys: self.sort_keys,
            ascii: self.ascii,
            color: if self.color {
                Some(match std::env::var("JQ_COLORS") {
                    Ok(spec) => Colors::from_env(&spec),
                    Err(_) => Colors::default_colors(),
                })
            } else {
                None
            },
        }
    }
}

fn read_file(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("Could not open {}: {}", path, common::strerror(&e)))
}

/// The short switches and the long ones they stand for.
const SHORT: &[(char, &str)] = &[
    ('s', "slurp"),
    ('R', "raw-input"),
    ('n', "null-input"),
    ('r', "raw-output"),
    ('j', "join-output"),
    ('a', "ascii-output"),
    ('c', "compact-output"),
    ('C', "color-output"),
    ('M', "monochrome-output"),
    ('S', "sort-keys"),
    ('e', "exit-status"),
    ('f', "from-file"),
];

/// Sets the switch named `long` (an option without a value); false when it is not one.
fn switch(long: &str, o: &mut Options, from_file: &mut bool) -> bool {
    match long {
        "slurp" => o.slurp = true,
        "raw-input" => o.raw_input = true,
        "null-input" => o.null_input = true,
        "raw-output" => o.raw_output = true,
        "join-output" => {
            o.raw_output = true;
            o.join_output = true;
        }
        "ascii-output" => o.ascii = true,
        "compact-output" => o.compact = true,
        "color-output" => o.color = true,
        "monochrome-output" => o.color = false,
        "sort-keys" => o.sort_keys = true,
        "exit-status" => o.exit_status = true,
        "tab" => o.tab = true,
        "seq" => o.seq = true,
        "stream" => o.stream = true,
        "unbuffered" => {}
        "from-file" => *from_file = true,
        _ => return false,
    }
    true
}

/// Ok(None): --help was asked for.
pub fn parse(args: &[OsString]) -> Result<Option<Options>, OptError> {
    // jq 1.6 colours by default when stdout is a terminal (whatever TERM says).
    let mut o = Options { indent: 2, color: common::fsops::is_terminal(1), ..Options::default() };
    let mut program: Option<String> = None;
    let mut from_file = false;
    let mut args_mode: Option<bool> = None; // Some(true) = --jsonargs
    let mut only_positional = false;
    let text: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut i = 0;
    let need = |i: usize, n: usize, what: &str| -> Result<(), OptError> {
        if i + n >= text.len() {
            Err(OptError::Usage(what.to_string()))
        } else {
            Ok(())
        }
    };
    while i < text.len() {
        let a = text[i].clone();
        i += 1;
        let positional = only_positional || !a.starts_with('-') || a == "-";
        if positional {
            if program.is_none() {
                program = Some(a);
            } else if let Some(json_args) = args_mode {
                if json_args {
                    match json::parse_one(a.as_bytes()) {
                        Ok(v) => o.positional.push(v),
                        Err(_) => return Err(OptError::Usage(format!("Invalid JSON text passed to --jsonargs"))),
                    }
                } else {
                    o.positional.push(Value::string(a));
                }
            } else {
                o.files.push(args[i - 1].clone());
            }
            continue;
        }
        if a == "--" {
            only_positional = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            if switch(long, &mut o, &mut from_file) {
                continue;
            }
            match long {
                "args" => args_mode = Some(false),
                "jsonargs" => args_mode = Some(true),
                "help" => return Ok(None),
                "version" => return Err(OptError::Version),
                "indent" => {
                    need(i - 1, 1, "--indent takes one parameter")?;
                    let n: i64 = text[i].parse().map_err(|_| OptError::Usage("--indent takes a number".to_string()))?;
                    if n > 7 {
                        return Err(OptError::Usage("Cannot indent more than 7 characters".to_string()));
                    }
                    if n < -1 {
                        return Err(OptError::Usage("--indent takes a number between -1 and 7".to_string()));
                    }
                    if n == -1 {
                        o.tab = true;
                    } else {
                        o.indent = n as usize;
                    }
                    i += 1;
                }
                "arg" | "argjson" | "slurpfile" | "rawfile" => {
                    need(i - 1, 2, &format!("--{} takes two parameters (e.g. --{} varname {})", long, long, if long == "arg" { "value" } else if long == "argjson" { "text" } else { "filename" }))?;
                    let name = text[i].clone();
                    let value = &text[i + 1];
                    i += 2;
                    let v = match long {
                        "arg" => Value::string(value.clone()),
                        "argjson" => json::parse_one(value.as_bytes()).map_err(|_| OptError::Usage("invalid JSON text passed to --argjson".to_string()))?,
                        "slurpfile" => {
                            let data = read_file(value).map_err(|m| OptError::Fatal(format!("Bad JSON in --slurpfile {} {}: {}", name, value, m)))?;
                            Value::array(json::parse_all(&data).map_err(|m| OptError::Fatal(format!("Bad JSON in --slurpfile {} {}: {}", name, value, m)))?)
                        }
                        _ => {
                            let data = read_file(value).map_err(|m| OptError::Fatal(format!("Bad JSON in --rawfile {} {}: {}", name, value, m)))?;
                            Value::string(String::from_utf8_lossy(&data).into_owned())
                        }
                    };
                    o.named.retain(|(n, _)| *n != name);
                    o.named.push((name, v));
                }
                "debug-dump-disasm" | "debug-trace" | "debug-trace=all" => return Err(OptError::Fatal(format!("option not supported in the sandbox: --{}", long))),
                _ => return Err(OptError::Usage(format!("Unknown option {}", a))),
            }
            continue;
        }
        // Short options, combined in any order.
        for c in a[1..].chars() {
            match c {
                'h' => return Ok(None),
                'L' => return Err(OptError::Fatal("option not supported in the sandbox: -L (modules)".to_string())),
                _ => match SHORT.iter().find(|(short, _)| *short == c) {
                    Some((_, long)) if switch(long, &mut o, &mut from_file) => {}
                    _ => return Err(OptError::Usage(format!("Unknown option {}", a))),
                },
            }
        }
    }
    let program = match program {
        Some(p) => p,
        None => ".".to_string(),
    };
    o.program = if from_file {
        let data = read_file(&program).map_err(OptError::Fatal)?;
        String::from_utf8_lossy(&data).into_owned()
    } else {
        program
    };
    Ok(Some(o))
}

pub const HELP: &str = "jq - commandline JSON processor [version 1.6]

Usage:\tjq [options] <jq filter> [file...]
\tjq [options] --args <jq filter> [strings...]
\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]

jq is a tool for processing JSON inputs, applying the given filter to
its JSON text inputs and producing the filter's results as JSON on
standard output.

The simplest filter is ., which copies jq's input to its output
unmodified (except for formatting, but note that IEEE754 is used
for number representation internally, with all that that implies).

For more advanced filters see the jq(1) manpage (\"man jq\")
and/or https://stedolan.github.io/jq

Example:

\t$ echo '{\"foo\": 0}' | jq .
\t{
\t\t\"foo\": 0
\t}

Some of the options include:
  -c               compact instead of pretty-printed output;
  -n               use `null` as the single input value;
  -e               set the exit status code based on the output;
  -s               read (slurp) all inputs into an array; apply filter to it;
  -r               output raw strings, not JSON texts;
  -R               read raw strings, not JSON texts;
  -C               colorize JSON;
  -M               monochrome (don't colorize JSON);
  -S               sort keys of objects on output;
  --tab            use tabs for indentation;
  --arg a v        set variable $a to value <v>;
  --argjson a v    set variable $a to JSON value <v>;
  --slurpfile a f  set variable $a to an array of JSON texts read from <f>;
  --rawfile a f    set variable $a to a string consisting of the contents of <f>;
  --args           remaining arguments are string arguments, not files;
  --jsonargs       remaining arguments are JSON arguments, not files;
  --               terminates argument processing;

Named arguments are also available as $ARGS.named[], while
positional arguments are available as $ARGS.positional[].

See the manpage for more options.
";
