//! An in-memory OS interface for unit tests: a small file system, unbounded pipes, and processes
//! that run to completion inside `spawn` (child shells in-process, plus a fake `cat`).
//! Deterministic and fast; what it cannot model (concurrency, blocking) is covered by
//! the native differential suite.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;

use super::{Access, Errno, Exited, Fd, FileKind, FileStat, Sys, OpenFlags, Poll, Program, SpawnRequest};

/// A process started but not yet run (children run when someone waits or reads).
struct Pending {
    pid: u32,
    sys: FakeSys,
    program: Program,
    args: Vec<String>,
}

#[derive(Default)]
pub struct World {
    pending: Vec<Pending>,
    pub files: BTreeMap<String, Vec<u8>>,
    pub dirs: Vec<String>,
    pipes: Vec<PipeBuffer>,
    next_pid: u32,
    exits: HashMap<u32, i32>,
    /// Captured output streams (stdout/stderr of the test's first shell).
    pub outputs: Vec<Vec<u8>>,
    /// Polls left before runs are timed out (None: unlimited).
    pub poll_budget: Option<u32>,
}

#[derive(Default)]
struct PipeBuffer {
    data: VecDeque<u8>,
}

#[derive(Clone)]
enum Entry {
    File { path: String, pos: usize, append: bool },
    PipeRead(usize),
    PipeWrite(usize),
    Output(usize),
    Input(Rc<RefCell<VecDeque<u8>>>),
}

pub struct FakeSys {
    world: Rc<RefCell<World>>,
    /// Nesting of child processes (a runaway `f() { (f); }` stops here).
    depth: u32,
    fds: HashMap<Fd, Entry>,
    pid: u32,
    cwd: String,
    blob: Vec<u8>,
    umask: u32,
    env: Vec<String>,
}

impl FakeSys {
    /// A fake whose stdin holds `stdin` and whose stdout/stderr are captured in
    /// `world.outputs[0]` and `[1]`.
    pub fn new(world: Rc<RefCell<World>>, stdin: &str) -> FakeSys {
        {
            let mut w = world.borrow_mut();
            if w.outputs.is_empty() {
                w.outputs = vec![Vec::new(), Vec::new()];
            }
            if !w.dirs.iter().any(|d| d == "/") {
                w.dirs.push("/".to_string());
                w.dirs.push("/tmp".to_string());
                w.dirs.push("/dev".to_string());
            }
            w.next_pid = w.next_pid.max(100);
        }
        let mut fds = HashMap::new();
        fds.insert(0, Entry::Input(Rc::new(RefCell::new(stdin.bytes().collect()))));
        fds.insert(1, Entry::Output(0));
        fds.insert(2, Entry::Output(1));
        FakeSys { world, depth: 0, fds, pid: 1, cwd: "/".to_string(), blob: Vec::new(), umask: 0o022, env: vec!["HOME=/home/user".into(), "PATH=/bin".into()] }
    }

    fn absolute(&self, path: &str) -> String {
        let joined = if path.starts_with('/') { path.to_string() } else { format!("{}/{}", self.cwd, path) };
        crate::builtins::cd::normalize(&joined)
    }

    fn new_fd(&mut self, entry: Entry) -> Fd {
        let fd = (3..).find(|fd| !self.fds.contains_key(fd)).unwrap_or(3);
        self.fds.insert(fd, entry);
        fd
    }

    fn child(&self, request: &SpawnRequest, pid: u32) -> FakeSys {
        let mut fds = HashMap::new();
        for &(child, parent) in &request.fds {
            if let Some(entry) = self.fds.get(&parent) {
                fds.insert(child, entry.clone());
            }
        }
        FakeSys {
            world: self.world.clone(),
            depth: self.depth + 1,
            fds,
            pid,
            cwd: self.cwd.clone(),
            blob: request.blob.clone(),
            umask: self.umask,
            env: request.env.iter().map(|e| String::from_utf8_lossy(e).into_owned()).collect(),
        }
    }

    /// A stand-in for `cat`: copies its files (or stdin) to stdout.
    fn run_cat(&mut self, args: &[String]) -> i32 {
        let mut data = Vec::new();
        if args.is_empty() {
            let mut buf = [0u8; 4096];
            while let Ok(n) = self.read(0, &mut buf) {
                if n == 0 {
                    break;
                }
                data.extend_from_slice(&buf[..n]);
            }
        }
        for arg in args {
            let path = self.absolute(arg);
            match self.world.borrow().files.get(&path) {
                Some(content) => data.extend_from_slice(content),
                None => return 1,
            }
        }
        let _ = self.write(1, &data);
        0
    }
}

/// Runs every started child to completion, in the order they were started (a
/// cooperative stand-in for the kernel's scheduler).
fn run_pending(world: &Rc<RefCell<World>>) {
    loop {
        let next = {
            let mut w = world.borrow_mut();
            if w.pending.is_empty() {
                return;
            }
            w.pending.remove(0)
        };
        let Pending { pid, mut sys, program, args } = next;
        let status = match program {
            Program::SelfShell => crate::exec::child::run_child(Box::new(sys)),
            Program::Path(path) => match path.rsplit('/').next() {
                Some("cat") => sys.run_cat(&args),
                Some("true") => 0,
                _ => 1,
            },
        };
        world.borrow_mut().exits.insert(pid, status);
    }
}

impl Sys for FakeSys {
    fn read(&mut self, fd: Fd, buf: &mut [u8]) -> Result<usize, Errno> {
        let entry = self.fds.get(&fd).cloned().ok_or(Errno::BADF)?;
        let mut world = self.world.borrow_mut();
        match entry {
            Entry::File { path, pos, append } => {
                let content = world.files.get(&path).cloned().unwrap_or_default();
                let n = content.len().saturating_sub(pos).min(buf.len());
                buf[..n].copy_from_slice(&content[pos..pos + n]);
                self.fds.insert(fd, Entry::File { path, pos: pos + n, append });
                Ok(n)
            }
            Entry::PipeRead(id) => {
                if world.pipes[id].data.is_empty() && !world.pending.is_empty() {
                    // Would block: let the started children run first.
                    drop(world);
                    run_pending(&self.world);
                    world = self.world.borrow_mut();
                }
                let pipe = &mut world.pipes[id];
                let n = pipe.data.len().min(buf.len());
                for slot in buf.iter_mut().take(n) {
                    *slot = pipe.data.pop_front().unwrap_or(0);
                }
                Ok(n)
            }
            Entry::Input(queue) => {
                let mut queue = queue.borrow_mut();
                let n = queue.len().min(buf.len());
                for slot in buf.iter_mut().take(n) {
                    *slot = queue.pop_front().unwrap_or(0);
                }
                Ok(n)
            }
            _ => Err(Errno::BADF),
        }
    }

    fn write(&mut self, fd: Fd, data: &[u8]) -> Result<usize, Errno> {
        let entry = self.fds.get(&fd).cloned().ok_or(Errno::BADF)?;
        let mut world = self.world.borrow_mut();
        match entry {
            Entry::File { path, pos, append } => {
                let content = world.files.entry(path.clone()).or_insert_with(Vec::new);
                let start = if append { content.len() } else { pos };
                if content.len() < start + data.len() {
                    content.resize(start + data.len(), 0);
                }
                content[start..start + data.len()].copy_from_slice(data);
                self.fds.insert(fd, Entry::File { path, pos: start + data.len(), append });
                Ok(data.len())
            }
            Entry::PipeWrite(id) => {
                world.pipes[id].data.extend(data.iter().copied());
                Ok(data.len())
            }
            Entry::Output(index) => {
                world.outputs[index].extend_from_slice(data);
                Ok(data.len())
            }
            _ => Err(Errno::BADF),
        }
    }

    fn seek_relative(&mut self, fd: Fd, delta: i64) -> Result<u64, Errno> {
        match self.fds.get_mut(&fd) {
            Some(Entry::File { pos, .. }) => {
                *pos = (*pos as i64 + delta).max(0) as usize;
                Ok(*pos as u64)
            }
            _ => Err(Errno::SPIPE),
        }
    }

    fn open(&mut self, path: &str, flags: OpenFlags, _mode: u32) -> Result<Fd, Errno> {
        let path = self.absolute(path);
        if path == "/dev/null" {
            let id = {
                let mut world = self.world.borrow_mut();
                world.pipes.push(PipeBuffer::default());
                world.pipes.len() - 1
            };
            return Ok(self.new_fd(if flags.write { Entry::PipeWrite(id) } else { Entry::PipeRead(id) }));
        }
        {
            let mut world = self.world.borrow_mut();
            if world.dirs.contains(&path) {
                return Err(Errno::ISDIR);
            }
            let exists = world.files.contains_key(&path);
            if exists && flags.exclusive {
                return Err(Errno::EXIST);
            }
            if !exists {
                if !flags.create {
                    return Err(Errno::NOENT);
                }
                let parent = path.rsplitn(2, '/').nth(1).map(|p| if p.is_empty() { "/".to_string() } else { p.to_string() });
                if parent.map_or(false, |p| !world.dirs.contains(&p)) {
                    return Err(Errno::NOENT);
                }
                world.files.insert(path.clone(), Vec::new());
            } else if flags.truncate {
                world.files.insert(path.clone(), Vec::new());
            }
        }
        Ok(self.new_fd(Entry::File { path, pos: 0, append: flags.append }))
    }

    fn close(&mut self, fd: Fd) {
        self.fds.remove(&fd);
    }

    fn pipe(&mut self) -> Result<(Fd, Fd), Errno> {
        let id = {
            let mut world = self.world.borrow_mut();
            world.pipes.push(PipeBuffer::default());
            world.pipes.len() - 1
        };
        let read = self.new_fd(Entry::PipeRead(id));
        let write = self.new_fd(Entry::PipeWrite(id));
        Ok((read, write))
    }

    fn fstat(&mut self, fd: Fd) -> Result<FileStat, Errno> {
        let kind = match self.fds.get(&fd) {
            Some(Entry::File { .. }) => FileKind::File,
            Some(_) => FileKind::Fifo,
            None => return Err(Errno::BADF),
        };
        Ok(FileStat { kind, perm: 0o644, size: 0, mtime_ns: 0, uid: 0, gid: 0, dev: 0, ino: fd as u64 })
    }

    fn stat(&mut self, path: &str, _follow: bool) -> Result<FileStat, Errno> {
        let path = self.absolute(path);
        let world = self.world.borrow();
        let ino = path.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
        if world.dirs.contains(&path) {
            return Ok(FileStat { kind: FileKind::Dir, perm: 0o755, size: 0, mtime_ns: 0, uid: 0, gid: 0, dev: 1, ino });
        }
        match world.files.get(&path) {
            Some(content) => {
                let perm = if path.starts_with("/bin/") { 0o755 } else { 0o644 };
                Ok(FileStat { kind: FileKind::File, perm, size: content.len() as u64, mtime_ns: 0, uid: 0, gid: 0, dev: 1, ino })
            }
            None => Err(Errno::NOENT),
        }
    }

    fn access(&mut self, path: &str, access: Access) -> bool {
        match self.stat(path, true) {
            Ok(stat) => access != Access::Execute || stat.perm & 0o111 != 0,
            Err(_) => false,
        }
    }

    fn read_dir(&mut self, path: &str) -> Result<Vec<String>, Errno> {
        let dir = self.absolute(path);
        let world = self.world.borrow();
        if !world.dirs.contains(&dir) {
            return Err(Errno::NOTDIR);
        }
        let prefix = if dir == "/" { "/".to_string() } else { format!("{}/", dir) };
        let names = world
            .files
            .keys()
            .chain(world.dirs.iter())
            .filter_map(|p| p.strip_prefix(&prefix))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_string)
            .collect();
        Ok(names)
    }

    fn read_link(&mut self, _path: &str) -> Result<String, Errno> {
        Err(Errno::INVAL)
    }

    fn unlink(&mut self, path: &str) -> Result<(), Errno> {
        let path = self.absolute(path);
        self.world.borrow_mut().files.remove(&path).map(|_| ()).ok_or(Errno::NOENT)
    }

    fn chdir(&mut self, path: &str) -> Result<(), Errno> {
        let path = self.absolute(path);
        if self.world.borrow().dirs.contains(&path) {
            self.cwd = path;
            Ok(())
        } else {
            Err(Errno::NOENT)
        }
    }

    fn getcwd(&mut self) -> Result<String, Errno> {
        Ok(self.cwd.clone())
    }

    fn umask(&mut self, mask: Option<u32>) -> u32 {
        let old = self.umask;
        if let Some(mask) = mask {
            self.umask = mask;
        }
        old
    }

    fn is_tty(&mut self, _fd: Fd) -> bool {
        false
    }

    fn spawn(&mut self, request: &SpawnRequest) -> Result<u32, Errno> {
        if self.depth > 12 {
            return Err(Errno::AGAIN);
        }
        if let Program::Path(path) = &request.program {
            if !matches!(path.rsplit('/').next(), Some("cat" | "true" | "false")) {
                return Err(Errno::NOENT);
            }
        }
        let pid = {
            let mut world = self.world.borrow_mut();
            world.next_pid += 1;
            world.next_pid
        };
        let child = self.child(request, pid);
        let args: Vec<String> = request.argv.iter().skip(1).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        self.world.borrow_mut().pending.push(Pending { pid, sys: child, program: request.program.clone(), args });
        Ok(pid)
    }

    fn wait(&mut self, pid: i32, _nohang: bool) -> Result<Option<Exited>, Errno> {
        run_pending(&self.world);
        let mut world = self.world.borrow_mut();
        if pid == -1 {
            let any = world.exits.keys().next().copied();
            return match any {
                Some(pid) => Ok(world.exits.remove(&pid).map(|status| Exited { pid, status })),
                None => Err(Errno::CHILD),
            };
        }
        match world.exits.remove(&(pid as u32)) {
            Some(status) => Ok(Some(Exited { pid: pid as u32, status })),
            None => Err(Errno::CHILD),
        }
    }

    fn kill(&mut self, _pid: i32, _signal: u32) -> Result<(), Errno> {
        Err(Errno::SRCH)
    }

    fn getpid(&mut self) -> u32 {
        self.pid
    }

    fn getppid(&mut self) -> u32 {
        0
    }

    fn now_ns(&mut self) -> i128 {
        1_700_000_000_000_000_000
    }

    fn monotonic_ns(&mut self) -> u64 {
        0
    }

    fn random_u32(&mut self) -> u32 {
        4
    }

    fn wait_readable(&mut self, _fd: Fd, _timeout_ms: u64) -> Result<bool, Errno> {
        Ok(true)
    }

    fn blob(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.blob)
    }

    fn poll(&mut self) -> Poll {
        let mut world = self.world.borrow_mut();
        match world.poll_budget.as_mut() {
            Some(0) => Poll::TimedOut,
            Some(budget) => {
                *budget -= 1;
                Poll::Continue
            }
            None => Poll::Continue,
        }
    }

    fn environment(&mut self) -> Vec<String> {
        self.env.clone()
    }

    fn session_next(&mut self) -> Option<Vec<u8>> {
        None
    }

    fn session_done(&mut self, _status: i32, _state: &[u8]) {}
}
