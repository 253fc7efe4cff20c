//! Applying redirections to the virtual descriptor table. Each command's redirections form
//! a frame that is undone when the command ends (`exec` keeps it).

use std::cell::RefCell;
use std::rc::Rc;

use shell_parser::ast::{RedirFd, RedirOp, RedirTarget, Redirect, Word};

use super::{MemFile, SavedFds, Target};
use crate::exec::Flow;
use crate::sys::{Errno, FileKind, OpenFlags};
use crate::options::Opt;
use crate::shell::Shell;

/// Descriptors `{var}>file` picks from, as bash does.
const FIRST_VAR_FD: u32 = 10;

impl Shell {
    /// Applies redirections in order. On failure the ones already applied are undone, the
    /// error is reported and `Err(Flow::Normal)` (status 1) or an abandoning flow is
    /// returned.
    #[inline(never)]
    pub(crate) fn apply_redirects(&mut self, redirects: &[Redirect]) -> Result<SavedFds, Flow> {
        let mut saved = SavedFds::default();
        for redirect in redirects {
            if let Err(flow) = self.apply_redirect(redirect, &mut saved) {
                self.fds.restore(self.sys.as_mut(), saved);
                self.status = 1;
                return Err(flow);
            }
        }
        Ok(saved)
    }

    fn apply_redirect(&mut self, redirect: &Redirect, saved: &mut SavedFds) -> Result<(), Flow> {
        let default_fd = match redirect.op {
            RedirOp::Input | RedirOp::ReadWrite | RedirOp::DupInput | RedirOp::HereDoc | RedirOp::HereString => 0,
            _ => 1,
        };
        let (fd, var_name) = match &redirect.fd {
            Some(RedirFd::Number(n)) => (*n, None),
            Some(RedirFd::Var(name)) => (self.fds.lowest_free(FIRST_VAR_FD), Some(name.clone())),
            None => (default_fd, None),
        };
        let target = match (&redirect.op, &redirect.target) {
            (RedirOp::HereDoc, RedirTarget::HereDoc(doc)) => {
                let body = doc.body.borrow().clone();
                let text = if doc.quoted { body.as_static().unwrap_or_default() } else { self.expand_heredoc(&body)? };
                Some(memory(text.into_bytes_lossless()))
            }
            (RedirOp::HereString, RedirTarget::Word(word)) => {
                let mut text = self.expand_string(word)?;
                text.push('\n');
                Some(memory(text.into_bytes_lossless()))
            }
            (RedirOp::DupInput, RedirTarget::Word(word)) | (RedirOp::DupOutput, RedirTarget::Word(word)) => {
                let spec = self.expand_string(word)?;
                if spec == "-" {
                    None
                } else if let Some(source) = parse_fd_spec(&spec) {
                    let target = match self.fds.get(source.0) {
                        Some(target) => target.clone(),
                        None => return Err(self.redirect_error(&source.0.to_string(), Errno::BADF)),
                    };
                    if source.1 {
                        // `n>&m-` moves: m is closed after the copy.
                        self.fds.set_saving(source.0, None, saved);
                    }
                    Some(target)
                } else if redirect.op == RedirOp::DupOutput && redirect.fd.is_none() {
                    // `>&file` is `&>file`.
                    let target = self.open_redirect_file(word, OpenFlags { write: true, create: true, truncate: true, ..Default::default() }, true)?;
                    self.fds.set_saving(2, Some(target.clone()), saved);
                    Some(target)
                } else {
                    self.report(&format!("{}: ambiguous redirect", spec));
                    return Err(Flow::Normal);
                }
            }
            (op, RedirTarget::Word(word)) => {
                let (flags, both) = match op {
                    RedirOp::Input => (OpenFlags::read_only(), false),
                    RedirOp::Output => (OpenFlags { write: true, create: true, truncate: true, ..Default::default() }, false),
                    RedirOp::Clobber => (OpenFlags { write: true, create: true, truncate: true, ..Default::default() }, false),
                    RedirOp::Append => (OpenFlags { write: true, create: true, append: true, ..Default::default() }, false),
                    RedirOp::ReadWrite => (OpenFlags { read: true, write: true, create: true, ..Default::default() }, false),
                    RedirOp::OutputBoth => (OpenFlags { write: true, create: true, truncate: true, ..Default::default() }, true),
                    RedirOp::AppendBoth => (OpenFlags { write: true, create: true, append: true, ..Default::default() }, true),
                    _ => (OpenFlags::read_only(), false),
                };
                let noclobber = self.options.get(Opt::Noclobber) && matches!(op, RedirOp::Output | RedirOp::OutputBoth);
                let target = self.open_redirect_file(word, flags, noclobber)?;
                if both {
                    self.fds.set_saving(2, Some(target.clone()), saved);
                }
                Some(target)
            }
            (_, RedirTarget::HereDoc(_)) => None,
        };
        match var_name {
            Some(name) => {
                // `{var}>file` stays open after the command, as in bash.
                self.fds.set(self.sys.as_mut(), fd, target);
                self.set_var(&name, &fd.to_string());
            }
            None => self.fds.set_saving(fd, target, saved),
        }
        Ok(())
    }

    fn redirect_error(&mut self, subject: &str, error: Errno) -> Flow {
        self.report(&format!("{}: {}", subject, error.message()));
        Flow::Normal
    }

    /// Expands a redirection's file name (one word after splitting and globbing, or
    /// "ambiguous redirect") and opens it.
    fn open_redirect_file(&mut self, word: &Word, mut flags: OpenFlags, noclobber: bool) -> Result<Target, Flow> {
        let fields = self.expand_words(std::slice::from_ref(word))?;
        if fields.len() != 1 {
            let text = shell_parser::printer::word_to_string(word);
            self.report(&format!("{}: ambiguous redirect", text));
            return Err(Flow::Normal);
        }
        let path = fields.into_iter().next().unwrap_or_default();
        if let Some(target) = self.special_path(&path) {
            return target.ok_or_else(|| self.redirect_error(&path, Errno::BADF));
        }
        if noclobber {
            match self.sys.stat(&path, true) {
                Ok(stat) if stat.kind == FileKind::File => {
                    self.report(&format!("{}: cannot overwrite existing file", path));
                    return Err(Flow::Normal);
                }
                Ok(_) => {}
                Err(_) => flags.exclusive = true,
            }
        }
        match self.sys.open(&path, flags, 0o666) {
            Ok(fd) => Ok(Target::Real(fd)),
            Err(error) => {
                let error = if error == Errno::NOENT && path.is_empty() { Errno::NOENT } else { error };
                let shown = if path.is_empty() { String::new() } else { path.clone() };
                Err(self.redirect_error(&shown, error))
            }
        }
    }

    /// `/dev/stdin`, `/dev/fd/N` and friends refer to the shell's own (virtual)
    /// descriptors: `Some(None)` when that descriptor is not open.
    pub(crate) fn special_path(&mut self, path: &str) -> Option<Option<Target>> {
        let fd = match path {
            "/dev/stdin" => 0,
            "/dev/stdout" => 1,
            "/dev/stderr" => 2,
            _ => {
                let number = path.strip_prefix("/dev/fd/").or_else(|| path.strip_prefix("/proc/self/fd/"))?;
                number.parse::<u32>().ok()?
            }
        };
        Some(self.fds.get(fd).cloned())
    }
}

fn memory(data: Vec<u8>) -> Target {
    Target::Memory(Rc::new(RefCell::new(MemFile { data, pos: 0 })))
}

/// `3` or `3-` (move): the descriptor and whether to close it after.
fn parse_fd_spec(spec: &str) -> Option<(u32, bool)> {
    let (digits, moved) = match spec.strip_suffix('-') {
        Some(digits) => (digits, true),
        None => (spec, false),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(|fd| (fd, moved))
}

/// Text to the bytes it stands for (see `shell_parser::bytes`).
trait IntoBytesLossless {
    fn into_bytes_lossless(self) -> Vec<u8>;
}

impl IntoBytesLossless for String {
    fn into_bytes_lossless(self) -> Vec<u8> {
        crate::text::to_bytes(&self).into_owned()
    }
}
