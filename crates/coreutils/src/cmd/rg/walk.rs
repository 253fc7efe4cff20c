//! Which files rg searches: a sorted directory walk that skips hidden entries, paths
//! excluded by `.gitignore` (inside a git repository), `.ignore` and `.rgignore`, and
//! applies -g globs and -t/-T file types.

use std::path::{Path, PathBuf};

use common::args::os_bytes;
use common::fnmatch::{fnmatch, FnFlags};

/// One ignore-file or -g rule, gitignore style.
#[derive(Clone)]
pub struct Rule {
    pattern: Vec<u8>,
    negate: bool,
    dir_only: bool,
    /// Has a slash: matched against the path below `base`, not just the name.
    anchored: bool,
    /// Directory of the ignore file, relative to the walk root ("" = the root).
    base: Vec<u8>,
}

impl Rule {
    pub fn parse(line: &[u8], base: &[u8]) -> Option<Rule> {
        let mut line = line;
        while line.last().map_or(false, |c| *c == b'\r' || *c == b' ') && !line.ends_with(b"\\ ") {
            line = &line[..line.len() - 1];
        }
        if line.is_empty() || line[0] == b'#' {
            return None;
        }
        let negate = line[0] == b'!';
        if negate {
            line = &line[1..];
        }
        let dir_only = line.ends_with(b"/");
        if dir_only {
            line = &line[..line.len() - 1];
        }
        let anchored = line.contains(&b'/');
        let line = line.strip_prefix(b"/").unwrap_or(line);
        if line.is_empty() {
            return None;
        }
        Some(Rule { pattern: line.to_vec(), negate, dir_only, anchored, base: base.to_vec() })
    }

    /// Some(true) = ignore, Some(false) = whitelisted, None = no opinion.
    fn verdict(&self, path: &[u8], is_dir: bool) -> Option<bool> {
        if self.dir_only && !is_dir {
            return None;
        }
        let below = if self.base.is_empty() {
            path
        } else {
            let rest = path.strip_prefix(self.base.as_slice())?;
            rest.strip_prefix(b"/")?
        };
        let flags = FnFlags { pathname: true, ..FnFlags::default() };
        let hit = if self.anchored {
            fnmatch(&self.pattern, below, flags)
        } else {
            let name = below.rsplit(|b| *b == b'/').next().unwrap_or(below);
            fnmatch(&self.pattern, name, flags)
        };
        if hit {
            Some(!self.negate)
        } else {
            None
        }
    }
}

/// The file types rg knows by default (the common ones).
pub const TYPES: &[(&str, &[&str])] = &[
    ("c", &["*.[chH]", "*.[chH].in", "*.cats"]),
    ("css", &["*.css", "*.scss"]),
    ("go", &["*.go"]),
    ("html", &["*.ejs", "*.htm", "*.html"]),
    ("java", &["*.java", "*.jsp", "*.jspx", "*.properties"]),
    ("js", &["*.js", "*.jsx", "*.vue"]),
    ("json", &["*.json", "composer.lock"]),
    ("markdown", &["*.markdown", "*.md", "*.mdown", "*.mkdn"]),
    ("md", &["*.markdown", "*.md", "*.mdown", "*.mkdn"]),
    ("py", &["*.py"]),
    ("rust", &["*.rs"]),
    ("sh", &["*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"]),
    ("toml", &["*.toml", "Cargo.lock"]),
    ("ts", &["*.ts", "*.tsx"]),
    ("txt", &["*.txt"]),
    ("yaml", &["*.yaml", "*.yml"]),
];

pub struct Filters {
    pub hidden: bool,
    pub no_ignore: bool,
    pub globs: Vec<Rule>,
    pub types: Vec<&'static str>,
    pub types_not: Vec<&'static str>,
    pub max_depth: Option<usize>,
    pub follow: bool,
}

impl Filters {
    fn type_match(names: &[&'static str], file_name: &[u8]) -> bool {
        names.iter().any(|t| TYPES.iter().filter(|(n, _)| n == t).any(|(_, globs)| globs.iter().any(|g| fnmatch(g.as_bytes(), file_name, FnFlags::default()))))
    }

    /// Whether a walked file (not a directory) is searched, by -g and -t/-T.
    fn wants_file(&self, rel: &[u8]) -> bool {
        let name = rel.rsplit(|b| *b == b'/').next().unwrap_or(rel);
        let mut verdict: Option<bool> = None;
        for g in &self.globs {
            if let Some(v) = g.verdict(rel, false) {
                verdict = Some(v);
            }
        }
        match verdict {
            Some(ignored) => {
                if ignored {
                    return false;
                }
            }
            None => {
                if self.globs.iter().any(|g| g.negate) {
                    return false;
                }
            }
        }
        if !self.types.is_empty() && !Filters::type_match(&self.types, name) {
            return false;
        }
        !Filters::type_match(&self.types_not, name)
    }

    /// Whether -g excludes a directory (only `!` globs do).
    fn excludes_dir(&self, rel: &[u8]) -> bool {
        let mut verdict = None;
        for g in &self.globs {
            if let Some(v) = g.verdict(rel, true) {
                verdict = Some(v);
            }
        }
        verdict == Some(true)
    }
}

/// -g GLOB: a whitelist glob (or `!GLOB` to exclude), relative to the walk root. Stored
/// inverted: a rule "ignores" what the user excludes.
pub fn glob_rule(glob: &[u8]) -> Option<Rule> {
    let (negated, body) = match glob.strip_prefix(b"!") {
        Some(rest) => (true, rest),
        None => (false, glob),
    };
    let mut rule = Rule::parse(body, b"")?;
    rule.negate = !negated;
    Some(rule)
}

/// Whether `dir` is inside a git repository (rg only honours .gitignore there).
pub fn in_git_repo(dir: &Path) -> bool {
    let start = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    start.ancestors().any(|a| a.join(".git").exists())
}

/// Walks `root`, calling `visit(path, display)` for each file to search, in path order.
/// Returns false when `visit` asks to stop.
pub fn walk(root: &Path, display_root: &[u8], filters: &Filters, visit: &mut dyn FnMut(&Path, &[u8]) -> bool) -> bool {
    let git = !filters.no_ignore && in_git_repo(root);
    let mut rules = Vec::new();
    walk_dir(root, display_root, b"", 0, git, filters, &mut rules, visit)
}

#[allow(clippy::too_many_arguments)]
fn walk_dir(dir: &Path, display: &[u8], rel: &[u8], depth: usize, git: bool, filters: &Filters, rules: &mut Vec<Rule>, visit: &mut dyn FnMut(&Path, &[u8]) -> bool) -> bool {
    if filters.max_depth.map_or(false, |m| depth >= m) {
        return true;
    }
    let saved = rules.len();
    if !filters.no_ignore {
        let names: &[&str] = if git { &[".gitignore", ".ignore", ".rgignore"] } else { &[".ignore", ".rgignore"] };
        for name in names {
            if let Ok(text) = std::fs::read(dir.join(name)) {
                rules.extend(text.split(|b| *b == b'\n').filter_map(|l| Rule::parse(l, rel)));
            }
        }
    }
    let mut entries: Vec<(Vec<u8>, PathBuf)> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.flatten().map(|e| (os_bytes(&e.file_name()).to_vec(), e.path())).collect(),
        Err(_) => Vec::new(),
    };
    entries.sort();
    let mut keep_going = true;
    for (name, path) in entries {
        if !filters.hidden && name.first() == Some(&b'.') {
            continue;
        }
        if name == b".git" {
            continue;
        }
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(_) => continue,
        };
        let is_link = meta.file_type().is_symlink();
        if is_link && !filters.follow {
            continue;
        }
        let is_dir = if is_link { path.is_dir() } else { meta.is_dir() };
        let mut child_rel = rel.to_vec();
        if !child_rel.is_empty() {
            child_rel.push(b'/');
        }
        child_rel.extend_from_slice(&name);
        let mut verdict = None;
        for r in rules.iter() {
            if let Some(v) = r.verdict(&child_rel, is_dir) {
                verdict = Some(v);
            }
        }
        if verdict == Some(true) {
            continue;
        }
        let mut child_display = display.to_vec();
        if !child_display.is_empty() && child_display.last() != Some(&b'/') {
            child_display.push(b'/');
        }
        child_display.extend_from_slice(&name);
        if is_dir {
            if filters.excludes_dir(&child_rel) {
                continue;
            }
            if !walk_dir(&path, &child_display, &child_rel, depth + 1, git, filters, rules, visit) {
                keep_going = false;
                break;
            }
        } else if filters.wants_file(&child_rel) && !visit(&path, &child_display) {
            keep_going = false;
            break;
        }
    }
    rules.truncate(saved);
    keep_going
}
