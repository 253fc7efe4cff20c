//! The coreutils multicall binary: the kernel tells it which tool it runs as
//! (`proc_tool_name`); natively it goes by argv[0]'s basename, like busybox.

use std::ffi::OsString;

mod registry {
    use std::ffi::OsString;

    /// A command's entry point, on the shared contract (its error printed here).
    pub type Command = fn(Vec<OsString>, &mut common::Io) -> Result<i32, common::UError>;
    include!(concat!(env!("OUT_DIR"), "/registry.rs"));
}

fn main() {
    airlock_sys::init_process();
    std::process::exit(dispatch(std::env::args_os().collect()));
}

fn dispatch(mut args: Vec<OsString>) -> i32 {
    let argv0 = args.first().map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
    let basename = argv0.rsplit('/').next().unwrap_or("").to_string();
    let mut tool = airlock_sys::tool_name().unwrap_or_else(|| basename.clone());
    // Natively, `coreutils NAME ARGS...` runs NAME (for testing without symlinks).
    if tool == "coreutils" && args.len() > 1 {
        args.remove(0);
        tool = args[0].to_string_lossy().rsplit('/').next().unwrap_or("").to_string();
    }
    match registry::COMMANDS.iter().find(|(name, _)| *name == tool) {
        Some((_, run)) => {
            let name = if basename.is_empty() || basename == "coreutils" { tool.clone() } else { basename };
            common::io::run_with_std(name, |io| {
                let result = run(args, io);
                io.finish(result)
            })
        }
        None => {
            eprintln!("coreutils: {}: unknown command", tool);
            127
        }
    }
}
