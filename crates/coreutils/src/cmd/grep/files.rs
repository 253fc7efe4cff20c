//! Which inputs grep reads: operands, stdin, and trees with -r/-R filtered by --include,
//! --exclude and --exclude-dir.

use std::ffi::OsStr;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use common::args::os_bytes;
use common::fnmatch::{fnmatch, FnFlags};
use common::regex::Regex;
use common::{strerror, Io};

use super::{search_one, Config, State, Walk};

/// One command-line operand: a file, stdin, or (with -r) a tree. Returns true for -q's
/// early exit.
#[allow(clippy::too_many_arguments)]
pub(super) fn search_operand(operand: &OsStr, display: &[u8], show: bool, config: &Config, re: &Regex, walk: &Walk, io: &mut Io, state: &mut State) -> io::Result<bool> {
    if os_bytes(operand) == b"-" {
        let label = walk.label.clone();
        let stdin: &mut dyn BufRead = io.stdin;
        return search_one(stdin, &label, show, config, re, io.stdout, io.stderr, state);
    }
    let path = Path::new(operand);
    let name = os_bytes(operand);
    if !walk.includes.is_empty() || !walk.excludes.is_empty() {
        if !walk.recursive || !path.is_dir() {
            if excluded(name, walk, true) {
                return Ok(false);
            }
        }
    }
    let meta = std::fs::metadata(path);
    if let Ok(m) = &meta {
        if m.is_dir() {
            if walk.recursive {
                let show = walk.with_filename.unwrap_or(true);
                return walk_dir(path, display, show, config, re, walk, io, state);
            }
            if walk.skip_dirs {
                return Ok(false);
            }
            if !walk.no_messages {
                io.error(format!("{}: Is a directory", String::from_utf8_lossy(name)));
            }
            state.error = true;
            return Ok(false);
        }
    }
    match std::fs::File::open(path) {
        Ok(file) => search_one(&mut io::BufReader::new(file), name, show, config, re, io.stdout, io.stderr, state),
        Err(e) => {
            if !walk.no_messages {
                io.error(format!("{}: {}", String::from_utf8_lossy(name), strerror(&e)));
            }
            state.error = true;
            Ok(false)
        }
    }
}

fn excluded(name: &[u8], walk: &Walk, command_line: bool) -> bool {
    let base = name.rsplit(|b| *b == b'/').find(|s| !s.is_empty()).unwrap_or(name);
    let hit = |globs: &[Vec<u8>]| globs.iter().any(|g| fnmatch(g, base, FnFlags::default()) || (command_line && fnmatch(g, name, FnFlags::default())));
    if hit(&walk.excludes) {
        return true;
    }
    !walk.includes.is_empty() && !hit(&walk.includes)
}

#[allow(clippy::too_many_arguments)]
fn walk_dir(dir: &Path, display: &[u8], show: bool, config: &Config, re: &Regex, walk: &Walk, io: &mut Io, state: &mut State) -> io::Result<bool> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            if !walk.no_messages {
                io.error(format!("{}: {}", String::from_utf8_lossy(display), strerror(&e)));
            }
            state.error = true;
            return Ok(false);
        }
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let base = os_bytes(&file_name);
        let mut child_display = display.to_vec();
        if !child_display.is_empty() && child_display.last() != Some(&b'/') {
            child_display.push(b'/');
        }
        child_display.extend_from_slice(base);
        let child: PathBuf = entry.path();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(_) => continue,
        };
        let is_link = file_type.is_symlink();
        if is_link && !walk.dereference {
            continue;
        }
        let is_dir = if is_link { child.is_dir() } else { file_type.is_dir() };
        if is_dir {
            if walk.exclude_dirs.iter().any(|g| fnmatch(g, base, FnFlags::default())) {
                continue;
            }
            if walk_dir(&child, &child_display, show, config, re, walk, io, state)? {
                return Ok(true);
            }
            continue;
        }
        if excluded(base, walk, false) {
            continue;
        }
        match std::fs::File::open(&child) {
            Ok(file) => {
                if search_one(&mut io::BufReader::new(file), &child_display, show, config, re, io.stdout, io.stderr, state)? {
                    return Ok(true);
                }
            }
            Err(e) => {
                if !walk.no_messages {
                    io.error(format!("{}: {}", String::from_utf8_lossy(&child_display), strerror(&e)));
                }
                state.error = true;
            }
        }
    }
    Ok(false)
}
