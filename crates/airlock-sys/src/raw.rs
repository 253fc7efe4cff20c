//! Raw imports of the `airlock` module. Signatures must match
//! `src/kernel/abi/airlock.ts`; every pointer is into this process's memory.

#[cfg(target_os = "wasi")]
#[link(wasm_import_module = "airlock")]
extern "C" {
    pub fn proc_spawn(request: *const u8, request_len: u32, pid_out: *mut u32) -> u16;
    pub fn proc_wait(pid: i32, options: u32, pid_out: *mut u32, status_out: *mut u32) -> u16;
    pub fn proc_kill(pid: i32, signal: u32) -> u16;
    pub fn proc_getpid() -> u32;
    pub fn proc_getppid() -> u32;
    pub fn proc_blob_size(size_out: *mut u32) -> u16;
    pub fn proc_blob_read(buf: *mut u8, len: u32) -> u16;
    pub fn proc_cwd_get(buf: *mut u8, len: u32, len_out: *mut u32) -> u16;
    pub fn proc_cwd_set(path: *const u8, len: u32) -> u16;
    pub fn fd_pipe(fds_out: *mut u32) -> u16;
    pub fn fd_dup(fd: u32, min: u32, fd_out: *mut u32) -> u16;
    pub fn fd_dup2(fd: u32, target: u32) -> u16;
    pub fn deadline_remaining(ms_out: *mut u64) -> u16;
    pub fn abi_version() -> u32;
    pub fn proc_tool_name(buf: *mut u8, len: u32, len_out: *mut u32) -> u16;
    pub fn proc_umask(mask: u32, previous_out: *mut u32) -> u16;
    pub fn fd_stat_ext(fd: u32, out: *mut u8) -> u16;
    pub fn path_stat_ext(dirfd: u32, flags: u32, path: *const u8, path_len: u32, out: *mut u8) -> u16;
    pub fn path_chmod(dirfd: u32, flags: u32, path: *const u8, path_len: u32, mode: u32) -> u16;
    pub fn fs_stats(out: *mut u64) -> u16;
    pub fn net_request(request: *const u8, len: u32, flags: u32, timeout_ms: u32, handle_out: *mut u32) -> u16;
    pub fn net_response(handle: u32, buf: *mut u8, cap: u32, len_out: *mut u32) -> u16;
    pub fn net_read(handle: u32, buf: *mut u8, cap: u32, nread_out: *mut u32) -> u16;
    pub fn net_error(handle: u32, buf: *mut u8, cap: u32, len_out: *mut u32) -> u16;
    pub fn net_close(handle: u32) -> u16;
    pub fn session_next(len_out: *mut u32) -> u16;
    pub fn session_read(buf: *mut u8, len: u32) -> u16;
    pub fn session_poll() -> u16;
    pub fn session_done(status: u32, state: *const u8, state_len: u32) -> u16;
}

/// Native stand-ins: every call is "not implemented", so callers take their error path.
#[cfg(not(target_os = "wasi"))]
mod native {
    const NOSYS: u16 = crate::errno::NOSYS;
    pub unsafe fn proc_spawn(_: *const u8, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn proc_wait(_: i32, _: u32, _: *mut u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn proc_kill(_: i32, _: u32) -> u16 { NOSYS }
    pub unsafe fn proc_getpid() -> u32 { std::process::id() }
    pub unsafe fn proc_getppid() -> u32 { 0 }
    pub unsafe fn proc_blob_size(_: *mut u32) -> u16 { NOSYS }
    pub unsafe fn proc_blob_read(_: *mut u8, _: u32) -> u16 { NOSYS }
    pub unsafe fn proc_cwd_get(_: *mut u8, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn proc_cwd_set(_: *const u8, _: u32) -> u16 { NOSYS }
    pub unsafe fn fd_pipe(_: *mut u32) -> u16 { NOSYS }
    pub unsafe fn fd_dup(_: u32, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn fd_dup2(_: u32, _: u32) -> u16 { NOSYS }
    pub unsafe fn deadline_remaining(_: *mut u64) -> u16 { NOSYS }
    pub unsafe fn abi_version() -> u32 { 0 }
    pub unsafe fn proc_tool_name(_: *mut u8, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn proc_umask(_: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn fd_stat_ext(_: u32, _: *mut u8) -> u16 { NOSYS }
    pub unsafe fn path_stat_ext(_: u32, _: u32, _: *const u8, _: u32, _: *mut u8) -> u16 { NOSYS }
    pub unsafe fn path_chmod(_: u32, _: u32, _: *const u8, _: u32, _: u32) -> u16 { NOSYS }
    pub unsafe fn fs_stats(_: *mut u64) -> u16 { NOSYS }
    pub unsafe fn net_request(_: *const u8, _: u32, _: u32, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn net_response(_: u32, _: *mut u8, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn net_read(_: u32, _: *mut u8, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn net_error(_: u32, _: *mut u8, _: u32, _: *mut u32) -> u16 { NOSYS }
    pub unsafe fn net_close(_: u32) -> u16 { NOSYS }
    pub unsafe fn session_next(_: *mut u32) -> u16 { NOSYS }
    pub unsafe fn session_read(_: *mut u8, _: u32) -> u16 { NOSYS }
    pub unsafe fn session_poll() -> u16 { NOSYS }
    pub unsafe fn session_done(_: u32, _: *const u8, _: u32) -> u16 { NOSYS }
}

#[cfg(not(target_os = "wasi"))]
pub use native::*;

#[cfg(target_os = "wasi")]
#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    fn fd_prestat_get(fd: u32, out: *mut u32) -> u16;
    fn fd_prestat_dir_name(fd: u32, buf: *mut u8, len: u32) -> u16;
}

/// Scans descriptors from 3 for the preopen named `/` (stops at the first invalid one).
#[cfg(target_os = "wasi")]
pub fn find_root_preopen() -> Option<u32> {
    for fd in 3..1024u32 {
        let mut prestat = [0u32; 2];
        // SAFETY: prestat is 8 bytes, the size of __wasi_prestat_t.
        let code = unsafe { fd_prestat_get(fd, prestat.as_mut_ptr()) };
        if code != 0 {
            return None;
        }
        if prestat[0] & 0xff != 0 || prestat[1] != 1 {
            continue;
        }
        let mut name = [0u8; 1];
        // SAFETY: the buffer holds the one byte the kernel said the name has.
        if unsafe { fd_prestat_dir_name(fd, name.as_mut_ptr(), 1) } == 0 && name[0] == b'/' {
            return Some(fd);
        }
    }
    None
}

#[cfg(not(target_os = "wasi"))]
pub fn find_root_preopen() -> Option<u32> {
    None
}
