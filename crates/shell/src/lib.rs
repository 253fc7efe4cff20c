//! A bash-compatible shell for the Airlock sandbox.
//!
//! Layers: `shell-parser` turns source into a typed tree; [`exec`] runs it; [`expand`]
//! does word expansion; [`builtins`] are the builtin commands; everything outside the
//! process goes through the [`sys::Sys`] trait (the sandbox's WASI + airlock imports, the
//! native OS for development, or a fake in tests). See docs/shell.md.

#[macro_use]
pub mod exec;

pub mod arith;
pub mod builtins;
pub mod cli;
pub mod expand;
pub mod hash;
pub mod io;
pub mod jobs;
pub mod json;
pub mod options;
pub mod function_attrs;
pub mod pattern;
pub mod programs;
pub mod regex;
pub mod session;
pub mod shell;
pub mod state;
pub mod sys;
pub mod text;
pub mod traps;
pub mod vars;

mod timing;

#[cfg(test)]
mod tests;

pub use crate::shell::Shell;

/// An arithmetic expression as text (error messages).
pub(crate) fn printer_arith(expr: &shell_parser::ast::Arith) -> String {
    shell_parser::printer::arith_to_string(expr)
}

/// The program's entry: picks the role from the arguments and runs it; the exit status.
pub fn main_entry() -> i32 {
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let sys = platform_sys(&args);
    match args.get(1).map(String::as_str) {
        Some(exec::child::CHILD_FLAG) => exec::child::run_child(sys),
        Some(session::SESSION_FLAG) => session::run(sys, &args[2..]),
        _ => cli::run(sys, args),
    }
}

#[cfg(target_os = "wasi")]
fn platform_sys(_args: &[String]) -> Box<dyn sys::Sys> {
    airlock_sys::init_process();
    Box::new(sys::wasi::WasiSys::new(_args.get(1).map(String::as_str) == Some(session::SESSION_FLAG)))
}

#[cfg(all(unix, not(target_os = "wasi")))]
fn platform_sys(args: &[String]) -> Box<dyn sys::Sys> {
    Box::new(sys::native::NativeSys::new(args))
}
