//! The small shared core of the coreutils (like uutils' `uucore`): GNU-style option parsing,
//! errors with GNU's message shapes and exit statuses, buffered binary-safe I/O, file
//! metadata that works the same natively and on WASI, and spawning other commands.
//!
//! A command is `pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError>` (args[0]
//! is the name it was called by): it declares its options, help and usage status as an
//! [`args::Command`], which handles `--help`, `--version` and usage errors; the registry prints
//! a returned error as `name: message`. (Commands not yet moved return the status as `i32`.)
//! No statics, no `process::exit`: a command can be embedded and tested.

pub mod args;
pub mod canon;
pub mod cformat;
pub mod cnum;
pub mod duration;
pub mod error;
pub mod fnmatch;
pub mod fsext;
pub mod fsops;
pub mod human;
pub mod identity;
pub mod io;
pub mod lscolors;
pub mod modes;
pub mod process;
pub mod quotearg;
pub mod regex;
pub mod shellcmd;
pub mod signals;
pub mod size;
pub mod tabstops;
pub mod spawn;
pub mod strftime;
pub mod targets;
pub mod timefmt;
pub mod users;
pub mod write;

pub use args::{ArgError, Command, HasArg, OptSpec, Order, Parsed, Seen};
pub use error::{strerror, UError};
pub use io::Io;

/// The version line every command prints for `--version` (GNU's first line shape).
pub fn version_text(name: &str) -> String {
    format!("{} (Airlock coreutils) 0.1.0\n", name)
}
