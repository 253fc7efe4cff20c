//! Tilde expansion: `~` is `$HOME`, `~+` `$PWD`, `~-` `$OLDPWD`, `~user` that user's home
//! from /etc/passwd.

use crate::sys::OpenFlags;
use crate::shell::Shell;

impl Shell {
    pub(crate) fn tilde(&mut self, user: &str) -> String {
        match user {
            "" => match self.get_scalar("HOME") {
                Some(home) => home,
                None => {
                    let user = self.get_scalar("USER").unwrap_or_default();
                    self.user_home(&user).unwrap_or_else(|| "~".to_string())
                }
            },
            "+" => self.get_scalar("PWD").unwrap_or_else(|| "~+".to_string()),
            "-" => self.get_scalar("OLDPWD").unwrap_or_else(|| "~-".to_string()),
            name => self.user_home(name).unwrap_or_else(|| format!("~{}", name)),
        }
    }

    /// A user's home directory from /etc/passwd.
    pub(crate) fn user_home(&mut self, name: &str) -> Option<String> {
        if name.is_empty() {
            return None;
        }
        let fd = self.sys.open("/etc/passwd", OpenFlags::read_only(), 0).ok()?;
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match self.sys.read(fd, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => data.extend_from_slice(&buf[..n]),
            }
        }
        self.sys.close(fd);
        let text = String::from_utf8_lossy(&data);
        text.lines().find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            if fields.len() >= 6 && fields[0] == name {
                Some(fields[5].to_string())
            } else {
                None
            }
        })
    }
}
