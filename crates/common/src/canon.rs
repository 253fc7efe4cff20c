//! Path canonicalization for `readlink -f/-e/-m` and `realpath` (gnulib's
//! canonicalize_filename_mode): resolve symlinks component by component, with three rules
//! for missing components. std::fs::canonicalize is not available on WASI.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use airlock_sys::errno::os;

use crate::args::{bytes_os, os_bytes};

/// Which components must exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Every component (`-e`).
    Forbid,
    /// All but the last (`-f`, realpath's default).
    AllowLast,
    /// Any (`-m`).
    Allow,
}

const MAX_LINKS: usize = 40;

fn err(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

/// The absolute, `.`/`..`-free form of `path`; symlinks expanded unless `physical` is false.
pub fn canonicalize(path: &Path, missing: Missing, physical: bool) -> io::Result<PathBuf> {
    let bytes = os_bytes(path.as_os_str());
    if bytes.is_empty() {
        return Err(err(os::NOENT));
    }
    let mut pending: Vec<Vec<u8>> = Vec::new();
    let mut result: Vec<Vec<u8>> = Vec::new();
    if bytes[0] != b'/' {
        let cwd = std::env::current_dir()?;
        push_components(&mut result, os_bytes(cwd.as_os_str()));
    }
    prepend(&mut pending, bytes);
    let mut links = 0;
    while let Some(component) = pending.pop() {
        if component == b"." {
            continue;
        }
        if component == b".." {
            result.pop();
            continue;
        }
        result.push(component);
        let current = join(&result);
        match crate::fsext::metadata(Path::new(&current), false) {
            Ok(meta) => {
                if meta.is_symlink() && physical {
                    links += 1;
                    if links > MAX_LINKS {
                        // -m takes a looping link as a name that does not resolve (gnulib).
                        if missing == Missing::Allow {
                            continue;
                        }
                        return Err(err(os::LOOP));
                    }
                    let target = std::fs::read_link(&current)?;
                    let target = os_bytes(target.as_os_str()).to_vec();
                    result.pop();
                    if target.first() == Some(&b'/') {
                        result.clear();
                    }
                    prepend(&mut pending, &target);
                } else if !pending.is_empty() && !meta.is_dir() && missing != Missing::Allow {
                    // `file/x`: only a directory can have components below it.
                    let follows_dir = meta.is_symlink() && crate::fsext::metadata(Path::new(&current), true).map_or(false, |m| m.is_dir());
                    if !follows_dir {
                        return Err(err(os::NOTDIR));
                    }
                }
            }
            Err(e) => {
                let last = pending.iter().all(|c| c == b"." || c.is_empty());
                match missing {
                    Missing::Allow => {}
                    Missing::AllowLast if last && e.kind() == io::ErrorKind::NotFound => {}
                    _ => return Err(e),
                }
            }
        }
    }
    Ok(PathBuf::from(join(&result)))
}

fn push_components(out: &mut Vec<Vec<u8>>, path: &[u8]) {
    out.extend(path.split(|b| *b == b'/').filter(|c| !c.is_empty()).map(|c| c.to_vec()));
}

/// Puts the components of `path` in front of the pending ones (`pending` is a stack).
fn prepend(pending: &mut Vec<Vec<u8>>, path: &[u8]) {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    push_components(&mut parts, path);
    pending.extend(parts.into_iter().rev());
}

fn join(components: &[Vec<u8>]) -> OsString {
    if components.is_empty() {
        return OsString::from("/");
    }
    let mut out = Vec::new();
    for c in components {
        out.push(b'/');
        out.extend_from_slice(c);
    }
    bytes_os(&out)
}

/// `path` relative to `base` (both absolute and canonical): `../x/y`.
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let p: Vec<&[u8]> = os_bytes(path.as_os_str()).split(|b| *b == b'/').filter(|c| !c.is_empty()).collect();
    let b: Vec<&[u8]> = os_bytes(base.as_os_str()).split(|b| *b == b'/').filter(|c| !c.is_empty()).collect();
    let common = p.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
    let mut out: Vec<u8> = Vec::new();
    for _ in common..b.len() {
        if !out.is_empty() {
            out.push(b'/');
        }
        out.extend_from_slice(b"..");
    }
    for c in &p[common..] {
        if !out.is_empty() {
            out.push(b'/');
        }
        out.extend_from_slice(c);
    }
    if out.is_empty() {
        out.push(b'.');
    }
    PathBuf::from(bytes_os(&out))
}
