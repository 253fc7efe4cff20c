//! `cp`: copy files and directory trees (-r/-R -a -p -d -P -L -H -n -f -u -v -s -l -T -t,
//! --preserve). `-i` is refused: the sandbox has no terminal to answer prompts.

use std::ffi::OsString;
use std::path::Path;

use common::args::Command;
use common::canon::{canonicalize, Missing};
use common::fsext::Meta;
use common::fsops::{set_times, SetTime};
use common::io::quote;
use common::targets::join;
use common::timefmt::split_ns;
use common::{strerror, Io, Parsed, UError};

/// Destination planning shared with mv, ln and install.
#[path = "cp/dest.rs"]
pub mod dest;
use dest::Plan;

const SPEC: &str = "archive,a attributes-only backup:: backup=b d force,f interactive,i H link,l dereference,L no-clobber,n no-dereference,P p preserve:: no-preserve: parents recursive,R recursive=r remove-destination sparse: reflink:: strip-trailing-slashes symbolic-link,s suffix,S: target-directory,t: no-target-directory,T update,u verbose,v one-file-system,x";

const CP: Command = Command::compact("cp", SPEC, HELP);

const HELP: &str = "Usage: cp [OPTION]... [-T] SOURCE DEST
  or:  cp [OPTION]... SOURCE... DIRECTORY
  or:  cp [OPTION]... -t DIRECTORY SOURCE...
Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.

  -a, --archive                same as -dR --preserve=all
  -d                           same as --no-dereference --preserve=links
  -f, --force                  if an existing destination file cannot be
                                 opened, remove it and try again
  -H                           follow command-line symbolic links in SOURCE
  -L, --dereference            always follow symbolic links in SOURCE
  -n, --no-clobber             do not overwrite an existing file
  -P, --no-dereference         never follow symbolic links in SOURCE
  -p                           same as --preserve=mode,ownership,timestamps
      --preserve[=ATTR_LIST]   preserve the specified attributes
      --no-preserve=ATTR_LIST  don't preserve the specified attributes
  -R, -r, --recursive          copy directories recursively
      --remove-destination     remove each existing destination file before
                                 attempting to open it
  -s, --symbolic-link          make symbolic links instead of copying
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY
  -T, --no-target-directory    treat DEST as a normal file
  -u, --update                 copy only when the SOURCE file is newer
                                 than the destination file or when the
                                 destination file is missing
  -v, --verbose                explain what is being done
{standard}";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Deref {
    Unset,
    Never,
    CommandLine,
    Always,
}

struct Options {
    recursive: bool,
    deref: Deref,
    force: bool,
    no_clobber: bool,
    update: bool,
    verbose: bool,
    preserve_mode: bool,
    preserve_times: bool,
    symbolic: bool,
    hard_link: bool,
    remove_first: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut o = Options {
        recursive: false,
        deref: Deref::Unset,
        force: false,
        no_clobber: false,
        update: false,
        verbose: false,
        preserve_mode: false,
        preserve_times: false,
        symbolic: false,
        hard_link: false,
        remove_first: false,
    };
    let mut plan = Plan::new(false);
    CP.options(&args, io, &mut |_, p| {
        match p {
            Parsed::Opt { id: "archive", .. } => {
                o.recursive = true;
                o.deref = Deref::Never;
                o.preserve_mode = true;
                o.preserve_times = true;
            }
            Parsed::Opt { id: "d", .. } | Parsed::Opt { id: "no-dereference", .. } => o.deref = Deref::Never,
            Parsed::Opt { id: "H", .. } => o.deref = Deref::CommandLine,
            Parsed::Opt { id: "dereference", .. } => o.deref = Deref::Always,
            Parsed::Opt { id: "force", .. } => o.force = true,
            Parsed::Opt { id: "no-clobber", .. } => o.no_clobber = true,
            Parsed::Opt { id: "update", .. } => o.update = true,
            Parsed::Opt { id: "verbose", .. } => o.verbose = true,
            Parsed::Opt { id: "recursive", .. } => o.recursive = true,
            Parsed::Opt { id: "symbolic-link", .. } => o.symbolic = true,
            Parsed::Opt { id: "link", .. } => o.hard_link = true,
            Parsed::Opt { id: "remove-destination", .. } => o.remove_first = true,
            Parsed::Opt { id: "no-target-directory", .. } => plan.no_target = true,
            Parsed::Opt { id: "target-directory", value } => plan.target_dir = value,
            Parsed::Opt { id: "p", .. } => {
                o.preserve_mode = true;
                o.preserve_times = true;
            }
            Parsed::Opt { id, value } if id == "preserve" || id == "no-preserve" => {
                let on = id == "preserve";
                let list = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_else(|| "mode,ownership,timestamps".to_string());
                for attr in list.split(',') {
                    match attr {
                        "mode" => o.preserve_mode = on,
                        "timestamps" => o.preserve_times = on,
                        "all" => {
                            o.preserve_mode = on;
                            o.preserve_times = on;
                        }
                        "ownership" | "links" | "context" | "xattr" => {}
                        other => {
                            return Err(UError::usage(1, format!("invalid argument {} for '--preserve'", quote(other.as_ref()))));
                        }
                    }
                }
            }
            Parsed::Opt { id: "parents", .. } | Parsed::Opt { id: "backup", .. } | Parsed::Opt { id: "suffix", .. } | Parsed::Opt { id: "attributes-only", .. } => {
                return Err(UError::new(1, "option not supported in the sandbox: --parents, --backup, --suffix, --attributes-only"));
            }
            Parsed::Opt { id: "interactive", .. } => return Err(dest::interactive_refused()),
            Parsed::Opt { .. } => {}
            Parsed::Operand(op) => plan.operands.push(op),
        }
        Ok(())
    })?;
    if o.deref == Deref::Unset {
        o.deref = if o.recursive && !o.hard_link { Deref::Never } else { Deref::Always };
    }
    plan.run(io, &mut |io, src, dst| copy(io, Path::new(src), dst, &o, true))
}

fn verbose(io: &mut Io, src: &Path, dst: &Path) {
    dest::arrow(io, src.as_os_str(), dst.as_os_str());
}

fn copy(io: &mut Io, src: &Path, dst: &Path, o: &Options, top: bool) -> bool {
    let follow = o.deref == Deref::Always || (o.deref == Deref::CommandLine && top);
    let meta = match common::fsext::metadata(src, follow) {
        Ok(m) => m,
        Err(e) => {
            io.error(format!("cannot stat {}: {}", quote(src.as_os_str()), strerror(&e)));
            return false;
        }
    };
    let existing = common::fsext::metadata(dst, false).ok();
    if meta.is_dir() && !o.symbolic && !o.hard_link {
        return copy_dir(io, src, dst, &meta, existing, o);
    }
    if meta.is_dir() && !o.recursive {
        io.error(format!("-r not specified; omitting directory {}", quote(src.as_os_str())));
        return false;
    }
    if let Some(d) = existing {
        let followed = common::fsext::metadata(dst, true).unwrap_or(d);
        if dest::same_file(&followed, &meta) {
            return dest::refuse_same(io, src.as_os_str(), dst.as_os_str());
        }
        if dest::keep_existing(o.no_clobber, o.update, &meta, &d) {
            return true;
        }
        if followed.is_dir() {
            io.error(format!("cannot overwrite directory {} with non-directory", quote(dst.as_os_str())));
            return false;
        }
        if o.remove_first || o.symbolic || o.hard_link || meta.is_symlink() || d.is_symlink() && !follow {
            if let Err(e) = std::fs::remove_file(dst) {
                io.error(format!("cannot remove {}: {}", quote(dst.as_os_str()), strerror(&e)));
                return false;
            }
        }
    }
    let result = if o.symbolic {
        common::fsops::symlink(src, dst)
    } else if o.hard_link {
        std::fs::hard_link(src, dst)
    } else if meta.is_symlink() {
        std::fs::read_link(src).and_then(|target| common::fsops::symlink(&target, dst))
    } else {
        copy_file(src, dst, &meta, o)
    };
    match result {
        Ok(()) => {
            if o.verbose {
                verbose(io, src, dst);
            }
            if o.preserve_times && !o.symbolic && !o.hard_link {
                preserve(dst, &meta, false, !meta.is_symlink());
            }
            true
        }
        Err(e) => {
            let what = if o.symbolic {
                format!("cannot create symbolic link {} to {}", quote(dst.as_os_str()), quote(src.as_os_str()))
            } else if o.hard_link {
                format!("cannot create hard link {} to {}", quote(dst.as_os_str()), quote(src.as_os_str()))
            } else {
                format!("cannot create regular file {}", quote(dst.as_os_str()))
            };
            io.error(format!("{}: {}", what, strerror(&e)));
            false
        }
    }
}

fn copy_file(src: &Path, dst: &Path, meta: &Meta, o: &Options) -> std::io::Result<()> {
    let result = common::fsops::copy_data(src, dst, meta.permissions());
    let result = match result {
        Err(e) if o.force && e.kind() == std::io::ErrorKind::PermissionDenied => {
            std::fs::remove_file(dst)?;
            common::fsops::copy_data(src, dst, meta.permissions())
        }
        other => other,
    };
    result?;
    if o.preserve_mode {
        common::fsext::set_mode(dst, meta.permissions())?;
    }
    Ok(())
}

/// Sets the copy's times (and mode, for directories) from the source's metadata.
fn preserve(dst: &Path, meta: &Meta, mode: bool, follow: bool) {
    if mode {
        let _ = common::fsext::set_mode(dst, meta.permissions());
    }
    let (a, an) = split_ns(meta.atime_ns);
    let (m, mn) = split_ns(meta.mtime_ns);
    let _ = set_times(dst, SetTime::At(a, an), SetTime::At(m, mn), follow);
}

fn copy_dir(io: &mut Io, src: &Path, dst: &Path, meta: &Meta, existing: Option<Meta>, o: &Options) -> bool {
    if !o.recursive {
        io.error(format!("-r not specified; omitting directory {}", quote(src.as_os_str())));
        return false;
    }
    if let (Ok(s), Ok(d)) = (canonicalize(src, Missing::Allow, true), canonicalize(dst, Missing::Allow, true)) {
        if d.starts_with(&s) {
            io.error(format!("cannot copy a directory, {}, into itself, {}", quote(src.as_os_str()), quote(dst.as_os_str())));
            return false;
        }
    }
    match existing {
        Some(d) if !d.is_dir() && !(d.is_symlink() && common::fsext::metadata(dst, true).map_or(false, |m| m.is_dir())) => {
            io.error(format!("cannot overwrite non-directory {} with directory {}", quote(dst.as_os_str()), quote(src.as_os_str())));
            return false;
        }
        Some(_) => {}
        None => {
            if let Err(e) = std::fs::create_dir(dst) {
                io.error(format!("cannot create directory {}: {}", quote(dst.as_os_str()), strerror(&e)));
                return false;
            }
            let umask = common::fsext::umask(None);
            let _ = common::fsext::set_mode(dst, meta.permissions() & !umask);
            if o.verbose {
                verbose(io, src, dst);
            }
        }
    }
    let entries = match std::fs::read_dir(src) {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.file_name()).collect::<Vec<_>>(),
        Err(e) => {
            io.error(format!("cannot access {}: {}", quote(src.as_os_str()), strerror(&e)));
            return false;
        }
    };
    let mut ok = true;
    for name in entries {
        if !copy(io, &join(src.as_os_str(), &name), &join(dst.as_os_str(), &name), o, false) {
            ok = false;
        }
    }
    if o.preserve_mode || o.preserve_times {
        preserve(dst, meta, o.preserve_mode, true);
    } else if existing.is_none() {
        let _ = common::fsext::set_mode(dst, meta.permissions() & !common::fsext::umask(None));
    }
    ok
}
