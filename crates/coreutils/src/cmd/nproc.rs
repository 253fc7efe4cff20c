//! `nproc`: the number of processing units available (1 in the sandbox: every process of a
//! sandbox shares one thread). Honours OMP_NUM_THREADS / OMP_THREAD_LIMIT and `--ignore=N`
//! like GNU.

use std::ffi::OsString;

use common::io::quote;
use common::{Command, Io, UError};

const SPEC: &str = "all ignore:";

const HELP: &str = "Usage: {name} [OPTION]...\nPrint the number of processing units available to the current process,\nwhich may be less than the number of online processors\n\n      --all      print the number of installed processors\n      --ignore=N  if possible, exclude N processing units\n{standard}";

const NPROC: Command = Command::compact("nproc", SPEC, HELP).operands_between(0, 0);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut all = false;
    let mut ignore: u64 = 0;
    NPROC.operands(&args, io, &mut |_, id, value| {
        match id {
            "all" => all = true,
            "ignore" => {
                let text = value.unwrap_or_default();
                match text.to_str().and_then(|t| t.trim_start().parse::<u64>().ok()) {
                    Some(n) => ignore = n,
                    None => {
                        return Err(UError::new(1, format!("invalid number: {}", quote(&text))));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    let mut count = processors();
    if !all {
        if let Some(n) = omp_value("OMP_NUM_THREADS") {
            count = n;
        }
        if let Some(limit) = omp_value("OMP_THREAD_LIMIT") {
            count = count.min(limit);
        }
    }
    let count = if count > ignore { count - ignore } else { 1 };
    let _ = io.out(format!("{}\n", count).as_bytes());
    Ok(0)
}

fn processors() -> u64 {
    if cfg!(target_os = "wasi") {
        return 1;
    }
    std::thread::available_parallelism().map(|n| n.get() as u64).unwrap_or(1)
}

/// The first number of an OpenMP variable (`4` or `4,2`), when positive.
fn omp_value(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let first = text.trim().split(',').next()?.trim();
    first.parse::<u64>().ok().filter(|n| *n > 0)
}
