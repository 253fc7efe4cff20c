//! Pathname expansion: matching a pattern against directory entries, component by
//! component, with `dotglob`, `nullglob`, `failglob`, `nocaseglob`, `globstar`.

use super::fields::Field;
use crate::exec::Flow;
use crate::sys::FileKind;
use crate::options::Shopt;
use crate::pattern::{has_glob_chars, unescape, Pattern};
use crate::shell::Shell;

/// Bounds `**` walks (a link loop or a huge tree should not hang the shell).
const MAX_GLOBSTAR_ENTRIES: usize = 100_000;

impl Shell {
    pub(crate) fn glob_field(&mut self, field: &Field, out: &mut Vec<String>) -> Result<(), Flow> {
        let matches = self.glob(&field.pattern);
        if !matches.is_empty() {
            out.extend(matches);
            return Ok(());
        }
        if self.options.shopt(Shopt::Nullglob) {
            return Ok(());
        }
        if self.options.shopt(Shopt::Failglob) {
            self.report(&format!("no match: {}", field.text));
            self.status = 1;
            return Err(Flow::Abort);
        }
        out.push(field.text.clone());
        Ok(())
    }

    /// The sorted paths matching a (backslash-escaped) pattern.
    pub(crate) fn glob(&mut self, pattern: &str) -> Vec<String> {
        let extglob = self.options.shopt(Shopt::Extglob);
        let nocase = self.options.shopt(Shopt::Nocaseglob);
        let dotglob = self.options.shopt(Shopt::Dotglob);
        let globstar = self.options.shopt(Shopt::Globstar);
        let components = split_components(pattern);
        let mut paths: Vec<String> = vec![if pattern.starts_with('/') { "/".to_string() } else { String::new() }];
        let count = components.len();
        for (index, component) in components.iter().enumerate() {
            let last = index + 1 == count;
            if component.is_empty() {
                if index > 0 {
                    paths = paths.into_iter().filter(|p| self.is_dir(p)).map(|p| format!("{}/", p.trim_end_matches('/'))).collect();
                }
                continue;
            }
            if !has_glob_chars(component, extglob) {
                let literal = unescape(component);
                paths = paths.into_iter().map(|p| join(&p, &literal)).collect();
                if last {
                    paths.retain(|p| self.sys.stat(p, false).is_ok());
                }
                continue;
            }
            if globstar && component == "**" {
                let mut next = Vec::new();
                for path in &paths {
                    self.walk(path, dotglob, last, &mut next);
                }
                paths = next;
                continue;
            }
            let matcher = Pattern::new(component, extglob, nocase);
            let explicit_dot = component.starts_with('.') || component.starts_with("\\.");
            let mut next = Vec::new();
            for path in &paths {
                let entries = match self.sorted_entries(path, false) {
                    Some(entries) => entries,
                    None => continue,
                };
                for name in entries {
                    if name == "." || name == ".." {
                        continue;
                    }
                    if name.starts_with('.') && !explicit_dot && !dotglob {
                        continue;
                    }
                    if !matcher.matches(&name) {
                        continue;
                    }
                    let joined = join(path, &name);
                    if !last && !self.is_dir(&joined) {
                        continue;
                    }
                    next.push(joined);
                }
            }
            paths = next;
        }
        if pattern.ends_with('/') {
            paths.retain(|p| p.ends_with('/'));
        }
        paths.sort_unstable_by(|a, b| crate::text::collate(a, b));
        paths.dedup();
        paths
    }

    /// The names in directory `path` ("" is the current one) in collation order, or
    /// reversed (the walk pops them from a stack); None when it cannot be read.
    fn sorted_entries(&mut self, path: &str, reversed: bool) -> Option<Vec<String>> {
        let mut entries = self.sys.read_dir(if path.is_empty() { "." } else { path }).ok()?;
        if reversed {
            entries.sort_unstable_by(|a, b| crate::text::collate(b, a));
        } else {
            entries.sort_unstable_by(|a, b| crate::text::collate(a, b));
        }
        Some(entries)
    }

    fn is_dir(&mut self, path: &str) -> bool {
        let path = if path.is_empty() { "." } else { path };
        self.sys.stat(path, true).map_or(false, |s| s.kind == FileKind::Dir)
    }

    /// `**`: the directory itself and everything below (directories only when more
    /// components follow).
    fn walk(&mut self, start: &str, dotglob: bool, last: bool, out: &mut Vec<String>) {
        let mut stack = vec![start.to_string()];
        if !last || !start.is_empty() {
            out.push(start.to_string());
        }
        while let Some(dir) = stack.pop() {
            if out.len() > MAX_GLOBSTAR_ENTRIES {
                return;
            }
            let entries = match self.sorted_entries(&dir, true) {
                Some(entries) => entries,
                None => continue,
            };
            for name in entries {
                if name == "." || name == ".." || (name.starts_with('.') && !dotglob) {
                    continue;
                }
                let path = join(&dir, &name);
                let is_dir = self.sys.stat(&path, false).map_or(false, |s| s.kind == FileKind::Dir);
                if is_dir {
                    stack.push(path.clone());
                    out.push(if last { path } else { path });
                } else if last {
                    out.push(path);
                }
            }
        }
        if start.is_empty() && !last {
            // `**/x` also matches `x` in the current directory.
            out.insert(0, String::new());
        }
        out.retain(|p| !(last && p.is_empty()));
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else if dir.ends_with('/') {
        format!("{}{}", dir, name)
    } else {
        format!("{}/{}", dir, name)
    }
}

/// Splits at unescaped `/` (escapes stay in the components).
fn split_components(pattern: &str) -> Vec<String> {
    let mut components = Vec::new();
    let mut current = String::new();
    let mut chars = pattern.chars().peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '/' => {
                if !(first && current.is_empty()) {
                    components.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
        first = false;
    }
    components.push(current);
    components
}
