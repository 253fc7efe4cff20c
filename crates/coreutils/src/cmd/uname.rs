//! `uname`: system information. In the sandbox it reports a Linux-like identity (kernel
//! `Linux`, release `6.1.0-airlock`, machine `wasm32`, the node name from /etc/hostname);
//! natively the machine's, from /proc/sys/kernel.

use std::ffi::OsString;

use common::{Command, Io, UError};

const SPEC: &str = "all,a kernel-name,s kernel-name=sysname nodename,n kernel-release,r kernel-release=release kernel-version,v machine,m processor,p hardware-platform,i operating-system,o";

const UNAME: Command = Command::compact("uname", SPEC, HELP).operands_between(0, 0);

const KERNEL: u32 = 1;
const NODE: u32 = 2;
const RELEASE: u32 = 4;
const VERSION: u32 = 8;
const MACHINE: u32 = 16;
const PROCESSOR: u32 = 32;
const PLATFORM: u32 = 64;
const OS: u32 = 128;

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut wanted = 0u32;
    let mut all = false;
    UNAME.operands(&args, io, &mut |io, id, _| {
        wanted |= match id {
            "all" => {
                all = true;
                KERNEL | NODE | RELEASE | VERSION | MACHINE | OS
            }
            "kernel-name" => KERNEL,
            "nodename" => NODE,
            "kernel-release" => RELEASE,
            "kernel-version" => VERSION,
            "machine" => MACHINE,
            "processor" => PROCESSOR,
            "hardware-platform" => PLATFORM,
            "operating-system" => OS,
            _ => {
                let _ = io.out(common::version_text("uname").as_bytes());
                return Err(UError::exit(0));
            }
        };
        Ok(())
    })?;
    if wanted == 0 {
        wanted = KERNEL;
    }
    let info = system_info();
    let mut fields: Vec<String> = Vec::new();
    let parts = [
        (KERNEL, info.0),
        (NODE, info.1),
        (RELEASE, info.2),
        (VERSION, info.3),
        (MACHINE, info.4),
        (PROCESSOR, "unknown".to_string()),
        (PLATFORM, "unknown".to_string()),
        (OS, "GNU/Linux".to_string()),
    ];
    for (bit, value) in parts {
        // -a leaves out the processor and platform when they are unknown, as GNU does.
        if wanted & bit != 0 && !(all && (bit == PROCESSOR || bit == PLATFORM)) {
            fields.push(value);
        }
    }
    let _ = io.out(format!("{}\n", fields.join(" ")).as_bytes());
    Ok(0)
}

/// (kernel name, node name, release, version, machine).
fn system_info() -> (String, String, String, String, String) {
    if cfg!(target_os = "wasi") {
        return (
            "Linux".to_string(),
            read_first_line("/etc/hostname").unwrap_or_else(|| "airlock".to_string()),
            "6.1.0-airlock".to_string(),
            "#1 SMP Airlock".to_string(),
            "wasm32".to_string(),
        );
    }
    let get = |name: &str| read_first_line(&format!("/proc/sys/kernel/{}", name)).unwrap_or_else(|| "unknown".to_string());
    (get("ostype"), get("hostname"), get("osrelease"), get("version"), std::env::consts::ARCH.to_string())
}

fn read_first_line(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.lines().next().unwrap_or("").to_string())
}

const HELP: &str = "Usage: {name} [OPTION]...\nPrint certain system information.  With no OPTION, same as -s.\n\n  -a, --all                print all information, in the following order,\n                             except omit -p and -i if unknown:\n  -s, --kernel-name        print the kernel name\n  -n, --nodename           print the network node hostname\n  -r, --kernel-release     print the kernel release\n  -v, --kernel-version     print the kernel version\n  -m, --machine            print the machine hardware name\n  -p, --processor          print the processor type (non-portable)\n  -i, --hardware-platform  print the hardware platform (non-portable)\n  -o, --operating-system   print the operating system\n{standard}";
