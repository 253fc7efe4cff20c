//! Shell wildcard matching on bytes, as glibc's `fnmatch`: `*`, `?`, bracket expressions
//! `[a-z]`, `[!x]`/`[^x]`, `[[:alpha:]]`, and `\` quoting. Used by grep --include/--exclude,
//! rg -g and .gitignore rules (and open to find -name and others).

/// Options of a match.
#[derive(Debug, Clone, Copy, Default)]
pub struct FnFlags {
    /// FNM_PATHNAME: wildcards do not match `/` (a `**` segment still crosses them).
    pub pathname: bool,
    /// FNM_CASEFOLD (ASCII).
    pub casefold: bool,
    /// Leading `.` must be matched explicitly (FNM_PERIOD).
    pub period: bool,
}

/// Whether `name` matches the wildcard `pattern`.
pub fn fnmatch(pattern: &[u8], name: &[u8], flags: FnFlags) -> bool {
    if flags.period && name.first() == Some(&b'.') && pattern.first() != Some(&b'.') {
        return false;
    }
    matches(pattern, name, flags)
}

fn matches(p: &[u8], n: &[u8], flags: FnFlags) -> bool {
    // Iterative with one backtrack point per `*` (the classic linear-ish algorithm).
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() || pi < p.len() {
        if pi < p.len() {
            match p[pi] {
                b'*' => {
                    let double = p.get(pi + 1) == Some(&b'*');
                    if double && flags.pathname {
                        // `**/` matches any number of directories; `**` at the end everything.
                        let rest = &p[pi + 2..];
                        let rest = rest.strip_prefix(b"/").unwrap_or(rest);
                        let mut k = ni;
                        loop {
                            if matches(rest, &n[k..], flags) {
                                return true;
                            }
                            match n[k..].iter().position(|b| *b == b'/') {
                                Some(slash) => k += slash + 1,
                                None => return rest.is_empty(),
                            }
                        }
                    }
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                b'?' if ni < n.len() && !(flags.pathname && n[ni] == b'/') => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                b'[' if ni < n.len() => {
                    if let Some((hit, len)) = bracket(&p[pi..], n[ni], flags) {
                        if hit && !(flags.pathname && n[ni] == b'/') {
                            pi += len;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == b'[' {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                b'\\' if pi + 1 < p.len() && ni < n.len() && same(p[pi + 1], n[ni], flags) => {
                    pi += 2;
                    ni += 1;
                    continue;
                }
                c if c != b'[' && c != b'\\' && c != b'?' && ni < n.len() && same(c, n[ni], flags) => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) if sn < n.len() && !(flags.pathname && n[sn] == b'/') => {
                star = Some((sp, sn + 1));
                pi = sp + 1;
                ni = sn + 1;
            }
            _ => return false,
        }
    }
    true
}

fn same(a: u8, b: u8, flags: FnFlags) -> bool {
    a == b || (flags.casefold && a.eq_ignore_ascii_case(&b))
}

/// A bracket expression at the start of `p`: whether `c` is in it and the expression's
/// length, or None when it is not a complete expression (then `[` is literal).
fn bracket(p: &[u8], c: u8, flags: FnFlags) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(p.get(i), Some(b'!') | Some(b'^'));
    if negated {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    loop {
        let b = *p.get(i)?;
        if b == b']' && !first {
            return Some((hit != negated, i + 1));
        }
        first = false;
        if b == b'[' && p.get(i + 1) == Some(&b':') {
            let end = p[i + 2..].windows(2).position(|w| w == b":]")? + i + 2;
            let name = &p[i + 2..end];
            hit |= class(name, c);
            i = end + 2;
            continue;
        }
        let lo = if b == b'\\' && i + 1 < p.len() {
            i += 1;
            p[i]
        } else {
            b
        };
        i += 1;
        if p.get(i) == Some(&b'-') && p.get(i + 1).map_or(false, |x| *x != b']') {
            let hi = p[i + 1];
            i += 2;
            let fold = |x: u8| if flags.casefold { x.to_ascii_lowercase() } else { x };
            hit |= (lo..=hi).contains(&c) || (flags.casefold && (fold(lo)..=fold(hi)).contains(&fold(c)));
        } else {
            hit |= same(lo, c, flags);
        }
    }
}

fn class(name: &[u8], c: u8) -> bool {
    match name {
        b"alpha" => c.is_ascii_alphabetic(),
        b"digit" => c.is_ascii_digit(),
        b"alnum" => c.is_ascii_alphanumeric(),
        b"upper" => c.is_ascii_uppercase(),
        b"lower" => c.is_ascii_lowercase(),
        b"space" => c.is_ascii_whitespace() || c == 0x0b,
        b"blank" => c == b' ' || c == b'\t',
        b"punct" => c.is_ascii_punctuation(),
        b"print" => (0x20..0x7f).contains(&c),
        b"graph" => c.is_ascii_graphic(),
        b"cntrl" => c.is_ascii_control(),
        b"xdigit" => c.is_ascii_hexdigit(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> bool {
        fnmatch(p.as_bytes(), n.as_bytes(), FnFlags::default())
    }

    #[test]
    fn wildcards() {
        assert!(m("*.txt", "a.txt"));
        assert!(!m("*.txt", "a.txt~"));
        assert!(m("a?c", "abc"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[!a-c]x", "dx"));
        assert!(m("*", ""));
        assert!(m("a*b*c", "aXbYbc"));
        assert!(m("\\*", "*"));
        assert!(m("[[:digit:]]*", "1x"));
        let path = FnFlags { pathname: true, ..FnFlags::default() };
        assert!(!fnmatch(b"*.rs", b"a/b.rs", path));
        assert!(fnmatch(b"**/*.rs", b"a/b/c.rs", path));
        assert!(fnmatch(b"**/*.rs", b"c.rs", path));
        assert!(fnmatch(b"src/**", b"src/a/b", path));
    }
}
