//! The interpreter's state and its top-level loop: read one complete command, run it,
//! repeat — so aliases and errors take effect line by line, as in bash.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use shell_parser::ast::FunctionDef;
use shell_parser::{ErrorKind, ParseError, Parser};

use crate::exec::Flow;
use crate::hash::FastMap;
use crate::sys::Sys;
use crate::io::FdTable;
use crate::jobs::Jobs;
use crate::options::{Options, Shopt};
use crate::traps::Traps;
use crate::vars::Variables;

/// The sandbox's `callDepth` and `substitutionDepth` limits (docs/limits.md). The kernel
/// passes the sandbox's values to the session shell (`--call-depth=N`,
/// `--substitution-depth=N`, see session.rs) and every child shell inherits them with its
/// state; the defaults here are src/protocol/limits.ts's, for a shell started without them
/// (natively, in tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Function nesting bound: deeper recursion is an error, not a crash.
    pub call_depth: u32,
    /// `$( )` nesting bound (each level is a process).
    pub substitution_depth: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { call_depth: 1000, substitution_depth: 50 }
    }
}

/// Nested child shells (`f() { (f); }`): each level is a live process (a wasm instance
/// with its own memory in the sandbox), so a runaway recursion stops here.
pub const MAX_SUBSHELL_DEPTH: u32 = 64;
/// Bound on nested command lists (function bodies, loops, `if` branches inside each
/// other). In the sandbox the interpreter's recursion uses the JavaScript engine's stack
/// (about 1 MiB); this keeps a deep recursion an error instead of a crash. Measured: about
/// 1,500 levels fit, so a function whose body nests an `if` recurses about 650 deep.
pub const MAX_NESTING: u32 = 1300;

/// How the shell was started; decides error prefixes and what ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `bash -c 'commands'`
    Command,
    /// `bash script.sh`, or a script read from standard input.
    Script,
    /// The sandbox's long-lived session shell.
    Session,
    /// A subshell, pipeline stage or `$( )` started by another shell.
    Child,
}

/// Aliases, shared with the parser's lookup closure.
#[derive(Debug, Default)]
pub struct AliasTable {
    pub map: RefCell<BTreeMap<String, String>>,
    /// `shopt expand_aliases`
    pub enabled: Cell<bool>,
}

/// One function call (FUNCNAME, BASH_SOURCE, BASH_LINENO).
#[derive(Debug, Clone, PartialEq)]
pub struct CallFrame {
    pub name: String,
    pub source: String,
    pub call_line: u32,
}

pub struct Shell {
    pub sys: Box<dyn Sys>,
    pub vars: Variables,
    pub functions: FastMap<String, Rc<FunctionDef>>,
    /// `export -f` / `readonly -f` (see function_attrs.rs).
    pub function_attrs: BTreeMap<String, u8>,
    pub aliases: Rc<AliasTable>,
    pub options: Options,
    pub positional: Vec<String>,
    /// `$0`
    pub arg0: String,
    pub fds: FdTable,
    pub traps: Traps,
    pub jobs: Jobs,
    /// The session's commands, one entry per run (`history`); empty elsewhere, as in a
    /// non-interactive bash.
    pub history: Vec<String>,
    pub dirstack: Vec<String>,
    /// `$?`
    pub status: i32,
    pub pipestatus: Vec<i32>,
    /// `$!`
    pub last_bg_pid: Option<u32>,
    /// `$$` (the top shell's pid, also in subshells)
    pub shell_pid: u32,
    pub frames: Vec<CallFrame>,
    pub loop_depth: u32,
    pub subst_depth: u32,
    pub limits: Limits,
    /// `BASH_SUBSHELL`
    pub subshell_level: u32,
    /// `LINENO` of the command being run.
    pub lineno: u32,
    pub mode: Mode,
    /// What error messages start with: `bash` or the script's name.
    pub error_prefix: String,
    /// The file being read (BASH_SOURCE of the top level).
    pub source_name: String,
    /// The logical working directory (`$PWD`).
    pub cwd: String,
    /// Remembered program paths (`hash`).
    pub hash: crate::programs::ProgramTable,
    pub random: crate::vars::special::Random,
    /// When SECONDS was 0 on the monotonic clock (wrapping: `SECONDS=100` early on
    /// puts it before the clock's zero).
    pub start_ns: u64,
    /// Inside an `if`/`while` condition, a `!` pipeline or a non-final `&&`/`||` operand,
    /// where `set -e` does not apply.
    pub errexit_suppressed: u32,
    /// `$_`
    pub last_arg: String,
    /// Statements run since the last session poll.
    pub steps: u32,
    /// Status of the last command substitution in the current command (what `x=$(false)`
    /// leaves in `$?`).
    pub subst_status: Option<i32>,
    /// Process-substitution descriptors to close when the current command ends.
    pub procsub_fds: Vec<u32>,
    /// Within a trap handler (traps do not nest).
    pub in_trap: bool,
    /// Nested command lists being run (see [`MAX_NESTING`]).
    pub nesting: u32,
    /// `set -x` output for the current command was already written.
    pub trace_muted: bool,
    /// An inline pipeline stage is writing (EPIPE then means "killed by SIGPIPE").
    pub writing_to_pipe: bool,
    pub broken_pipe: bool,
    /// `getopts` position inside a bundle of short options (`-abc`).
    pub getopts_offset: usize,
    pub temp_counter: u32,
    /// The kernel's session asked this run to stop: its status (124 or 130).
    pub cancelled: Option<i32>,
    /// Array assignments given to the declaration builtin being called (`local a=(1 2)`).
    pub decl_args: Vec<crate::expand::DeclArg>,
    /// Depth of `source` (where `return` is allowed outside functions).
    pub sourcing: u32,
    /// The command being run, for BASH_COMMAND (kept only while traps are set).
    pub bash_command: String,
    /// The OPTIND value `getopts` last set (a different one means the script reset it).
    pub getopts_last_optind: usize,
    /// An error is abandoning everything up to the script's top level (bash's DISCARD):
    /// `eval` and `source` pass the abort on instead of going on.
    pub discarding: bool,
}

impl Shell {
    pub fn new(sys: Box<dyn Sys>, mode: Mode) -> Shell {
        let mut sys = sys;
        let pid = sys.getpid();
        let start_ns = sys.monotonic_ns();
        let seed = sys.random_u32();
        Shell {
            sys,
            vars: Variables::new(),
            functions: FastMap::default(),
            function_attrs: BTreeMap::new(),
            aliases: Rc::new(AliasTable::default()),
            options: Options::default(),
            positional: Vec::new(),
            arg0: "bash".to_string(),
            fds: FdTable::standard(),
            traps: Traps::default(),
            jobs: Jobs::default(),
            history: Vec::new(),
            dirstack: Vec::new(),
            status: 0,
            pipestatus: vec![0],
            last_bg_pid: None,
            shell_pid: pid,
            frames: Vec::new(),
            loop_depth: 0,
            subst_depth: 0,
            limits: Limits::default(),
            subshell_level: 0,
            lineno: 0,
            mode,
            error_prefix: "bash".to_string(),
            source_name: String::new(),
            cwd: "/".to_string(),
            hash: crate::programs::ProgramTable::default(),
            random: crate::vars::special::Random::new(seed),
            start_ns,
            errexit_suppressed: 0,
            last_arg: String::new(),
            steps: 0,
            subst_status: None,
            procsub_fds: Vec::new(),
            in_trap: false,
            nesting: 0,
            writing_to_pipe: false,
            trace_muted: false,
            broken_pipe: false,
            getopts_offset: 0,
            temp_counter: 0,
            cancelled: None,
            decl_args: Vec::new(),
            sourcing: 0,
            getopts_last_optind: 1,
            discarding: false,
            bash_command: String::new(),
        }
    }

    // ---- messages ------------------------------------------------------------------------

    /// Writes raw bytes to a virtual descriptor (errors are the caller's to report).
    pub fn write_fd(&mut self, fd: u32, data: &[u8]) -> Result<(), crate::sys::Errno> {
        match self.fds.get(fd).cloned() {
            Some(target) => crate::io::write_target(self.sys.as_mut(), &target, data),
            None => Err(crate::sys::Errno::BADF),
        }
    }

    /// Writes to standard error, ignoring failures (there is nowhere to report them).
    pub fn write_err(&mut self, text: &str) {
        let _ = self.write_fd(2, &crate::text::to_bytes(text));
    }

    /// An error message in bash's shape: `bash: line 3: message`.
    pub fn report(&mut self, message: &str) {
        let line = if self.mode == Mode::Session && self.lineno == 0 { String::new() } else { format!("line {}: ", self.lineno) };
        // bash names `${BASH_SOURCE[0]}` when it is set: the file of the running function
        // ("environment" for one defined by `bash -c` text) or of the sourced file.
        let name = match self.frames.last() {
            Some(frame) if !frame.source.is_empty() => &frame.source,
            None if self.sourcing > 0 && !self.source_name.is_empty() => &self.source_name,
            _ => &self.error_prefix,
        };
        let text = format!("{}: {}{}\n", name, line, message);
        self.write_err(&text);
    }

    /// A syntax error: bash names where the text came from (`-c`, `eval`, a file) and
    /// echoes the offending line.
    pub fn report_syntax_error(&mut self, origin: &str, error: &ParseError) {
        let place = if origin.is_empty() { String::new() } else { format!("{}: ", origin) };
        let prefix = if self.mode == Mode::Script && origin == self.error_prefix { String::new() } else { format!("{}: ", self.error_prefix) };
        if let ErrorKind::Conditional(messages) = &error.kind {
            // One line per message, none at all for an empty `[[ ]]`, as bash reports them.
            let text: String = messages.iter().map(|(line, message)| format!("{}{}line {}: {}\n", prefix, place, line, message)).collect();
            self.write_err(&text);
            return;
        }
        let mut text = format!("{}{}line {}: {}\n", prefix, place, error.line, error);
        if let ErrorKind::UnexpectedToken(_) = error.kind {
            text.push_str(&format!("{}{}line {}: `{}'\n", prefix, place, error.line, error.source_line));
        }
        self.write_err(&text);
    }

    // ---- running source text ---------------------------------------------------------------

    /// Runs program text command by command. A syntax error is reported with `origin` and
    /// ends the text; the second value is then the status it leaves at the top level of
    /// `bash -c`, a script or the session (the caller decides whether that ends the shell,
    /// and `eval` and `source` use their own): 2, except for an error inside `[[ ]]`, after
    /// which bash 5.2 keeps the status of the last command that ran (its cond parser
    /// reports the error itself and the grammar never sees a syntax error).
    pub fn run_source(&mut self, source: &str, origin: &str, first_line: u32) -> (Flow, Option<i32>) {
        let aliases = self.aliases.clone();
        let lookup = move |name: &str| -> Option<String> {
            if aliases.enabled.get() {
                aliases.map.borrow().get(name).cloned()
            } else {
                None
            }
        };
        let mut parser = Parser::with_aliases(source, &lookup);
        parser.set_line(first_line);
        loop {
            self.aliases.enabled.set(self.options.shopt(Shopt::ExpandAliases));
            let list = match parser.next_command() {
                Ok(Some(list)) => list,
                Ok(None) => return (Flow::Normal, None),
                Err(error) => {
                    self.lineno = error.line;
                    self.report_syntax_error(origin, &error);
                    let status = if let ErrorKind::Conditional(_) = error.kind { self.status } else { 2 };
                    self.status = 2;
                    return (Flow::Normal, Some(status));
                }
            };
            if self.options.get(crate::options::Opt::Noexec) {
                continue;
            }
            match self.exec_list(&list) {
                Flow::Normal => {}
                Flow::Abort => {
                    if self.mode == Mode::Child && self.subshell_level > 0 && origin.is_empty() {
                        return (Flow::Exit, None);
                    }
                    if self.discarding && self.nesting > 0 {
                        return (Flow::Abort, None);
                    }
                    self.discarding = false;
                }
                // `eval break` and a sourced `continue` act on the loop around them.
                flow @ (Flow::Break(_) | Flow::Continue(_)) if self.nesting > 0 => return (flow, None),
                Flow::Break(_) | Flow::Continue(_) => {}
                other => return (other, None),
            }
            if self.cancelled.is_some() {
                return (Flow::Exit, None);
            }
        }
    }

    /// `$HOME` or the fallback home directory.
    pub fn home(&mut self) -> String {
        self.get_scalar("HOME").unwrap_or_else(|| "/".to_string())
    }

    /// Expands a prompt string (PS4): parameter, command and arithmetic expansions.
    pub fn expand_prompt_string(&mut self, text: &str) -> String {
        if !text.contains(|c| c == '$' || c == '`' || c == '\\') {
            return text.to_string();
        }
        match shell_parser::parse_text(text) {
            Ok(word) => self.expand_heredoc(&word).unwrap_or_else(|_| text.to_string()),
            Err(_) => text.to_string(),
        }
    }

    /// The status a fatal expansion error (`${x:?}`, `set -u`) exits with: bash -c uses
    /// 127, scripts and subshells 1.
    pub fn fatal_status(&self) -> i32 {
        match self.mode {
            Mode::Command | Mode::Session if self.subshell_level == 0 => 127,
            _ => 1,
        }
    }

    /// A new unique number for temporary file names.
    pub fn next_temp(&mut self) -> u32 {
        self.temp_counter += 1;
        self.temp_counter
    }
}
