//! `set -o` and `shopt` options: one table, with the single-letter flags of `$-`.

/// `set -o` options, in bash's listing order, with their letters.
pub const SET_OPTIONS: &[(&str, Option<char>)] = &[
    ("allexport", Some('a')),
    ("braceexpand", Some('B')),
    ("emacs", None),
    ("errexit", Some('e')),
    ("errtrace", Some('E')),
    ("functrace", Some('T')),
    ("hashall", Some('h')),
    ("histexpand", Some('H')),
    ("history", None),
    ("ignoreeof", None),
    ("interactive-comments", None),
    ("keyword", Some('k')),
    ("monitor", Some('m')),
    ("noclobber", Some('C')),
    ("noexec", Some('n')),
    ("noglob", Some('f')),
    ("nolog", None),
    ("notify", Some('b')),
    ("nounset", Some('u')),
    ("onecmd", Some('t')),
    ("physical", Some('P')),
    ("pipefail", None),
    ("posix", None),
    ("privileged", Some('p')),
    ("verbose", Some('v')),
    ("vi", None),
    ("xtrace", Some('x')),
];

/// The order `$-` lists flags in.
const FLAG_ORDER: &str = "abefhikmnprtuvxBCEHIPT";

/// `shopt` options in bash 5.2's order, with their defaults for a non-interactive shell.
pub const SHOPT_OPTIONS: &[(&str, bool)] = &[
    ("autocd", false),
    ("assoc_expand_once", false),
    ("cdable_vars", false),
    ("cdspell", false),
    ("checkhash", false),
    ("checkjobs", false),
    ("checkwinsize", true),
    ("cmdhist", true),
    ("compat31", false),
    ("compat32", false),
    ("compat40", false),
    ("compat41", false),
    ("compat42", false),
    ("compat43", false),
    ("compat44", false),
    ("complete_fullquote", true),
    ("direxpand", false),
    ("dirspell", false),
    ("dotglob", false),
    ("execfail", false),
    ("expand_aliases", false),
    ("extdebug", false),
    ("extglob", false),
    ("extquote", true),
    ("failglob", false),
    ("force_fignore", true),
    ("globasciiranges", true),
    ("globskipdots", true),
    ("globstar", false),
    ("gnu_errfmt", false),
    ("histappend", false),
    ("histreedit", false),
    ("histverify", false),
    ("hostcomplete", true),
    ("huponexit", false),
    ("inherit_errexit", false),
    ("interactive_comments", true),
    ("lastpipe", false),
    ("lithist", false),
    ("localvar_inherit", false),
    ("localvar_unset", false),
    ("login_shell", false),
    ("mailwarn", false),
    ("no_empty_cmd_completion", false),
    ("nocaseglob", false),
    ("nocasematch", false),
    ("noexpand_translation", false),
    ("nullglob", false),
    ("patsub_replacement", true),
    ("progcomp", true),
    ("progcomp_alias", false),
    ("promptvars", true),
    ("restricted_shell", false),
    ("shift_verbose", false),
    ("sourcepath", true),
    ("varredir_close", false),
    ("xpg_echo", false),
];

/// Options the interpreter checks on hot paths, by index into [`Options::set`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    Allexport = 0,
    Braceexpand = 1,
    Errexit = 3,
    Errtrace = 4,
    Functrace = 5,
    Hashall = 6,
    Noclobber = 13,
    Noexec = 14,
    Noglob = 15,
    Nounset = 18,
    Physical = 20,
    Pipefail = 21,
    Posix = 22,
    Verbose = 24,
    Xtrace = 26,
}

/// Frequently read `shopt` options, by index into [`Options::shopt`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shopt {
    Dotglob = 18,
    ExpandAliases = 20,
    Extglob = 22,
    Failglob = 24,
    Globstar = 28,
    InheritErrexit = 35,
    Lastpipe = 37,
    Nocaseglob = 44,
    Nocasematch = 45,
    Nullglob = 47,
    PatsubReplacement = 48,
    Sourcepath = 54,
    XpgEcho = 56,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub set: Vec<bool>,
    pub shopt: Vec<bool>,
    /// `$-` extras: `c` (commands from -c), `s` (commands from stdin), `i` (interactive).
    pub extra_flags: String,
}

impl Default for Options {
    fn default() -> Options {
        let mut set = vec![false; SET_OPTIONS.len()];
        set[Opt::Braceexpand as usize] = true;
        set[Opt::Hashall as usize] = true;
        set[10] = true; // interactive-comments
        Options { set, shopt: SHOPT_OPTIONS.iter().map(|(_, on)| *on).collect(), extra_flags: String::new() }
    }
}

impl Options {
    pub fn get(&self, opt: Opt) -> bool {
        self.set[opt as usize]
    }

    pub fn shopt(&self, opt: Shopt) -> bool {
        self.shopt[opt as usize]
    }

    pub fn set_shopt(&mut self, opt: Shopt, on: bool) {
        self.shopt[opt as usize] = on;
    }

    pub fn set_named(&mut self, name: &str, on: bool) -> bool {
        match SET_OPTIONS.iter().position(|(n, _)| *n == name) {
            Some(index) => {
                self.set[index] = on;
                // emacs and vi exclude each other.
                if on && name == "vi" {
                    self.set[2] = false;
                } else if on && name == "emacs" {
                    self.set[25] = false;
                }
                true
            }
            None => false,
        }
    }

    pub fn get_named(&self, name: &str) -> Option<bool> {
        SET_OPTIONS.iter().position(|(n, _)| *n == name).map(|i| self.set[i])
    }

    pub fn set_flag(&mut self, flag: char, on: bool) -> bool {
        match SET_OPTIONS.iter().position(|(_, f)| *f == Some(flag)) {
            Some(index) => {
                self.set[index] = on;
                true
            }
            None => false,
        }
    }

    pub fn shopt_named(&self, name: &str) -> Option<bool> {
        SHOPT_OPTIONS.iter().position(|(n, _)| *n == name).map(|i| self.shopt[i])
    }

    pub fn set_shopt_named(&mut self, name: &str, on: bool) -> bool {
        match SHOPT_OPTIONS.iter().position(|(n, _)| *n == name) {
            Some(index) => {
                self.shopt[index] = on;
                true
            }
            None => false,
        }
    }

    /// The value of `$-`.
    pub fn dollar_dash(&self) -> String {
        let mut out = String::new();
        for flag in FLAG_ORDER.chars() {
            if flag == 'i' && self.extra_flags.contains('i') {
                out.push('i');
                continue;
            }
            if let Some(index) = SET_OPTIONS.iter().position(|(_, f)| *f == Some(flag)) {
                if self.set[index] {
                    out.push(flag);
                }
            }
        }
        for extra in ['c', 's'] {
            if self.extra_flags.contains(extra) {
                out.push(extra);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_match_names() {
        let options = Options::default();
        assert_eq!(SET_OPTIONS[Opt::Errexit as usize].0, "errexit");
        assert_eq!(SET_OPTIONS[Opt::Xtrace as usize].0, "xtrace");
        assert_eq!(SET_OPTIONS[Opt::Pipefail as usize].0, "pipefail");
        assert_eq!(SET_OPTIONS[Opt::Physical as usize].0, "physical");
        assert_eq!(SET_OPTIONS[Opt::Noclobber as usize].0, "noclobber");
        assert_eq!(SHOPT_OPTIONS[Shopt::Nullglob as usize].0, "nullglob");
        assert_eq!(SHOPT_OPTIONS[Shopt::XpgEcho as usize].0, "xpg_echo");
        assert_eq!(SHOPT_OPTIONS[Shopt::Extglob as usize].0, "extglob");
        assert_eq!(SHOPT_OPTIONS[Shopt::PatsubReplacement as usize].0, "patsub_replacement");
        assert_eq!(SHOPT_OPTIONS[Shopt::Sourcepath as usize].0, "sourcepath");
        assert_eq!(SHOPT_OPTIONS[Shopt::Lastpipe as usize].0, "lastpipe");
        assert_eq!(SHOPT_OPTIONS[Shopt::Globstar as usize].0, "globstar");
        assert_eq!(SHOPT_OPTIONS[Shopt::InheritErrexit as usize].0, "inherit_errexit");
        assert_eq!(SHOPT_OPTIONS[Shopt::Nocasematch as usize].0, "nocasematch");
        assert_eq!(SHOPT_OPTIONS[Shopt::ExpandAliases as usize].0, "expand_aliases");
        assert_eq!(SHOPT_OPTIONS[Shopt::Failglob as usize].0, "failglob");
        assert_eq!(SHOPT_OPTIONS[Shopt::Dotglob as usize].0, "dotglob");
        assert_eq!(SHOPT_OPTIONS[Shopt::Nocaseglob as usize].0, "nocaseglob");
        assert_eq!(SET_OPTIONS[10].0, "interactive-comments");
        assert_eq!(options.dollar_dash(), "hB");
    }
}
