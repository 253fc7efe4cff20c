//! Raw imports of the `airlock` module. Signatures must match
//! `src/kernel/proc/airlock-imports.ts`; every pointer is into this process's memory.

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
}

#[cfg(not(target_os = "wasi"))]
pub use native::*;
