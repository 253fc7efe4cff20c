//! `basename`: strips directories (and optionally a suffix) from names; `-a` for several
//! names, `-s SUFFIX` (implies -a), `-z` ends lines with NUL.

use std::ffi::OsString;

use common::args::os_bytes;
use common::{Command, Io, UError};

const SPEC: &str = "multiple,a suffix,s: zero,z";

const HELP: &str = "Usage: {name} NAME [SUFFIX]\n  or:  {name} OPTION... NAME...\nPrint NAME with any leading directory components removed.\nIf specified, also remove a trailing SUFFIX.\n\n  -a, --multiple       support multiple arguments and treat each as a NAME\n  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a\n  -z, --zero           end each output line with NUL, not newline\n{standard}";

const BASENAME: Command = Command::compact("basename", SPEC, HELP).operands_between(1, usize::MAX);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut multiple = false;
    let mut suffix: Option<Vec<u8>> = None;
    let mut terminator = b'\n';
    let mut names = BASENAME.operands(&args, io, &mut |_, id, value| {
        match id {
            "multiple" => multiple = true,
            "suffix" => {
                multiple = true;
                suffix = value.map(|v| os_bytes(&v).to_vec());
            }
            "zero" => terminator = 0,
            _ => {}
        }
        Ok(())
    })?;
    if !multiple {
        BASENAME.count(&names, 1, 2)?;
        if names.len() == 2 {
            suffix = Some(os_bytes(&names[1]).to_vec());
            names.truncate(1);
        }
    }
    let mut out = Vec::new();
    for name in &names {
        out.extend_from_slice(&base_name(os_bytes(name), suffix.as_deref()));
        out.push(terminator);
    }
    let _ = io.out(&out);
    Ok(0)
}

/// The last component of `path`, without `suffix` when it ends with it (and is longer).
fn base_name(path: &[u8], suffix: Option<&[u8]>) -> Vec<u8> {
    let trimmed_len = path.iter().rposition(|b| *b != b'/').map_or(0, |i| i + 1);
    if trimmed_len == 0 {
        return if path.is_empty() { Vec::new() } else { b"/".to_vec() };
    }
    let trimmed = &path[..trimmed_len];
    let start = trimmed.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1);
    let mut base = &trimmed[start..];
    if let Some(s) = suffix {
        if !s.is_empty() && base.len() > s.len() && base.ends_with(s) {
            base = &base[..base.len() - s.len()];
        }
    }
    base.to_vec()
}
