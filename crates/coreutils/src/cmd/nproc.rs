//! `nproc`: the number of processing units available (1 in the sandbox: every process of a
//! sandbox shares one thread). Honours OMP_NUM_THREADS / OMP_THREAD_LIMIT and `--ignore=N`
//! like GNU.

use std::ffi::OsString;

use common::args::{parse, HasArg, Order, Parsed};
use common::io::quote;
use common::{Io, OptSpec};

const SPEC: &[OptSpec] = &[
    OptSpec::long("all", "all", HasArg::No),
    OptSpec::long("ignore", "ignore", HasArg::Required),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::long("version", "version", HasArg::No),
];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return io.usage_error(&e, 1),
    };
    let mut all = false;
    let mut ignore: u64 = 0;
    for item in parsed {
        match item {
            Parsed::Opt { id: "all", .. } => all = true,
            Parsed::Opt { id: "ignore", value } => {
                let text = value.unwrap_or_default();
                match text.to_str().and_then(|t| t.trim_start().parse::<u64>().ok()) {
                    Some(n) => ignore = n,
                    None => {
                        io.error(format!("invalid number: {}", quote(&text)));
                        return 1;
                    }
                }
            }
            Parsed::Opt { id: "help", .. } => {
                let text = format!("Usage: {} [OPTION]...\nPrint the number of processing units available to the current process,\nwhich may be less than the number of online processors\n\n      --all      print the number of installed processors\n      --ignore=N  if possible, exclude N processing units\n      --help        display this help and exit\n      --version     output version information and exit\n", io.name);
                let _ = io.out(text.as_bytes());
                return 0;
            }
            Parsed::Opt { .. } => {
                let _ = io.out(common::version_text("nproc").as_bytes());
                return 0;
            }
            Parsed::Operand(extra) => {
                io.error(format!("extra operand {}", quote(&extra)));
                io.try_help();
                return 1;
            }
        }
    }
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
    0
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
