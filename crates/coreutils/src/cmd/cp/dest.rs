//! Destination planning that `cp`, `mv`, `ln` and `install` share once their options are
//! read: pairing operands with destinations (`common::targets::plan`), the refusals they have
//! in common, one action per pair with the status GNU gives, and the checks against a
//! destination that already exists. It lives in cp's folder; the others reach it through the
//! registry (`crate::registry::cmd_cp::dest`), as rg reaches grep's searcher.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use common::fsext::Meta;
use common::args::Seen;
use common::io::quote;
use common::targets::plan;
use common::{Io, UError};

/// `-i`: the sandbox has no terminal to answer the prompts.
pub fn interactive_refused() -> UError {
    UError::new(1, "option not supported in the sandbox: --interactive (there is no terminal to answer prompts; use -f or -n)")
}

/// An accepted option the sandbox does not implement.
pub fn unsupported(id: &str) -> UError {
    UError::new(1, format!("option not supported in the sandbox: --{}", id))
}

/// Where the operands go. `allow_single`: one operand means "into the current directory"
/// (ln).
pub struct Plan {
    pub operands: Vec<OsString>,
    pub target_dir: Option<OsString>,
    pub no_target: bool,
    pub allow_single: bool,
}

impl Plan {
    pub fn new(allow_single: bool) -> Plan {
        Plan { operands: Vec::new(), target_dir: None, no_target: false, allow_single }
    }

    /// The plan from the options seen (`-t DIR`, the last one, and `-T`), with the refusals
    /// mv, ln and install share: `-i`, and any option outside `implemented` (in the table
    /// for GNU's words, not done in the sandbox), in the order given.
    pub fn from_seen(seen: &mut Seen, allow_single: bool, implemented: &[&str]) -> Result<Plan, UError> {
        for (id, _) in &seen.opts {
            match *id {
                "interactive" => return Err(interactive_refused()),
                "target-directory" | "no-target-directory" => {}
                id if !implemented.contains(&id) => return Err(unsupported(id)),
                _ => {}
            }
        }
        let (target_dir, no_target) = (seen.value("target-directory").cloned(), seen.flag("no-target-directory"));
        Ok(Plan { operands: std::mem::take(&mut seen.operands), target_dir, no_target, allow_single })
    }

    /// Calls `each(io, source, destination)` for every pair, in order; the status is 1 when
    /// the operands do not fit (GNU's message, with the --help hint where GNU gives it) or
    /// any pair failed, as in GNU's tools, which go on after a failed pair.
    pub fn run(self, io: &mut Io, each: &mut dyn FnMut(&mut Io, &OsString, &Path) -> bool) -> Result<i32, UError> {
        let pairs = plan(self.operands, self.target_dir, self.no_target, self.allow_single).map_err(|e| UError { status: 1, message: e.message, usage: e.usage })?;
        let mut status = 0;
        for (src, dst) in pairs {
            if !each(io, &src, &dst) {
                status = 1;
            }
        }
        Ok(status)
    }
}

/// The two are one file (same inode on the same device).
pub fn same_file(a: &Meta, b: &Meta) -> bool {
    a.ino == b.ino && a.dev == b.dev
}

/// GNU's refusal to copy or move a file onto itself; false so a caller can return it.
pub fn refuse_same(io: &mut Io, src: &OsStr, dst: &OsStr) -> bool {
    io.error(format!("{} and {} are the same file", quote(src), quote(dst)));
    false
}

/// `-n`, or `-u` with a destination no older than the source: the destination is kept.
pub fn keep_existing(no_clobber: bool, update: bool, src: &Meta, dst: &Meta) -> bool {
    no_clobber || (update && dst.mtime_ns >= src.mtime_ns)
}

/// `-v`'s `FROM -> TO` line.
pub fn arrow(io: &mut Io, from: &OsStr, to: &OsStr) {
    let _ = io.out(format!("{} -> {}\n", quote(from), quote(to)).as_bytes());
}
