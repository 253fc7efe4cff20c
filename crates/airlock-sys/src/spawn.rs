//! The spawn request and its wire encoding (little-endian; see docs/abi.md):
//!
//! ```text
//! u32 flags
//! str program              (no '/': searched in PATH of `env`, like execvp)
//! u32 argc, argc × str     (argv[0] first)
//! u32 envc, envc × str     ("KEY=VALUE")
//! str cwd                  (empty: the parent's)
//! u32 nfds, nfds × (u32 child_fd, u32 parent_fd)
//! str blob                 (opaque bytes the child reads with `spawn_blob`)
//! ```
//! where `str` is `u32 length` followed by that many bytes.

/// One descriptor the child starts with: its `child_fd` refers to what the parent's
/// `parent_fd` refers to. Descriptors not listed are not inherited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdMapping {
    pub child_fd: u32,
    pub parent_fd: u32,
}

/// Spawn flag: a write to a closed pipe returns EPIPE instead of ending the process with
/// status 141 (SIGPIPE), as for a process that ignores SIGPIPE.
pub const FLAG_IGNORE_SIGPIPE: u32 = 1;

/// Spawn flag: the child starts a new process group (its pgid is its pid), as for a
/// background job the shell may later signal as a whole.
pub const FLAG_NEW_GROUP: u32 = 2;

/// Everything needed to start a process.
#[derive(Debug, Clone, Default)]
pub struct SpawnRequest {
    pub flags: u32,
    pub program: Vec<u8>,
    pub argv: Vec<Vec<u8>>,
    pub env: Vec<Vec<u8>>,
    pub cwd: Vec<u8>,
    pub fds: Vec<FdMapping>,
    pub blob: Vec<u8>,
}

impl SpawnRequest {
    /// A request that runs `program` with `argv`, inheriting stdin, stdout and stderr.
    pub fn new(program: &str, argv: &[&str]) -> SpawnRequest {
        SpawnRequest {
            program: program.as_bytes().to_vec(),
            argv: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
            fds: (0..3).map(|fd| FdMapping { child_fd: fd, parent_fd: fd }).collect(),
            ..SpawnRequest::default()
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.blob.len());
        put_u32(&mut out, self.flags);
        put_str(&mut out, &self.program);
        put_u32(&mut out, self.argv.len() as u32);
        for arg in &self.argv {
            put_str(&mut out, arg);
        }
        put_u32(&mut out, self.env.len() as u32);
        for var in &self.env {
            put_str(&mut out, var);
        }
        put_str(&mut out, &self.cwd);
        put_u32(&mut out, self.fds.len() as u32);
        for map in &self.fds {
            put_u32(&mut out, map.child_fd);
            put_u32(&mut out, map.parent_fd);
        }
        put_str(&mut out, &self.blob);
        out
    }
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u32(out, bytes.len() as u32);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_fields_in_order() {
        let mut req = SpawnRequest::new("ls", &["ls", "-l"]);
        req.env.push(b"A=1".to_vec());
        let bytes = req.encode();
        assert_eq!(&bytes[0..4], &0u32.to_le_bytes());
        assert_eq!(&bytes[4..8], &2u32.to_le_bytes());
        assert_eq!(&bytes[8..10], b"ls");
        assert_eq!(&bytes[10..14], &2u32.to_le_bytes());
    }
}
