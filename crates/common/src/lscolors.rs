//! LS_COLORS, the dircolors database (`di=01;34:ln=01;36:*.tar=01;31`): the colour of a file
//! name by its type and suffix. Shared by `ls --color` (over GNU's built-in colours) and
//! `tree -C` (over tree 2.1's). A name is written as `lc CODE rc NAME` and the end sequence
//! (`ec`, else `lc rs rc`), which are `\e[`, `m`, `\e[0m` unless the database sets them.

use crate::fsext::{S_IFBLK, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK};

const S_ISUID: u32 = 0o4000;
const S_ISGID: u32 = 0o2000;
const S_ISVTX: u32 = 0o1000;

pub struct LsColors {
    /// Codes by the two-letter keys, later entries replacing earlier ones.
    keys: Vec<(String, String)>,
    /// `*SUFFIX=code` entries, later ones first (the last one defined wins).
    suffixes: Vec<(Vec<u8>, String)>,
    /// Suffixes match regardless of case (GNU ls) or exactly (tree).
    fold_case: bool,
}

impl LsColors {
    /// The entries of `defaults`, then those of `spec` over them.
    pub fn parse(defaults: &str, spec: &str, fold_case: bool) -> LsColors {
        let mut colors = LsColors { keys: Vec::new(), suffixes: Vec::new(), fold_case };
        for item in defaults.split(':').chain(spec.split(':')) {
            let (key, code) = match item.split_once('=') {
                Some(pair) => pair,
                None => continue,
            };
            if let Some(suffix) = key.strip_prefix('*') {
                let suffix = if fold_case { suffix.to_ascii_lowercase() } else { suffix.to_string() };
                colors.suffixes.insert(0, (suffix.into_bytes(), code.to_string()));
            } else {
                colors.keys.retain(|(k, _)| k != key);
                colors.keys.push((key.to_string(), code.to_string()));
            }
        }
        colors
    }

    /// The code of a key; None when it is unset or empty (an empty code means uncoloured).
    pub fn key(&self, key: &str) -> Option<&str> {
        self.keys.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
    }

    /// The code for a name of `mode` (the entry's own, not a link's target's); `orphan` for
    /// a symlink whose target does not exist. Other types (mode 0) are uncoloured.
    pub fn code(&self, mode: u32, orphan: bool, name: &[u8]) -> Option<&str> {
        let first = |keys: &[&str]| keys.iter().find_map(|k| self.key(k));
        match mode & S_IFMT {
            S_IFLNK if orphan => first(&["or", "ln"]),
            S_IFLNK => self.key("ln"),
            S_IFDIR => {
                let (sticky, writable) = (mode & S_ISVTX != 0, mode & 0o002 != 0);
                match (sticky, writable) {
                    (true, true) => first(&["tw", "ow", "st", "di"]),
                    (false, true) => first(&["ow", "di"]),
                    (true, false) => first(&["st", "di"]),
                    (false, false) => self.key("di"),
                }
            }
            S_IFIFO => self.key("pi"),
            S_IFSOCK => self.key("so"),
            S_IFBLK => self.key("bd"),
            S_IFCHR => self.key("cd"),
            S_IFREG => {
                let special = [(S_ISUID, "su"), (S_ISGID, "sg"), (0o111, "ex")];
                if let Some(code) = special.iter().filter(|(bit, _)| mode & bit != 0).find_map(|(_, k)| self.key(k)) {
                    return Some(code);
                }
                let name = if self.fold_case { name.to_ascii_lowercase() } else { name.to_vec() };
                self.suffixes.iter().find(|(suffix, _)| name.ends_with(suffix)).map(|(_, code)| code.as_str()).filter(|c| !c.is_empty()).or_else(|| self.key("fi"))
            }
            _ => None,
        }
    }

    /// The sequence that starts `code`.
    pub fn start(&self, out: &mut Vec<u8>, code: &str) {
        out.extend_from_slice(self.key("lc").unwrap_or("\x1b[").as_bytes());
        out.extend_from_slice(code.as_bytes());
        out.extend_from_slice(self.key("rc").unwrap_or("m").as_bytes());
    }

    /// The sequence that ends a coloured name.
    pub fn end(&self, out: &mut Vec<u8>) {
        match self.key("ec") {
            Some(end) => out.extend_from_slice(end.as_bytes()),
            None => self.start(out, self.key("rs").unwrap_or("0")),
        }
    }

    /// `name` in `code`, or unchanged without one.
    pub fn paint(&self, out: &mut Vec<u8>, name: &[u8], code: Option<&str>) {
        match code {
            Some(code) => {
                self.start(out, code);
                out.extend_from_slice(name);
                self.end(out);
            }
            None => out.extend_from_slice(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_by_type_then_suffix() {
        let c = LsColors::parse("di=01;34:ln=01;36:ex=01;32:tw=30;42", "*.tar=01;31:*.TAR=02", true);
        assert_eq!(c.code(S_IFDIR | 0o755, false, b"d"), Some("01;34"));
        assert_eq!(c.code(S_IFDIR | 0o1777, false, b"tmp"), Some("30;42"));
        assert_eq!(c.code(S_IFDIR | 0o757, false, b"w"), Some("01;34"));
        assert_eq!(c.code(S_IFREG | 0o755, false, b"x.tar"), Some("01;32"));
        assert_eq!(c.code(S_IFREG | 0o644, false, b"A.tar"), Some("02"));
        assert_eq!(c.code(S_IFREG | 0o644, false, b"plain"), None);
        assert_eq!(c.code(S_IFLNK | 0o777, true, b"l"), Some("01;36"));
        let mut out = Vec::new();
        c.paint(&mut out, b"d", Some("01;34"));
        c.paint(&mut out, b"f", None);
        assert_eq!(out, b"\x1b[01;34md\x1b[0mf".to_vec());
    }

    #[test]
    fn exact_suffixes_and_end_codes() {
        let c = LsColors::parse("fi=00", "*tar=2:*.tar=3:*A.TAR=9:rs=7:or=4", false);
        assert_eq!(c.code(S_IFREG | 0o644, false, b"a.tar"), Some("3"));
        assert_eq!(c.code(S_IFREG | 0o644, false, b"a.TAR"), Some("00"));
        assert_eq!(c.code(S_IFLNK, true, b"l"), Some("4"));
        let mut out = Vec::new();
        c.end(&mut out);
        assert_eq!(out, b"\x1b[7m".to_vec());
    }
}
