//! Direct WASI preview1 calls that Rust's std does not make (or makes only indirectly), so
//! the probe can check the exact errno of every row of the capability table.

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    fn sock_recv(fd: u32, iovs: *const u32, iovs_len: u32, flags: u32, len_out: *mut u32, flags_out: *mut u32) -> u32;
    fn sock_send(fd: u32, iovs: *const u32, iovs_len: u32, flags: u32, len_out: *mut u32) -> u32;
    fn sock_accept(fd: u32, flags: u32, fd_out: *mut u32) -> u32;
    fn sock_shutdown(fd: u32, how: u32) -> u32;
    fn proc_raise(signal: u32) -> u32;
    fn fd_pread(fd: u32, iovs: *const u32, iovs_len: u32, offset: u64, len_out: *mut u32) -> u32;
    fn fd_pwrite(fd: u32, iovs: *const u32, iovs_len: u32, offset: u64, len_out: *mut u32) -> u32;
    fn fd_renumber(fd: u32, to: u32) -> u32;
    fn path_link(old_fd: u32, old_flags: u32, old_path: *const u8, old_len: u32, new_fd: u32, new_path: *const u8, new_len: u32) -> u32;
    fn poll_oneoff(subscriptions: *const u8, events: *mut u8, count: u32, events_out: *mut u32) -> u32;
    fn random_get(buf: *mut u8, len: u32) -> u32;
    fn fd_fdstat_get(fd: u32, stat: *mut u8) -> u32;
    fn fd_close(fd: u32) -> u32;
    fn fd_read(fd: u32, iovs: *const u32, iovs_len: u32, nread: *mut u32) -> u32;
    fn path_symlink(old_path: *const u8, old_len: u32, fd: u32, new_path: *const u8, new_len: u32) -> u32;
    fn path_filestat_set_times(fd: u32, flags: u32, path: *const u8, path_len: u32, atim: u64, mtim: u64, fst_flags: u32) -> u32;
}

/// Calls the named unsupported function with harmless arguments and returns its errno.
pub fn call_unsupported(name: &str) -> u32 {
    let mut buf = [0u8; 16];
    let iov: [u32; 2] = [buf.as_mut_ptr() as u32, buf.len() as u32];
    let mut out: u32 = 0;
    let mut out2: u32 = 0;
    let path = b"/tmp/x";
    unsafe {
        match name {
            "sock_recv" => sock_recv(0, iov.as_ptr(), 1, 0, &mut out, &mut out2),
            "sock_send" => sock_send(1, iov.as_ptr(), 1, 0, &mut out),
            "sock_accept" => sock_accept(3, 0, &mut out),
            "sock_shutdown" => sock_shutdown(1, 3),
            "proc_raise" => proc_raise(15),
            "fd_pread" => fd_pread(0, iov.as_ptr(), 1, 0, &mut out),
            "fd_pwrite" => fd_pwrite(1, iov.as_ptr(), 1, 0, &mut out),
            "fd_renumber" => fd_renumber(1, 7),
            "path_link" => path_link(3, 0, path.as_ptr(), path.len() as u32, 3, b"/tmp/y".as_ptr(), 6),
            "poll_oneoff_fd" => {
                // One FD_READ subscription on stdin (tag 1): fd subscriptions are unsupported.
                let mut sub = [0u8; 48];
                sub[8] = 1;
                let mut event = [0u8; 32];
                poll_oneoff(sub.as_ptr(), event.as_mut_ptr(), 1, &mut out)
            }
            _ => 9999,
        }
    }
}

pub fn random(len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    unsafe {
        random_get(buf.as_mut_ptr(), len as u32);
    }
    buf
}

/// The WASI filetype of a descriptor (2 = character device, i.e. a terminal).
pub fn filetype(fd: u32) -> u32 {
    let mut stat = [0u8; 24];
    let code = unsafe { fd_fdstat_get(fd, stat.as_mut_ptr()) };
    if code != 0 {
        return 1000 + code;
    }
    stat[0] as u32
}

pub fn close(fd: u32) {
    unsafe {
        fd_close(fd);
    }
}

/// Sets atime and mtime of `path` (absolute, resolved from the root preopen, fd 3).
pub fn set_times(path: &str, secs: u64) -> u32 {
    let relative = path.trim_start_matches('/');
    let nanos = secs * 1_000_000_000;
    // fst_flags: ATIM (1) | MTIM (4)
    unsafe { path_filestat_set_times(3, 1, relative.as_ptr(), relative.len() as u32, nanos, nanos, 1 | 4) }
}

/// Creates a symlink at absolute `link` (through the root preopen) pointing to `target`.
pub fn symlink(target: &str, link: &str) -> u32 {
    let relative = link.trim_start_matches('/');
    unsafe { path_symlink(target.as_ptr(), target.len() as u32, 3, relative.as_ptr(), relative.len() as u32) }
}

/// Reads a raw descriptor (std cannot wrap an fd on WASI in Rust 1.63).
pub struct FdReader(pub u32);

impl std::io::Read for FdReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let iov: [u32; 2] = [buf.as_mut_ptr() as u32, buf.len() as u32];
        let mut n: u32 = 0;
        let code = unsafe { fd_read(self.0, iov.as_ptr(), 1, &mut n) };
        if code != 0 {
            return Err(std::io::Error::from_raw_os_error(code as i32));
        }
        Ok(n as usize)
    }
}
