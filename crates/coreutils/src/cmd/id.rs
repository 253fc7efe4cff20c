//! `id`: user and group ids of the current process or of named users (`-u -g -G`, with
//! `-n` names, `-r` real ids, `-z` NUL separators). In the sandbox everything runs as uid
//! and gid 1000 (`user`).

use std::ffi::OsString;

use common::identity::{self, Account};
use common::io::quote;
use common::{Command, Io, UError};

const SPEC: &str = "ignored=a context,Z group,g groups,G name,n real,r user,u zero,z";

const HELP: &str = "Usage: {name} [OPTION]... [USER]...\nPrint user and group information for each specified USER,\nor (when USER omitted) for the current process.\n\n  -a             ignore, for compatibility with other versions\n  -Z, --context  print only the security context of the process\n  -g, --group    print only the effective group ID\n  -G, --groups   print all group IDs\n  -n, --name     print a name instead of a number, for -ugG\n  -r, --real     print the real ID instead of the effective ID, with -ugG\n  -u, --user     print only the effective user ID\n  -z, --zero     delimit entries with NUL characters, not whitespace;\n                   not permitted in default format\n{standard}";

const ID: Command = Command::compact("id", SPEC, HELP);

/// What to print about one user.
struct Subject {
    uid: u32,
    euid: u32,
    gid: u32,
    egid: u32,
    groups: Vec<u32>,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = ID.seen(&args, io)?;
    let [user, group, groups, name, real, zero] = ["user", "group", "groups", "name", "real", "zero"].map(|id| seen.flag(id));
    if seen.flag("context") {
        return Err(UError::new(1, "--context (-Z) works only on an SELinux-enabled kernel"));
    }
    if (user as u8 + group as u8 + groups as u8) > 1 {
        return Err(UError::new(1, "cannot print \"only\" of more than one choice"));
    }
    let default_format = !(user || group || groups);
    if default_format && (name || real) {
        return Err(UError::new(1, "cannot print only names or real IDs in default format"));
    }
    if default_format && zero {
        return Err(UError::new(1, "option --zero not permitted in default format"));
    }
    let mut subjects: Vec<Option<Subject>> = Vec::new();
    let mut status = 0;
    let users = seen.operands;
    if users.is_empty() {
        let ids = identity::current();
        let mut list = vec![ids.egid];
        for g in ids.groups {
            if !list.contains(&g) {
                list.push(g);
            }
        }
        subjects.push(Some(Subject { uid: ids.uid, euid: ids.euid, gid: ids.gid, egid: ids.egid, groups: list }));
    } else {
        for u in &users {
            match lookup(&u.to_string_lossy()) {
                Some(a) => {
                    let list = identity::group_list(&a.name, a.gid);
                    subjects.push(Some(Subject { uid: a.uid, euid: a.uid, gid: a.gid, egid: a.gid, groups: list }))
                }
                None => {
                    io.error(format!("{}: no such user", quote(u)));
                    status = 1;
                    subjects.push(None);
                }
            }
        }
    }
    let terminator = if zero { 0 } else { b'\n' };
    let mut out = Vec::new();
    for subject in subjects.iter().flatten() {
        let mut missing = |kind: &str, id: u32, io: &mut Io| {
            io.error(format!("cannot find name for {} ID {}", kind, id));
            status = 1;
        };
        if user || group {
            let (id, kind) = match (user, real) {
                (true, true) => (subject.uid, "user"),
                (true, false) => (subject.euid, "user"),
                (false, true) => (subject.gid, "group"),
                (false, false) => (subject.egid, "group"),
            };
            let text = if name { name_of(kind, id).unwrap_or_else(|| { missing(kind, id, io); id.to_string() }) } else { id.to_string() };
            out.extend_from_slice(text.as_bytes());
            out.push(terminator);
        } else if groups {
            let mut list = subject.groups.clone();
            if real && !list.contains(&subject.gid) {
                list.insert(0, subject.gid);
            }
            for (i, g) in list.iter().enumerate() {
                if i > 0 {
                    out.push(if zero { 0 } else { b' ' });
                }
                let text = if name { identity::group_name(*g).unwrap_or_else(|| { missing("group", *g, io); g.to_string() }) } else { g.to_string() };
                out.extend_from_slice(text.as_bytes());
            }
            out.push(terminator);
        } else {
            out.extend_from_slice(full_line(subject).as_bytes());
        }
    }
    let _ = io.out(&out);
    Ok(status)
}

/// A user by name, or by number when no user has that name.
fn lookup(text: &str) -> Option<Account> {
    identity::account_by_name(text).or_else(|| text.parse::<u32>().ok().and_then(identity::account_by_uid))
}

fn name_of(kind: &str, id: u32) -> Option<String> {
    if kind == "user" {
        identity::account_by_uid(id).map(|a| a.name)
    } else {
        identity::group_name(id)
    }
}

fn with_name(id: u32, name: Option<String>) -> String {
    match name {
        Some(n) => format!("{}({})", id, n),
        None => id.to_string(),
    }
}

/// `uid=0(root) gid=0(root) groups=0(root)`, with euid=/egid= when they differ.
fn full_line(s: &Subject) -> String {
    let mut line = format!("uid={} gid={}", with_name(s.uid, name_of("user", s.uid)), with_name(s.gid, identity::group_name(s.gid)));
    if s.euid != s.uid {
        line.push_str(&format!(" euid={}", with_name(s.euid, name_of("user", s.euid))));
    }
    if s.egid != s.gid {
        line.push_str(&format!(" egid={}", with_name(s.egid, identity::group_name(s.egid))));
    }
    let list: Vec<String> = s.groups.iter().map(|g| with_name(*g, identity::group_name(*g))).collect();
    line.push_str(&format!(" groups={}\n", list.join(",")));
    line
}
