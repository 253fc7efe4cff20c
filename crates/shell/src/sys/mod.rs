//! The shell's OS interface: everything the interpreter asks of the world outside its own
//! process. It is called `sys` because it is the system-call layer of a program that runs
//! inside the sandbox — not the trusted host. The shell
//! never touches files, processes or clocks except through [`Sys`], so the same
//! interpreter runs in the sandbox ([`wasi::WasiSys`]), natively on Linux for development
//! ([`native::NativeSys`]) and against an in-memory fake in unit tests.

#[cfg(not(target_os = "wasi"))]
#[cfg(unix)]
pub mod native;
#[cfg(target_os = "wasi")]
pub mod wasi;

#[cfg(test)]
pub mod fake;



/// A real descriptor of the shell process (the shell's own fd numbers are virtual; see
/// `io::FdTable`).
pub type Fd = u32;

/// An error number, numbered as in WASI (the sandbox's ABI); the native interface translates.
/// The one errno table (`Errno::NOENT`, its message) is airlock-sys's.
pub use airlock_sys::Errno;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    File,
    Dir,
    Symlink,
    CharDevice,
    BlockDevice,
    Fifo,
    Socket,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    pub kind: FileKind,
    /// Permission bits (and setuid/setgid/sticky), without the type.
    pub perm: u32,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i128,
    pub uid: u32,
    pub gid: u32,
    pub dev: u64,
    pub ino: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenFlags {
    pub read: bool,
    pub write: bool,
    pub create: bool,
    pub truncate: bool,
    pub append: bool,
    /// Fail if the file exists (`set -o noclobber`).
    pub exclusive: bool,
}

impl OpenFlags {
    pub fn read_only() -> OpenFlags {
        OpenFlags { read: true, ..OpenFlags::default() }
    }
}

/// What `access(2)` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Execute,
}

/// The program a spawn runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// A path or a name searched on the child's `PATH`.
    Path(String),
    /// This shell's own binary (a subshell, a pipeline stage of shell code, `$( )`).
    SelfShell,
}

#[derive(Debug, Clone)]
pub struct SpawnRequest {
    pub program: Program,
    pub argv: Vec<Vec<u8>>,
    pub env: Vec<Vec<u8>>,
    /// `(child_fd, parent_fd)`: the child's `child_fd` is the shell's real `parent_fd`.
    pub fds: Vec<(u32, Fd)>,
    /// Opaque bytes for a [`Program::SelfShell`] child.
    pub blob: Vec<u8>,
    /// Start a new process group (background jobs).
    pub new_group: bool,
}

/// What the kernel's session wants the current run to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    Continue,
    TimedOut,
    Interrupted,
}

/// How a waited-for child ended: exit status 0–255, or 128+N for signal N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exited {
    pub pid: u32,
    pub status: i32,
}

pub trait Sys {
    fn read(&mut self, fd: Fd, buf: &mut [u8]) -> Result<usize, Errno>;
    fn write(&mut self, fd: Fd, data: &[u8]) -> Result<usize, Errno>;
    /// Moves the offset by `delta` from the current position (to give back bytes `read`
    /// took from a regular file beyond the line it wanted).
    fn seek_relative(&mut self, fd: Fd, delta: i64) -> Result<u64, Errno>;
    fn open(&mut self, path: &str, flags: OpenFlags, mode: u32) -> Result<Fd, Errno>;
    fn close(&mut self, fd: Fd);
    fn pipe(&mut self) -> Result<(Fd, Fd), Errno>;
    fn fstat(&mut self, fd: Fd) -> Result<FileStat, Errno>;
    fn stat(&mut self, path: &str, follow: bool) -> Result<FileStat, Errno>;
    fn access(&mut self, path: &str, access: Access) -> bool;
    fn read_dir(&mut self, path: &str) -> Result<Vec<String>, Errno>;
    fn read_link(&mut self, path: &str) -> Result<String, Errno>;
    fn unlink(&mut self, path: &str) -> Result<(), Errno>;
    fn chdir(&mut self, path: &str) -> Result<(), Errno>;
    fn getcwd(&mut self) -> Result<String, Errno>;
    /// Sets the umask (`None`: only reads it); returns the previous one.
    fn umask(&mut self, mask: Option<u32>) -> u32;
    fn is_tty(&mut self, fd: Fd) -> bool;

    fn spawn(&mut self, request: &SpawnRequest) -> Result<u32, Errno>;
    /// Waits for `pid` (or any child for -1); `Ok(None)` with `nohang` when none ended.
    fn wait(&mut self, pid: i32, nohang: bool) -> Result<Option<Exited>, Errno>;
    fn kill(&mut self, pid: i32, signal: u32) -> Result<(), Errno>;
    fn getpid(&mut self) -> u32;
    fn getppid(&mut self) -> u32;

    /// Wall-clock time since the epoch, in nanoseconds.
    fn now_ns(&mut self) -> i128;
    /// A monotonic clock in nanoseconds (for `time` and `SECONDS`).
    fn monotonic_ns(&mut self) -> u64;
    fn random_u32(&mut self) -> u32;
    /// Waits until `fd` has input or `timeout_ms` passes (`read -t`): Ok(true) if readable.
    fn wait_readable(&mut self, fd: Fd, timeout_ms: u64) -> Result<bool, Errno>;

    /// The bytes a parent shell attached to this process ([`SpawnRequest::blob`]).
    fn blob(&mut self) -> Vec<u8>;
    /// Lets the kernel's session check the run's deadline and cancellation.
    fn poll(&mut self) -> Poll;
    /// The process environment at startup, as `KEY=VALUE` strings.
    fn environment(&mut self) -> Vec<String>;

    /// The session shell's next run request (JSON), or `None` when there will be none.
    fn session_next(&mut self) -> Option<Vec<u8>>;
    /// Reports the end of a run with the shell's serialized state.
    fn session_done(&mut self, status: i32, state: &[u8]);

    /// Descriptors above 2 this process was started with (`exec 3>f; sh -c 'echo >&3'`):
    /// a shell started as a program takes them into its descriptor table. Interfaces that
    /// cannot tell have none.
    fn inherited_fds(&mut self) -> Vec<Fd> {
        Vec::new()
    }
}
