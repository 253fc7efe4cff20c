//! `ls --color`: names coloured by file type as GNU ls does — its built-in colours (those
//! it uses when LS_COLORS is unset), overridden by LS_COLORS (`di=01;34:ln=01;36:*.tar=01;31`).
//! The first coloured name is preceded by a reset, and each one is followed by one.

use std::cell::Cell;

use common::fsext::Meta;
use common::lscolors::LsColors;

/// GNU ls's colours when LS_COLORS is unset (ls.c's color_indicator table).
const DEFAULTS: &str = "di=01;34:ln=01;36:pi=33:so=01;35:bd=01;33:cd=01;33:ex=01;32:do=01;35:su=37;41:sg=30;43:st=37;44:ow=34;42:tw=30;42";

pub struct Colors {
    colors: LsColors,
    /// Whether a coloured name was printed yet (the first one is preceded by a reset).
    used: Cell<bool>,
}

impl Colors {
    /// The colours of the environment: the defaults, then LS_COLORS over them. None when
    /// LS_COLORS is unset and the terminal is not one GNU knows to take colours (TERM and
    /// COLORTERM, as GNU ls decides).
    pub fn from_env() -> Option<Colors> {
        let spec = std::env::var("LS_COLORS").unwrap_or_default();
        if spec.is_empty() {
            let colorterm = std::env::var("COLORTERM").unwrap_or_default();
            let term = std::env::var("TERM").unwrap_or_default();
            if colorterm.is_empty() && !known_term(&term) {
                return None;
            }
        }
        Some(Colors { colors: LsColors::parse(DEFAULTS, &spec, true), used: Cell::new(false) })
    }

    /// The code for a name: by its type (`meta` is the entry itself, not a link's target),
    /// `orphan` for a symlink whose target does not exist.
    pub fn code(&self, meta: &Meta, orphan: bool, name: &[u8]) -> Option<&str> {
        self.colors.code(meta.mode, orphan, name)
    }

    /// `name` wrapped in the colour `code` (unchanged when there is none).
    pub fn paint(&self, name: &[u8], code: Option<&str>) -> Vec<u8> {
        let mut out = Vec::with_capacity(name.len() + 16);
        if code.is_some() && !self.used.replace(true) {
            self.colors.end(&mut out);
        }
        self.colors.paint(&mut out, name, code);
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

    #[test]
    fn paints_with_a_reset_first_and_reads_when() {
        let c = Colors { colors: LsColors::parse(DEFAULTS, "", true), used: Cell::new(false) };
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
