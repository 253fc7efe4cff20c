//! `whoami`: the name of the effective user (`user` in the sandbox).

use std::ffi::OsString;

use common::{identity, Command, Io, UError};

const HELP: &str = "Usage: {name} [OPTION]...\nPrint the user name associated with the current effective user ID.\nSame as id -un.\n\n{standard}";

const WHOAMI: Command = Command::compact("whoami", "", HELP).operands_between(0, 0);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    WHOAMI.operands(&args, io, &mut |_, _, _| Ok(()))?;
    let euid = identity::current().euid;
    Ok(match identity::account_by_uid(euid) {
        Some(a) => {
            let _ = io.out(format!("{}\n", a.name).as_bytes());
            0
        }
        None => {
            io.error(format!("cannot find name for user ID {}", euid));
            1
        }
    })
}
