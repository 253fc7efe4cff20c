//! `mktemp`: create a uniquely named temporary file or directory from a template with
//! trailing X's (-d, -p DIR, --tmpdir, -t, -u, -q, --suffix).

use std::collections::hash_map::RandomState;
use std::ffi::OsString;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::PathBuf;

use common::args::{bytes_os, os_bytes, Command};
use common::io::quote;
use common::{strerror, Io, UError};

const SPEC: &str = "directory,d dry-run,u quiet,q suffix: p: tmpdir:: t";

const MKTEMP: Command = Command::compact("mktemp", SPEC, HELP);

const HELP: &str = "Usage: mktemp [OPTION]... [TEMPLATE]
Create a temporary file or directory, safely, and print its name.
TEMPLATE must contain at least 3 consecutive 'X's in last component.
If TEMPLATE is not specified, use tmp.XXXXXXXXXX, and --tmpdir is implied.
Files are created u+rw, and directories u+rwx, minus umask restrictions.

  -d, --directory     create a directory, not a file
  -u, --dry-run       do not create anything; merely print a name (unsafe)
  -q, --quiet         suppress diagnostics about file/dir-creation failure
      --suffix=SUFF   append SUFF to TEMPLATE; SUFF must not contain a slash.
                        This option is implied if TEMPLATE does not end in X
  -p DIR, --tmpdir[=DIR]  interpret TEMPLATE relative to DIR; if DIR is not
                        specified, use $TMPDIR if set, else /tmp.  With
                        this option, TEMPLATE must not be an absolute name;
                        unlike with -t, TEMPLATE may contain slashes, but
                        mktemp creates only the final component
  -t                  interpret TEMPLATE as a single file name component,
                        relative to a directory: $TMPDIR, if set; else the
                        directory specified via -p; else /tmp [deprecated]
{standard}";

const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut directory, mut dry_run, mut quiet, mut t_flag) = (false, false, false, false);
    let mut suffix: Option<Vec<u8>> = None;
    let mut tmpdir: Option<Option<OsString>> = None;
    let mut templates = MKTEMP.operands(&args, io, &mut |_, id, value| {
        match id {
            "directory" => directory = true,
            "dry-run" => dry_run = true,
            "quiet" => quiet = true,
            "suffix" => suffix = value.map(|v| os_bytes(&v).to_vec()),
            "p" | "tmpdir" => tmpdir = Some(value),
            "t" => t_flag = true,
            _ => {}
        }
        Ok(())
    })?;
    if templates.len() > 1 {
        return Err(UError::usage(1, format!("too many templates")));
    }
    let mut template = match templates.pop() {
        Some(t) => os_bytes(&t).to_vec(),
        None => {
            if tmpdir.is_none() {
                tmpdir = Some(None);
            }
            b"tmp.XXXXXXXXXX".to_vec()
        }
    };
    // A template not ending in X has an implied suffix after its last X run.
    let x_end = template.iter().rposition(|b| *b == b'X').map_or(0, |i| i + 1);
    let mut implied_suffix = template.split_off(x_end);
    if let Some(s) = &suffix {
        if !implied_suffix.is_empty() && !s.is_empty() {
            template.extend_from_slice(&implied_suffix);
            implied_suffix.clear();
        }
        if s.contains(&b'/') {
            return Err(UError::new(1, format!("invalid suffix {}, contains directory separator", quote(&bytes_os(s)))));
        }
    }
    let full_suffix: Vec<u8> = [implied_suffix, suffix.unwrap_or_default()].concat();
    let x_count = template.iter().rev().take_while(|b| **b == b'X').count();
    if x_count < 3 {
        let mut shown = template.clone();
        shown.extend_from_slice(&full_suffix);
        if !quiet {
            io.error(format!("too few X's in template {}", quote(&bytes_os(&shown))));
        }
        return Ok(1);
    }
    let dir: Option<Vec<u8>> = if t_flag {
        let env = std::env::var_os("TMPDIR").filter(|v| !v.is_empty());
        Some(env.map(|v| os_bytes(&v).to_vec()).or_else(|| tmpdir.clone().flatten().map(|v| os_bytes(&v).to_vec())).unwrap_or_else(|| b"/tmp".to_vec()))
    } else {
        tmpdir.map(|d| {
            d.filter(|v| !v.is_empty())
                .or_else(|| std::env::var_os("TMPDIR").filter(|v| !v.is_empty()))
                .map(|v| os_bytes(&v).to_vec())
                .unwrap_or_else(|| b"/tmp".to_vec())
        })
    };
    if let Some(_) = &dir {
        if template.first() == Some(&b'/') {
            return Err(UError::new(1, format!("invalid template, {}; with --tmpdir, it may not be absolute", quote(&bytes_os(&template)))));
        }
        if t_flag && template.contains(&b'/') {
            return Err(UError::new(1, format!("invalid template, {}, contains directory separator", quote(&bytes_os(&template)))));
        }
    }
    let prefix: Vec<u8> = match &dir {
        Some(d) => {
            let mut p = d.clone();
            if p.last() != Some(&b'/') {
                p.push(b'/');
            }
            p
        }
        None => Vec::new(),
    };
    let state = RandomState::new();
    let mut counter: u64 = 0;
    let base_len = template.len() - x_count;
    for _attempt in 0..1000 {
        let mut name = prefix.clone();
        name.extend_from_slice(&template[..base_len]);
        let mut hasher = state.build_hasher();
        hasher.write_u64(counter);
        counter += 1;
        let mut bits = hasher.finish();
        for i in 0..x_count {
            if i % 10 == 9 {
                let mut h = state.build_hasher();
                h.write_u64(bits ^ counter);
                bits = h.finish();
            }
            name.push(CHARS[(bits % CHARS.len() as u64) as usize]);
            bits /= CHARS.len() as u64;
        }
        name.extend_from_slice(&full_suffix);
        let path = PathBuf::from(bytes_os(&name));
        let result = if dry_run {
            match common::fsext::metadata(&path, false) {
                Ok(_) => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
                Err(_) => Ok(()),
            }
        } else if directory {
            std::fs::create_dir(&path).and_then(|_| common::fsext::set_mode(&path, 0o700 & !common::fsext::umask(None)))
        } else {
            std::fs::OpenOptions::new().write(true).create_new(true).open(&path).map(|_| ()).and_then(|_| common::fsext::set_mode(&path, 0o600 & !common::fsext::umask(None)))
        };
        match result {
            Ok(()) => {
                name.push(b'\n');
                if let Err(e) = io.out(&name) {
                    return Ok(common::write::write_failed(io, &e));
                }
                return Ok(0);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                if !quiet {
                    let mut shown = prefix.clone();
                    shown.extend_from_slice(&template);
                    shown.extend_from_slice(&full_suffix);
                    let what = if directory { "directory" } else { "file" };
                    io.error(format!("failed to create {} via template {}: {}", what, quote(&bytes_os(&shown)), strerror(&e)));
                }
                return Ok(1);
            }
        }
    }
    Err(UError::new(1, if quiet { "" } else { "failed to create a unique name" }))
}
