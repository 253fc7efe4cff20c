//! Permission modes as people write them (`chmod`, `mkdir -m`, `install -m`): octal, or
//! GNU's symbolic changes `u+x,g-w,o=r,a+X,u=g`, compiled once and applied per file
//! (gnulib modechange.c semantics); and `ls -l`'s mode string.

use crate::fsext::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK};

const S_ISUID: u32 = 0o4000;
const S_ISGID: u32 = 0o2000;
const S_ISVTX: u32 = 0o1000;
const ALL_BITS: u32 = 0o7777;
const RWX_ALL: u32 = 0o777;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ordinary,
    CopyExisting,
    XIfAnyX,
}

#[derive(Debug, Clone, Copy)]
struct Change {
    op: u8,
    kind: Kind,
    affected: u32,
    value: u32,
    mentioned: u32,
}

/// A compiled mode specification.
#[derive(Debug, Clone)]
pub struct ModeChange {
    changes: Vec<Change>,
}

impl ModeChange {
    /// Parses an octal or symbolic mode; `None` when it is invalid.
    pub fn parse(text: &str) -> Option<ModeChange> {
        if !text.is_empty() && text.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            let value = u32::from_str_radix(text, 8).ok()?;
            if value > ALL_BITS {
                return None;
            }
            // Fewer than 5 digits leave a directory's set-id bits alone (GNU).
            let mentioned = if text.len() < 5 { value | S_ISVTX | RWX_ALL } else { ALL_BITS };
            return Some(ModeChange { changes: vec![Change { op: b'=', kind: Kind::Ordinary, affected: ALL_BITS, value, mentioned }] });
        }
        let mut changes = Vec::new();
        for clause in text.split(',') {
            let bytes = clause.as_bytes();
            let mut i = 0;
            let mut affected = 0;
            while i < bytes.len() {
                affected |= match bytes[i] {
                    b'u' => S_ISUID | 0o700,
                    b'g' => S_ISGID | 0o070,
                    b'o' => S_ISVTX | 0o007,
                    b'a' => ALL_BITS,
                    _ => break,
                };
                i += 1;
            }
            if i >= bytes.len() {
                return None;
            }
            while i < bytes.len() {
                let op = bytes[i];
                if !matches!(op, b'+' | b'-' | b'=') {
                    return None;
                }
                i += 1;
                let mut value = 0;
                let mut kind = Kind::Ordinary;
                if i < bytes.len() && matches!(bytes[i], b'u' | b'g' | b'o') {
                    value = match bytes[i] {
                        b'u' => 0o700,
                        b'g' => 0o070,
                        _ => 0o007,
                    };
                    kind = Kind::CopyExisting;
                    i += 1;
                } else {
                    while i < bytes.len() {
                        match bytes[i] {
                            b'r' => value |= 0o444,
                            b'w' => value |= 0o222,
                            b'x' => value |= 0o111,
                            b'X' => kind = Kind::XIfAnyX,
                            b's' => value |= S_ISUID | S_ISGID,
                            b't' => value |= S_ISVTX,
                            _ => break,
                        }
                        i += 1;
                    }
                }
                let mentioned = if affected != 0 { affected & value } else { value };
                changes.push(Change { op, kind, affected, value, mentioned });
            }
        }
        Some(ModeChange { changes })
    }

    /// The permission bits after applying the change to `old` (a full st_mode or bits).
    pub fn apply(&self, old: u32, is_dir: bool, umask: u32) -> u32 {
        let mut mode = old & ALL_BITS;
        for c in &self.changes {
            let omit = if is_dir { (S_ISUID | S_ISGID) & !c.mentioned } else { 0 };
            let mut value = c.value;
            match c.kind {
                Kind::Ordinary => {}
                Kind::CopyExisting => {
                    value &= mode;
                    value |= (if value & 0o444 != 0 { 0o444 } else { 0 }) | (if value & 0o222 != 0 { 0o222 } else { 0 }) | (if value & 0o111 != 0 { 0o111 } else { 0 });
                }
                Kind::XIfAnyX => {
                    if mode & 0o111 != 0 || is_dir {
                        value |= 0o111;
                    }
                }
            }
            value &= (if c.affected != 0 { c.affected } else { !umask }) & !omit;
            match c.op {
                b'=' => {
                    let preserved = (if c.affected != 0 { !c.affected } else { 0 }) | omit;
                    mode = (mode & preserved) | value;
                }
                b'+' => mode |= value,
                _ => mode &= !value,
            }
        }
        mode & ALL_BITS
    }
}

/// `drwxr-xr-x`: the type letter and the nine permission letters with s/S/t/T.
pub fn mode_string(mode: u32) -> String {
    let kind = match mode & S_IFMT {
        S_IFDIR => 'd',
        S_IFLNK => 'l',
        S_IFREG => '-',
        S_IFCHR => 'c',
        S_IFBLK => 'b',
        S_IFIFO => 'p',
        S_IFSOCK => 's',
        _ => '?',
    };
    let mut s = String::with_capacity(10);
    s.push(kind);
    let bit = |m: u32, c: char| if mode & m != 0 { c } else { '-' };
    let special = |x: u32, sp: u32, on: char, off: char| match (mode & x != 0, mode & sp != 0) {
        (true, true) => on,
        (false, true) => off,
        (true, false) => 'x',
        (false, false) => '-',
    };
    s.push(bit(0o400, 'r'));
    s.push(bit(0o200, 'w'));
    s.push(special(0o100, S_ISUID, 's', 'S'));
    s.push(bit(0o040, 'r'));
    s.push(bit(0o020, 'w'));
    s.push(special(0o010, S_ISGID, 's', 'S'));
    s.push(bit(0o004, 'r'));
    s.push(bit(0o002, 'w'));
    s.push(special(0o001, S_ISVTX, 't', 'T'));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(spec: &str, old: u32, dir: bool) -> u32 {
        ModeChange::parse(spec).unwrap().apply(old, dir, 0o022)
    }

    #[test]
    fn symbolic() {
        assert_eq!(apply("u+x", 0o644, false), 0o744);
        assert_eq!(apply("g-w,o=r", 0o664, false), 0o644);
        assert_eq!(apply("a+X", 0o644, false), 0o644);
        assert_eq!(apply("a+X", 0o744, false), 0o755);
        assert_eq!(apply("a+X", 0o644, true), 0o755);
        assert_eq!(apply("+w", 0o444, false), 0o644);
        assert_eq!(apply("=rw", 0o777, false), 0o644);
        assert_eq!(apply("u=g", 0o654, false), 0o554);
        assert_eq!(apply("755", 0o2700, true), 0o2755);
        assert!(ModeChange::parse("q+x").is_none());
        assert!(ModeChange::parse("u").is_none());
    }

    #[test]
    fn strings() {
        assert_eq!(mode_string(S_IFDIR | 0o755), "drwxr-xr-x");
        assert_eq!(mode_string(S_IFREG | 0o4755), "-rwsr-xr-x");
        assert_eq!(mode_string(S_IFDIR | 0o1777), "drwxrwxrwt");
    }
}
