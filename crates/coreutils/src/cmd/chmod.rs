//! `chmod`: change permission bits, octal or symbolic (`u+x,g-w,o=r,a+X`), with -R, -v, -c,
//! -f and --reference. `chmod -w f` works: an operand like `-w` is a mode, not an option.

use std::ffi::OsString;
use std::path::Path;

use common::args::{os_bytes, Command};
use common::io::quote;
use common::modes::{mode_string, ModeChange};
use common::targets::join;
use common::{strerror, Io, Parsed, UError};

const SPEC: &str = "changes,c silent,f silent=quiet verbose,v recursive,R reference: no-preserve-root preserve-root";

const CHMOD: Command = Command::compact("chmod", SPEC, HELP);

const HELP: &str = "Usage: chmod [OPTION]... MODE[,MODE]... FILE...
  or:  chmod [OPTION]... OCTAL-MODE FILE...
  or:  chmod [OPTION]... --reference=RFILE FILE...
Change the mode of each FILE to MODE.
With --reference, change the mode of each FILE to that of RFILE.

  -c, --changes          like verbose but report only when a change is made
  -f, --silent, --quiet  suppress most error messages
  -v, --verbose          output a diagnostic for every file processed
      --no-preserve-root  do not treat '/' specially (the default)
      --preserve-root    fail to operate recursively on '/'
      --reference=RFILE  use RFILE's mode instead of MODE values
  -R, --recursive        change files and directories recursively
{standard}
Each MODE is of the form '[ugoa]*([-+=]([rwxXst]*|[ugo]))+|[-+=][0-7]+'.
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Report {
    Quiet,
    Changes,
    Always,
}

struct Options {
    report: Report,
    silent: bool,
    recursive: bool,
    umask: u32,
}

/// Whether `-w`, `-rx`, `-0` etc. is a mode rather than an option.
fn looks_like_mode(arg: &[u8]) -> bool {
    arg.len() >= 2 && arg[0] == b'-' && arg[1..].iter().all(|b| b"rwxXstugoa=+-,01234567".contains(b))
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut rest = Vec::new();
    let mut mode_arg: Option<OsString> = None;
    let mut after_dashes = false;
    for a in &args[1..] {
        if !after_dashes && mode_arg.is_none() && looks_like_mode(os_bytes(a)) {
            mode_arg = Some(a.clone());
            continue;
        }
        if os_bytes(a) == b"--" {
            after_dashes = true;
        }
        rest.push(a.clone());
    }
    let mut o = Options { report: Report::Quiet, silent: false, recursive: false, umask: common::fsext::umask(None) };
    let mut reference = None;
    let mut preserve_root = false;
    let mut operands = Vec::new();
    CHMOD.options_after_name(&rest, io, &mut |_, p| {
        match p {
            Parsed::Opt { id: "changes", .. } => o.report = Report::Changes,
            Parsed::Opt { id: "verbose", .. } => o.report = Report::Always,
            Parsed::Opt { id: "silent", .. } => o.silent = true,
            Parsed::Opt { id: "recursive", .. } => o.recursive = true,
            Parsed::Opt { id: "reference", value } => reference = value,
            Parsed::Opt { id: "preserve-root", .. } => preserve_root = true,
            Parsed::Opt { id: "no-preserve-root", .. } => preserve_root = false,
            Parsed::Opt { .. } => {}
            Parsed::Operand(op) => operands.push(op),
        }
        Ok(())
    })?;
    let change = match reference {
        Some(r) => match common::fsext::metadata(Path::new(&r), true) {
            Ok(m) => match ModeChange::parse(&format!("{:o}", m.permissions())) {
                Some(c) => c,
                None => return Ok(1),
            },
            Err(e) => {
                return Err(UError::new(1, format!("failed to get attributes of {}: {}", quote(&r), strerror(&e))));
            }
        },
        None => {
            let text = match mode_arg.or_else(|| if operands.is_empty() { None } else { Some(operands.remove(0)) }) {
                Some(t) => t,
                None => {
                    return Err(UError::usage(1, "missing operand"));
                }
            };
            match ModeChange::parse(&text.to_string_lossy()) {
                Some(c) => {
                    if operands.is_empty() {
                        return Err(UError::usage(1, format!("missing operand after {}", quote(&text))));
                    }
                    c
                }
                None => {
                    return Err(UError::usage(1, format!("invalid mode: {}", quote(&text))));
                }
            }
        }
    };
    if operands.is_empty() {
        return Err(UError::usage(1, "missing operand"));
    }
    let mut status = 0;
    for file in operands {
        let path = Path::new(&file);
        if o.recursive && preserve_root && common::canon::canonicalize(path, common::canon::Missing::Forbid, true).map_or(false, |p| p.as_os_str() == "/") {
            io.error("it is dangerous to operate recursively on '/'");
            io.error("use --no-preserve-root to override this failsafe");
            status = 1;
            continue;
        }
        if !change_one(io, path, &change, &o, true) {
            status = 1;
        }
    }
    Ok(status)
}

fn describe(mode: u32) -> String {
    format!("{:04o} ({})", mode & 0o7777, &mode_string(mode)[1..])
}

fn change_one(io: &mut Io, path: &Path, change: &ModeChange, o: &Options, top: bool) -> bool {
    let shown = path.as_os_str();
    let meta = match common::fsext::metadata(path, top) {
        Ok(m) => m,
        Err(e) => {
            if !o.silent {
                io.error(format!("cannot access {}: {}", quote(shown), strerror(&e)));
            }
            return false;
        }
    };
    let mut ok = true;
    if meta.is_symlink() {
        // Symlinks met while recursing are not followed (GNU).
        if o.report == Report::Always {
            let _ = io.out(format!("neither symbolic link {} nor referent has been changed\n", quote(shown)).as_bytes());
        }
        return true;
    }
    let old = meta.permissions();
    let new = change.apply(old, meta.is_dir(), o.umask);
    let result = if new != old { common::fsext::set_mode(path, new) } else { Ok(()) };
    match result {
        Ok(()) => {
            let kind = meta.mode & !0o7777;
            if o.report == Report::Always || (o.report == Report::Changes && new != old) {
                let line = if new != old {
                    format!("mode of {} changed from {} to {}\n", quote(shown), describe(kind | old), describe(kind | new))
                } else {
                    format!("mode of {} retained as {}\n", quote(shown), describe(kind | old))
                };
                let _ = io.out(line.as_bytes());
            }
            let naive = change.apply(old, meta.is_dir(), 0);
            if new & !naive != 0 {
                if !o.silent {
                    io.error(format!("{}: new permissions are {}, not {}", shown.to_string_lossy(), &mode_string(kind | new)[1..], &mode_string(kind | naive)[1..]));
                }
                ok = false;
            }
        }
        Err(e) => {
            if !o.silent {
                io.error(format!("changing permissions of {}: {}", quote(shown), strerror(&e)));
            }
            return false;
        }
    }
    if o.recursive && meta.is_dir() {
        let entries = match std::fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.file_name()).collect::<Vec<_>>(),
            Err(e) => {
                if !o.silent {
                    io.error(format!("cannot read directory {}: {}", quote(shown), strerror(&e)));
                }
                return false;
            }
        };
        for name in entries {
            if !change_one(io, &join(shown, &name), change, o, false) {
                ok = false;
            }
        }
    }
    ok
}
