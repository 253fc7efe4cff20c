//! `ls --color`: names coloured by file type as GNU ls does — its built-in colours (those
//! it uses when LS_COLORS is unset), overridden by LS_COLORS (`di=01;34:ln=01;36:*.tar=01;31`).
//! The first coloured name is preceded by a reset, and each one is followed by one.

use std::cell::Cell;

use common::fsext::{Meta, S_IFBLK, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK};

const S_ISUID: u32 = 0o4000;
const S_ISGID: u32 = 0o2000;
const S_ISVTX: u32 = 0o1000;

/// GNU ls's colours when LS_COLORS is unset (ls.c's color_indicator table).
const DEFAULTS: &[(&str, &str)] = &[
    ("di", "01;34"),
    ("ln", "01;36"),
    ("pi", "33"),
    ("so", "01;35"),
    ("bd", "01;33"),
    ("cd", "01;33"),
    ("ex", "01;32"),
    ("do", "01;35"),
    ("su", "37;41"),
    ("sg", "30;43"),
    ("st", "37;44"),
    ("ow", "34;42"),
    ("tw", "30;42"),
];

pub struct Colors {
    /// Codes by GNU's two-letter keys (an empty code means uncoloured).
    keys: Vec<(String, String)>,
    /// `*SUFFIX=code` entries, later ones first (GNU: the last matching one wins).
    suffixes: Vec<(Vec<u8>, String)>,
    /// Whether a coloured name was printed yet (the first one is preceded by a reset).
    used: Cell<bool>,
}

impl Colors {
    /// The colours of the environment: the defaults, then LS_COLORS over them. None when
    /// LS_COLORS is unset and the terminal is not one GNU knows to take colours (TERM and
    /// COLORTERM, as GNU ls decides).
    pub fn from_env() -> Option<Colors> {
        let mut colors = Colors { keys: DEFAULTS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), suffixes: Vec::new(), used: Cell::new(false) };
        let spec = std::env::var("LS_COLORS").unwrap_or_default();
        if spec.is_empty() {
            let colorterm = std::env::var("COLORTERM").unwrap_or_default();
            let term = std::env::var("TERM").unwrap_or_default();
            return if !colorterm.is_empty() || known_term(&term) { Some(colors) } else { None };
        }
        {
            for item in spec.split(':').filter(|item| !item.is_empty()) {
                let (key, code) = match item.split_once('=') {
                    Some(pair) => pair,
                    None => continue,
                };
                if let Some(suffix) = key.strip_prefix('*') {
                    colors.suffixes.insert(0, (suffix.as_bytes().to_ascii_lowercase(), code.to_string()));
                } else {
                    colors.keys.retain(|(k, _)| k != key);
                    colors.keys.push((key.to_string(), code.to_string()));
                }
            }
        }
        Some(colors)
    }

    fn key(&self, key: &str) -> Option<&str> {
        self.keys.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
    }

    /// The code for a name: by its type (`meta` is the entry itself, not a link's target),
    /// `orphan` for a symlink whose target does not exist.
    pub fn code(&self, meta: &Meta, orphan: bool, name: &[u8]) -> Option<&str> {
        let mode = meta.mode;
        match mode & S_IFMT {
            S_IFLNK => {
                if orphan {
                    if let Some(code) = self.key("or") {
                        return Some(code);
                    }
                }
                self.key("ln")
            }
            S_IFDIR => {
                let (sticky, writable) = (mode & S_ISVTX != 0, mode & 0o002 != 0);
                match (sticky, writable) {
                    (true, true) => self.key("tw"),
                    (false, true) => self.key("ow"),
                    (true, false) => self.key("st"),
                    (false, false) => None,
                }
                .or_else(|| self.key("di"))
            }
            S_IFIFO => self.key("pi"),
            S_IFSOCK => self.key("so"),
            S_IFBLK => self.key("bd"),
            S_IFCHR => self.key("cd"),
            S_IFREG => {
                if mode & S_ISUID != 0 {
                    if let Some(code) = self.key("su") {
                        return Some(code);
                    }
                }
                if mode & S_ISGID != 0 {
                    if let Some(code) = self.key("sg") {
                        return Some(code);
                    }
                }
                if mode & 0o111 != 0 {
                    if let Some(code) = self.key("ex") {
                        return Some(code);
                    }
                }
                let lower = name.to_ascii_lowercase();
                self.suffixes.iter().find(|(suffix, _)| lower.ends_with(suffix)).map(|(_, code)| code.as_str()).filter(|c| !c.is_empty()).or_else(|| self.key("fi"))
            }
            _ => None,
        }
    }

    /// `name` wrapped in the colour `code` (unchanged when there is none).
    pub fn paint(&self, name: &[u8], code: Option<&str>) -> Vec<u8> {
        let code = match code {
            Some(code) => code,
            None => return name.to_vec(),
        };
        let mut out = Vec::with_capacity(name.len() + code.len() + 12);
        if !self.used.replace(true) {
            out.extend_from_slice(b"\x1b[0m");
        }
        out.extend_from_slice(b"\x1b[");
        out.extend_from_slice(code.as_bytes());
        out.push(b'm');
        out.extend_from_slice(name);
        out.extend_from_slice(b"\x1b[0m");
        out
    }
}

/// The TERM patterns of dircolors' default database: terminals that take colours.
const COLOR_TERMS: &[&str] = &[
    "Eterm", "ansi", "*color*", "con[0-9]*x[0-9]*", "cons25", "console", "cygwin", "*direct*", "dtterm", "gnome", "hurd", "jfbterm", "konsole", "kterm", "linux", "linux-c", "mlterm", "putty", "rxvt*", "screen*", "st", "terminator", "tmux*", "vt100", "xterm*",
];

fn known_term(term: &str) -> bool {
    !term.is_empty()
        && COLOR_TERMS.iter().any(|pattern| {
            if pattern.starts_with("con[") {
                // con132x25 and the like: con, digits, x, digits.
                return term.strip_prefix("con").and_then(|rest| rest.split_once('x')).map_or(false, |(a, b)| !a.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()));
            }
            match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
                (Some(inner), _) if inner.ends_with('*') => term.contains(&inner[..inner.len() - 1]),
                (_, Some(prefix)) => term.starts_with(prefix),
                _ => term == *pattern,
            }
        })
}

/// What `--color[=WHEN]` asks: Some(true) always, Some(false) never, None not a valid WHEN.
pub fn when(value: Option<&str>, tty: bool) -> Option<bool> {
    match value {
        None | Some("always") | Some("yes") | Some("force") => Some(true),
        Some("never") | Some("no") | Some("none") => Some(false),
        Some("auto") | Some("tty") | Some("if-tty") => Some(tty),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(mode: u32) -> Meta {
        Meta {
            mode,
            uid: 0,
            gid: 0,
            nlink: 1,
            ino: 1,
            dev: 1,
            size: 0,
            atime_ns: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            #[cfg(not(target_os = "wasi"))]
            native_blocks: 0,
        }
    }

    #[test]
    fn colours_by_type_as_gnu_defaults() {
        let c = Colors { keys: DEFAULTS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), suffixes: vec![(b".tar".to_vec(), "01;31".into())], used: Cell::new(false) };
        assert_eq!(c.code(&meta(S_IFDIR | 0o755), false, b"d"), Some("01;34"));
        assert_eq!(c.code(&meta(S_IFDIR | 0o1777), false, b"tmp"), Some("30;42"));
        assert_eq!(c.code(&meta(S_IFREG | 0o755), false, b"x.tar"), Some("01;32"));
        assert_eq!(c.code(&meta(S_IFREG | 0o644), false, b"A.TAR"), Some("01;31"));
        assert_eq!(c.code(&meta(S_IFREG | 0o644), false, b"plain"), None);
        assert_eq!(c.code(&meta(S_IFLNK | 0o777), true, b"l"), Some("01;36"));
        assert_eq!(c.paint(b"d", Some("01;34")), b"\x1b[0m\x1b[01;34md\x1b[0m".to_vec());
        assert_eq!(c.paint(b"e", Some("01;34")), b"\x1b[01;34me\x1b[0m".to_vec());
        assert_eq!(c.paint(b"f", None), b"f".to_vec());
        assert_eq!(when(Some("auto"), false), Some(false));
        assert_eq!(when(None, false), Some(true));
        assert_eq!(when(Some("sometimes"), true), None);
        assert!(known_term("xterm-256color") && known_term("screen") && known_term("rxvt-unicode-256color") && known_term("con132x25"));
        assert!(!known_term("dumb") && !known_term("") && !known_term("conx"));
    }
}
