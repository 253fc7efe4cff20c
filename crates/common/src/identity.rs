//! Who the process runs as (`id`, `whoami`): the ids come from `/proc/self/status`, which
//! both Linux and the sandbox's procfs provide (the sandbox runs everything as uid/gid 1000;
//! WASI itself has no getuid), and account details from `/etc/passwd` and `/etc/group`.

/// The ids of the current process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ids {
    pub uid: u32,
    pub euid: u32,
    pub gid: u32,
    pub egid: u32,
    /// Supplementary groups (may be empty).
    pub groups: Vec<u32>,
}

/// The sandbox's user when /proc/self/status cannot be read.
const SANDBOX_ID: u32 = 1000;

/// The current process's real and effective ids and supplementary groups.
pub fn current() -> Ids {
    let mut ids = Ids { uid: SANDBOX_ID, euid: SANDBOX_ID, gid: SANDBOX_ID, egid: SANDBOX_ID, groups: Vec::new() };
    let text = match std::fs::read_to_string("/proc/self/status") {
        Ok(t) => t,
        Err(_) => return ids,
    };
    for line in text.lines() {
        let (key, rest) = match line.split_once(':') {
            Some(kv) => kv,
            None => continue,
        };
        let numbers: Vec<u32> = rest.split_whitespace().filter_map(|n| n.parse().ok()).collect();
        match (key, numbers.len()) {
            ("Uid", n) if n >= 2 => {
                ids.uid = numbers[0];
                ids.euid = numbers[1];
            }
            ("Gid", n) if n >= 2 => {
                ids.gid = numbers[0];
                ids.egid = numbers[1];
            }
            ("Groups", _) => ids.groups = numbers,
            _ => {}
        }
    }
    ids
}

/// One line of /etc/passwd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub home: String,
    pub shell: String,
}

/// One line of /etc/group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    pub gid: u32,
    pub members: Vec<String>,
}

fn lines(path: &str) -> Vec<Vec<String>> {
    let text = std::fs::read(path).unwrap_or_default();
    String::from_utf8_lossy(&text)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split(':').map(String::from).collect())
        .collect()
}

/// Every account in /etc/passwd, in file order.
pub fn accounts() -> Vec<Account> {
    lines("/etc/passwd")
        .into_iter()
        .filter_map(|f| {
            Some(Account {
                name: f.first()?.clone(),
                uid: f.get(2)?.parse().ok()?,
                gid: f.get(3)?.parse().ok()?,
                home: f.get(5).cloned().unwrap_or_default(),
                shell: f.get(6).cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// Every group in /etc/group, in file order.
pub fn groups() -> Vec<Group> {
    lines("/etc/group")
        .into_iter()
        .filter_map(|f| {
            Some(Group {
                name: f.first()?.clone(),
                gid: f.get(2)?.parse().ok()?,
                members: f.get(3).map(|m| m.split(',').filter(|s| !s.is_empty()).map(String::from).collect()).unwrap_or_default(),
            })
        })
        .collect()
}

pub fn account_by_uid(uid: u32) -> Option<Account> {
    accounts().into_iter().find(|a| a.uid == uid)
}

pub fn account_by_name(name: &str) -> Option<Account> {
    accounts().into_iter().find(|a| a.name == name)
}

pub fn group_name(gid: u32) -> Option<String> {
    groups().into_iter().find(|g| g.gid == gid).map(|g| g.name)
}

/// A user's groups as `getgrouplist` gives them: the primary group first, then every group
/// listing the user as a member.
pub fn group_list(user: &str, primary: u32) -> Vec<u32> {
    let mut out = vec![primary];
    for g in groups() {
        if g.members.iter().any(|m| m == user) && !out.contains(&g.gid) {
            out.push(g.gid);
        }
    }
    out
}

/// Permission bits for `can_access`.
pub const READ: u32 = 4;
pub const WRITE: u32 = 2;
pub const EXECUTE: u32 = 1;

/// Whether a process with `ids` may access a file with `meta` as `want` (access(2) rules:
/// root reads and writes anything and executes what has any execute bit or is a
/// directory; others use the owner, group or other bits).
pub fn can_access(meta: &crate::fsext::Meta, ids: &Ids, want: u32) -> bool {
    let mode = meta.permissions();
    if ids.euid == 0 {
        return want & EXECUTE == 0 || mode & 0o111 != 0 || meta.is_dir();
    }
    let bits = if meta.uid == ids.euid {
        mode >> 6
    } else if meta.gid == ids.egid || ids.groups.contains(&meta.gid) {
        mode >> 3
    } else {
        mode
    };
    bits & want == want
}
