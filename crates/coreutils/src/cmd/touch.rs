//! `touch`: set file times, creating missing files (-a -m -c -d -t -r -h, --time).

use std::ffi::OsString;
use std::path::Path;

use common::args::Command;
use common::fsops::{set_times, SetTime};
use common::io::quote;
use common::timefmt::{now, parse_date, parse_touch_stamp, split_ns};
use common::{strerror, Io, UError};

const SPEC: &str = "access=a no-create,c date,d: ignored=f no-dereference,h modify=m reference,r: stamp=t: time:";

const TOUCH: Command = Command { missing: "file operand", ..Command::compact("touch", SPEC, HELP).operands_between(1, usize::MAX) };

const HELP: &str = "Usage: touch [OPTION]... FILE...
Update the access and modification times of each FILE to the current time.

A FILE argument that does not exist is created empty, unless -c or -h
is supplied.

  -a                     change only the access time
  -c, --no-create        do not create any files
  -d, --date=STRING      parse STRING and use it instead of current time
  -f                     (ignored)
  -h, --no-dereference   affect each symbolic link instead of any referenced
                         file (useful only on systems that can change the
                         timestamps of a symlink)
  -m                     change only the modification time
  -r, --reference=FILE   use this file's times instead of current time
  -t STAMP               use [[CC]YY]MMDDhhmm[.ss] instead of current time
      --time=WORD        change the specified time:
                           WORD is access, atime, or use: equivalent to -a
                           WORD is modify or mtime: equivalent to -m
{standard}";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let time_word = |value: Option<&OsString>| value.and_then(|v| v.to_str()).unwrap_or("").to_string();
    // GNU rejects a bad --time WORD as its getopt loop meets it, before a later --help.
    let seen = TOUCH.seen_checking(&args, io, &mut |io, id, value| {
        let word = time_word(value);
        if id != "time" || matches!(word.as_str(), "access" | "atime" | "use" | "modify" | "mtime") {
            return Ok(());
        }
        io.error(format!("invalid argument {} for '--time'", quote(word.as_ref())));
        let _ = writeln!(io.stderr, "Valid arguments are:\n  - 'atime', 'access', 'use'\n  - 'mtime', 'modify'");
        io.try_help();
        Err(UError::exit(1))
    })?;
    let times: Vec<String> = seen.values("time").map(|v| time_word(Some(v))).collect();
    let access_only = seen.flag("access") || times.iter().any(|t| matches!(t.as_str(), "access" | "atime" | "use"));
    let modify_only = seen.flag("modify") || times.iter().any(|t| matches!(t.as_str(), "modify" | "mtime"));
    let (no_create, no_deref) = (seen.flag("no-create"), seen.flag("no-dereference"));
    let text = |id: &str| seen.value(id).map(|v| v.to_string_lossy().into_owned());
    let (date, stamp, reference) = (text("date"), text("stamp"), seen.value("reference").cloned());
    let files = seen.operands;
    if stamp.is_some() && (date.is_some() || reference.is_some()) {
        return Err(UError::usage(1, "cannot specify times from more than one source"));
    }
    let current = now();
    let (mut atime, mut mtime) = (SetTime::Now, SetTime::Now);
    if let Some(r) = &reference {
        match common::fsext::metadata(Path::new(r), !no_deref) {
            Ok(m) => {
                let (a, an) = split_ns(m.atime_ns);
                let (s, sn) = split_ns(m.mtime_ns);
                atime = SetTime::At(a, an);
                mtime = SetTime::At(s, sn);
            }
            Err(e) => {
                return Err(UError::new(1, format!("failed to get attributes of {}: {}", quote(r), strerror(&e))));
            }
        }
    }
    if let Some(d) = &date {
        match parse_date(d, current) {
            Some((s, n)) => {
                atime = SetTime::At(s, n);
                mtime = SetTime::At(s, n);
            }
            None => {
                return Err(UError::new(1, format!("invalid date format {}", quote(d.as_ref()))));
            }
        }
    }
    if let Some(t) = &stamp {
        match parse_touch_stamp(t, current.0) {
            Some((s, n)) => {
                atime = SetTime::At(s, n);
                mtime = SetTime::At(s, n);
            }
            None => {
                return Err(UError::new(1, format!("invalid date format {}", quote(t.as_ref()))));
            }
        }
    }
    if access_only && !modify_only {
        mtime = SetTime::Omit;
    }
    if modify_only && !access_only {
        atime = SetTime::Omit;
    }
    let mut status = 0;
    for file in files {
        let path = Path::new(&file);
        if common::args::os_bytes(&file) == b"-" {
            // GNU touches standard output's file; there is nothing useful to do in a pipe.
            continue;
        }
        let exists = common::fsext::metadata(path, !no_deref).is_ok() || common::fsext::metadata(path, false).is_ok();
        if !exists {
            if no_create || no_deref {
                continue;
            }
            if let Err(e) = std::fs::OpenOptions::new().write(true).create(true).open(path) {
                io.error(format!("cannot touch {}: {}", quote(&file), strerror(&e)));
                status = 1;
                continue;
            }
        }
        if let Err(e) = set_times(path, atime, mtime, !no_deref) {
            io.error(format!("setting times of {}: {}", quote(&file), strerror(&e)));
            status = 1;
        }
    }
    Ok(status)
}

