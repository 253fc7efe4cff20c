//! The shell's descriptors. The numbers a script sees (`exec 3>f`, `>&2`) are virtual: each
//! maps to a real descriptor of the shell process, or to an in-memory buffer (here-document
//! text). The shell never renumbers its real descriptors (in the sandbox, fd 3 and up may be
//! its root preopen); children get the mapping in their spawn request instead, and builtins
//! read and write through the table.
//!
//! Real descriptors are reference counted: the same one may be behind several virtual
//! numbers (`2>&1`) and saved redirection frames; it is closed when the last goes.

pub mod input;
pub mod redirect;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::sys::{Errno, Fd, Sys};

/// In-memory contents read by the shell itself (here-documents, here-strings).
#[derive(Debug, Default)]
pub struct MemFile {
    pub data: Vec<u8>,
    pub pos: usize,
}

#[derive(Debug, Clone)]
pub enum Target {
    Real(Fd),
    Memory(Rc<RefCell<MemFile>>),
}

/// What a redirection replaced, to put back afterwards.
#[derive(Debug, Default)]
pub struct SavedFds {
    entries: Vec<(u32, Option<Target>)>,
}

#[derive(Debug, Default)]
pub struct FdTable {
    slots: Vec<Option<Target>>,
    refs: HashMap<Fd, u32>,
}

/// Above this, a here-document given to a child goes through a temporary file: a pipe
/// holds only 64 KiB before the writer blocks, and the writer is the shell itself.
pub const PIPE_CAPACITY: usize = 60 * 1024;

impl FdTable {
    /// The table of a fresh shell: virtual 0, 1, 2 are the real 0, 1, 2.
    pub fn standard() -> FdTable {
        FdTable::identity(&[0, 1, 2])
    }

    /// Virtual fd N is real fd N for each N given (a child shell's inherited set).
    pub fn identity(fds: &[u32]) -> FdTable {
        let mut table = FdTable::default();
        for &fd in fds {
            table.set_raw(fd, Some(Target::Real(fd)));
        }
        table
    }

    /// Makes virtual `fd` the real `fd` this process was started with.
    pub fn inherit(&mut self, fd: u32) {
        self.set_raw(fd, Some(Target::Real(fd)));
    }

    pub fn get(&self, fd: u32) -> Option<&Target> {
        self.slots.get(fd as usize).and_then(|t| t.as_ref())
    }

    pub fn is_open(&self, fd: u32) -> bool {
        self.get(fd).is_some()
    }

    /// Open virtual descriptors, ascending.
    pub fn open_fds(&self) -> Vec<u32> {
        self.slots.iter().enumerate().filter(|(_, t)| t.is_some()).map(|(i, _)| i as u32).collect()
    }

    /// The lowest free virtual descriptor at or above `min`.
    pub fn lowest_free(&self, min: u32) -> u32 {
        let mut fd = min;
        while self.is_open(fd) {
            fd += 1;
        }
        fd
    }

    fn add_ref(&mut self, target: &Option<Target>) {
        if let Some(Target::Real(fd)) = target {
            *self.refs.entry(*fd).or_insert(0) += 1;
        }
    }

    /// Drops a reference; returns the real descriptor if that was the last one.
    fn release(&mut self, target: Option<Target>) -> Option<Fd> {
        if let Some(Target::Real(fd)) = target {
            let count = self.refs.entry(fd).or_insert(1);
            *count -= 1;
            if *count == 0 {
                self.refs.remove(&fd);
                return Some(fd);
            }
        }
        None
    }

    fn set_raw(&mut self, fd: u32, target: Option<Target>) -> Option<Target> {
        let index = fd as usize;
        if index >= self.slots.len() {
            if target.is_none() {
                return None;
            }
            self.slots.resize(index + 1, None);
        }
        self.add_ref(&target);
        std::mem::replace(&mut self.slots[index], target)
    }

    /// Points `fd` at `target`, closing what it pointed to if nothing else does.
    pub fn set(&mut self, sys: &mut dyn Sys, fd: u32, target: Option<Target>) {
        let old = self.set_raw(fd, target);
        if let Some(real) = self.release(old) {
            sys.close(real);
        }
    }

    /// Like [`FdTable::set`], but records the old target in `saved` to restore later.
    pub fn set_saving(&mut self, fd: u32, target: Option<Target>, saved: &mut SavedFds) {
        let old = self.set_raw(fd, target);
        saved.entries.push((fd, old));
    }

    /// Undoes a redirection frame, most recent first.
    pub fn restore(&mut self, sys: &mut dyn Sys, saved: SavedFds) {
        for (fd, old) in saved.entries.into_iter().rev() {
            let index = fd as usize;
            if index >= self.slots.len() {
                self.slots.resize(index + 1, None);
            }
            let current = std::mem::replace(&mut self.slots[index], old);
            if let Some(real) = self.release(current) {
                sys.close(real);
            }
        }
    }

    /// Forgets a saved frame, making its redirections permanent (`exec >file`).
    pub fn commit(&mut self, sys: &mut dyn Sys, saved: SavedFds) {
        for (_, old) in saved.entries {
            if let Some(real) = self.release(old) {
                sys.close(real);
            }
        }
    }

    /// Takes ownership of a freshly opened real descriptor as a target (refcount starts when
    /// it is placed in a slot).
    pub fn adopt(fd: Fd) -> Target {
        Target::Real(fd)
    }

    /// Closes a real descriptor that was never placed in the table.
    pub fn discard(sys: &mut dyn Sys, target: Target) {
        if let Target::Real(fd) = target {
            sys.close(fd);
        }
    }

    /// Whether `fd` (real) is referenced by the table or a saved frame.
    pub fn holds(&self, fd: Fd) -> bool {
        self.refs.contains_key(&fd)
    }

    /// Closes everything (process exit).
    pub fn close_all(&mut self, sys: &mut dyn Sys) {
        for fd in self.open_fds() {
            self.set(sys, fd, None);
        }
    }

    /// Replaces every slot holding `memory` with `real` (a here-document handed to a
    /// child: from then on the shell and its children share the real descriptor).
    pub fn replace_memory(&mut self, memory: &Rc<RefCell<MemFile>>, real: Fd) {
        for index in 0..self.slots.len() {
            let same = matches!(&self.slots[index], Some(Target::Memory(m)) if Rc::ptr_eq(m, memory));
            if same {
                self.slots[index] = Some(Target::Real(real));
                *self.refs.entry(real).or_insert(0) += 1;
            }
        }
    }
}

/// Reads from a target; memory targets read their buffer.
pub fn read_target(sys: &mut dyn Sys, target: &Target, buf: &mut [u8]) -> Result<usize, Errno> {
    match target {
        Target::Real(fd) => sys.read(*fd, buf),
        Target::Memory(memory) => {
            let mut memory = memory.borrow_mut();
            let available = memory.data.len().saturating_sub(memory.pos);
            let n = available.min(buf.len());
            let start = memory.pos;
            buf[..n].copy_from_slice(&memory.data[start..start + n]);
            memory.pos += n;
            Ok(n)
        }
    }
}

/// Writes all of `data` to a target (a memory target collects it: captured output).
pub fn write_target(sys: &mut dyn Sys, target: &Target, mut data: &[u8]) -> Result<(), Errno> {
    match target {
        Target::Real(fd) => {
            while !data.is_empty() {
                match sys.write(*fd, data) {
                    Ok(0) => return Err(Errno::IO),
                    Ok(n) => data = &data[n..],
                    Err(Errno::INTR) | Err(Errno::AGAIN) => continue,
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        }
        Target::Memory(memory) => {
            memory.borrow_mut().data.extend_from_slice(data);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_free_skips_open() {
        let table = FdTable::standard();
        assert_eq!(table.lowest_free(0), 3);
        assert_eq!(table.lowest_free(10), 10);
    }
}
