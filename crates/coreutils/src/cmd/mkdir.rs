//! `mkdir`: make directories (-p parents, -m mode, -v verbose).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use common::args::Command;
use common::io::quote;
use common::modes::ModeChange;
use common::{strerror, Io, UError};

const SPEC: &str = "mode,m: parents,p verbose,v context=Z context::";

const MKDIR: Command = Command::compact("mkdir", SPEC, HELP).operands_between(1, usize::MAX);

const HELP: &str = "Usage: mkdir [OPTION]... DIRECTORY...
Create the DIRECTORY(ies), if they do not already exist.

  -m, --mode=MODE   set file mode (as in chmod), not a=rwx - umask
  -p, --parents     no error if existing, make parent directories as needed,
                    with their file modes unaffected by any -m option
  -v, --verbose     print a message for each created directory
{standard}";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    // As GNU's mkdir, the mode (the last -m) is read after the options.
    let seen = MKDIR.seen(&args, io)?;
    if seen.flag("context") {
        return Err(UError::new(1, "option not supported in the sandbox: --context"));
    }
    let mode = match seen.value("mode").map(|v| v.to_string_lossy().into_owned()) {
        Some(text) => Some(ModeChange::parse(&text).ok_or_else(|| UError::new(1, format!("invalid mode {}", quote(text.as_ref()))))?),
        None => None,
    };
    let (parents, verbose, dirs) = (seen.flag("parents"), seen.flag("verbose"), seen.operands);
    let umask = common::fsext::umask(None);
    let mut status = 0;
    for dir in dirs {
        let path = PathBuf::from(&dir);
        let result = if parents { make_parents(io, &path, mode.as_ref(), umask, verbose) } else { make_one(io, &path, mode.as_ref(), umask, verbose) };
        if let Err(e) = result {
            io.error(format!("cannot create directory {}: {}", quote(dir.as_ref()), strerror(&e)));
            status = 1;
        }
    }
    Ok(status)
}

fn make_one(io: &mut Io, path: &Path, mode: Option<&ModeChange>, umask: u32, verbose: bool) -> io::Result<()> {
    std::fs::create_dir(path)?;
    if let Some(m) = mode {
        common::fsext::set_mode(path, m.apply(0o777 & !umask, true, umask))?;
    }
    if verbose {
        let _ = io.out(format!("{}: created directory {}\n", io.name, quote(path.as_os_str())).as_bytes());
    }
    Ok(())
}

fn make_parents(io: &mut Io, path: &Path, mode: Option<&ModeChange>, umask: u32, verbose: bool) -> io::Result<()> {
    let mut prefixes: Vec<PathBuf> = path.ancestors().filter(|p| !p.as_os_str().is_empty()).map(Path::to_path_buf).collect();
    prefixes.reverse();
    let last = prefixes.len().saturating_sub(1);
    for (i, prefix) in prefixes.iter().enumerate() {
        if common::fsext::metadata(prefix, true).map_or(false, |m| m.is_dir()) {
            continue;
        }
        let result = if i == last { make_one(io, prefix, mode, umask, verbose) } else { make_one(io, prefix, None, umask, verbose) };
        if let Err(e) = result {
            // Another process (or a `..` component) may have made it in between.
            if e.kind() == io::ErrorKind::AlreadyExists && common::fsext::metadata(prefix, true).map_or(false, |m| m.is_dir()) {
                continue;
            }
            return Err(e);
        }
    }
    Ok(())
}
