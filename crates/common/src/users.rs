//! User and group names from /etc/passwd and /etc/group (ls -l, stat): the sandbox has both
//! files, and natively they are the machine's. Numbers without an entry print as numbers.

/// The name tables, read once per command run.
pub struct Names {
    users: Vec<(u32, String)>,
    groups: Vec<(u32, String)>,
}

fn read_table(path: &str) -> Vec<(u32, String)> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(_) => return Vec::new(),
    };
    let mut out = Vec::new();
    for line in text.split(|b| *b == b'\n') {
        let mut fields = line.split(|b| *b == b':');
        let name = fields.next().unwrap_or(b"");
        let _password = fields.next();
        let id = fields.next().and_then(|f| std::str::from_utf8(f).ok()).and_then(|f| f.parse::<u32>().ok());
        if let (false, Some(id)) = (name.is_empty(), id) {
            out.push((id, String::from_utf8_lossy(name).into_owned()));
        }
    }
    out
}

impl Names {
    pub fn load() -> Names {
        Names { users: read_table("/etc/passwd"), groups: read_table("/etc/group") }
    }

    /// The user's name, or its number when it has none.
    pub fn user(&self, uid: u32) -> String {
        self.user_name(uid).unwrap_or_else(|| uid.to_string())
    }

    pub fn user_name(&self, uid: u32) -> Option<String> {
        self.users.iter().find(|(id, _)| *id == uid).map(|(_, n)| n.clone())
    }

    /// The group's name, or its number when it has none.
    pub fn group(&self, gid: u32) -> String {
        self.group_name(gid).unwrap_or_else(|| gid.to_string())
    }

    pub fn group_name(&self, gid: u32) -> Option<String> {
        self.groups.iter().find(|(id, _)| *id == gid).map(|(_, n)| n.clone())
    }
}
