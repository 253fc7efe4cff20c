//! The operand rules `cp`, `mv`, `ln` and `install` share: `SRC DEST`, `SRC... DIR`,
//! `-t DIR SRC...` and `-T SRC DEST`, with GNU's messages when they do not fit.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::args::{bytes_os, os_bytes};
use crate::io::quote;

/// Why the operands do not fit; `usage` says whether GNU adds the `Try --help` hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    pub message: String,
    pub usage: bool,
}

fn usage(message: String) -> PlanError {
    PlanError { message, usage: true }
}

/// The last component of `path`, ignoring trailing slashes (`a/b/` → `b`).
pub fn base_name(path: &OsStr) -> OsString {
    let bytes = os_bytes(path);
    let trimmed = {
        let mut end = bytes.len();
        while end > 1 && bytes[end - 1] == b'/' {
            end -= 1;
        }
        &bytes[..end]
    };
    match trimmed.iter().rposition(|b| *b == b'/') {
        Some(i) if trimmed.len() > 1 => bytes_os(&trimmed[i + 1..]),
        _ => bytes_os(trimmed),
    }
}

/// `dir/name`, without doubling a slash.
pub fn join(dir: &OsStr, name: &OsStr) -> PathBuf {
    let mut out = os_bytes(dir).to_vec();
    if out.last() != Some(&b'/') {
        out.push(b'/');
    }
    out.extend_from_slice(os_bytes(name));
    PathBuf::from(bytes_os(&out))
}

fn is_dir(path: &Path) -> bool {
    crate::fsext::metadata(path, true).map_or(false, |m| m.is_dir())
}

/// Pairs each source with its destination. `allow_single` lets one operand mean "into
/// the current directory" (ln).
pub fn plan(mut operands: Vec<OsString>, target_dir: Option<OsString>, no_target_dir: bool, allow_single: bool) -> Result<Vec<(OsString, PathBuf)>, PlanError> {
    if let Some(dir) = target_dir {
        if no_target_dir {
            return Err(usage("cannot combine --target-directory (-t) and --no-target-directory (-T)".to_string()));
        }
        if operands.is_empty() {
            return Err(usage("missing file operand".to_string()));
        }
        match crate::fsext::metadata(Path::new(&dir), true) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(PlanError { message: format!("target directory {}: Not a directory", quote(&dir)), usage: false }),
            Err(e) => return Err(PlanError { message: format!("target directory {}: {}", quote(&dir), crate::strerror(&e)), usage: false }),
        }
        return Ok(operands.into_iter().map(|s| (s.clone(), join(&dir, &base_name(&s)))).collect());
    }
    match operands.len() {
        0 => return Err(usage("missing file operand".to_string())),
        1 if allow_single && !no_target_dir => {
            let s = operands.remove(0);
            let name = base_name(&s);
            return Ok(vec![(s, PathBuf::from(name))]);
        }
        1 => return Err(usage(format!("missing destination file operand after {}", quote(&operands[0])))),
        _ => {}
    }
    if no_target_dir {
        if operands.len() > 2 {
            return Err(usage(format!("extra operand {}", quote(&operands[2]))));
        }
        let dest = operands.pop().unwrap_or_default();
        let src = operands.pop().unwrap_or_default();
        return Ok(vec![(src, PathBuf::from(dest))]);
    }
    let dest = operands.pop().unwrap_or_default();
    if is_dir(Path::new(&dest)) {
        return Ok(operands.into_iter().map(|s| (s.clone(), join(&dest, &base_name(&s)))).collect());
    }
    if operands.len() > 1 {
        return Err(PlanError { message: format!("target {}: Not a directory", quote(&dest)), usage: false });
    }
    let src = operands.pop().unwrap_or_default();
    Ok(vec![(src, PathBuf::from(dest))])
}
