//! The names in a patch's file headers, as GNU patch reads them (fetchname): C-quoted or
//! plain, then a tab and a time stamp, and `-p` stripping of leading components.

/// GNU's strip_leading_slashes: drop `strip` leading components (all but the last when
/// negative); None when there are not enough.
pub fn strip_name(name: &[u8], strip: i64) -> Option<Vec<u8>> {
    let mut s = strip;
    let mut start = 0;
    let mut i = 0;
    while i < name.len() {
        if name[i] == b'/' {
            while i + 1 < name.len() && name[i + 1] == b'/' {
                i += 1;
            }
            if strip < 0 || {
                s -= 1;
                s >= 0
            } {
                start = i + 1;
            }
        }
        i += 1;
    }
    if (strip < 0 || s <= 0) && start < name.len() {
        Some(name[start..].to_vec())
    } else {
        None
    }
}

/// Parses a C-quoted name (`"a b\t"`); returns it and the rest of the line.
fn c_string(s: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut out = Vec::new();
    let mut i = 1;
    while i < s.len() {
        let c = s[i];
        i += 1;
        match c {
            b'"' => return Some((out, &s[i..])),
            b'\\' => {
                let e = *s.get(i)?;
                i += 1;
                out.push(match e {
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    b'\\' | b'"' => e,
                    b'0'..=b'3' => {
                        let d1 = *s.get(i)?;
                        let d2 = *s.get(i + 1)?;
                        if !(b'0'..=b'7').contains(&d1) || !(b'0'..=b'7').contains(&d2) {
                            return None;
                        }
                        i += 2;
                        ((e - b'0') << 6) | ((d1 - b'0') << 3) | (d2 - b'0')
                    }
                    _ => return None,
                });
            }
            _ => out.push(c),
        }
    }
    None
}

/// A header's name and time stamp (GNU fetchname). Returns (name, timestr, epoch):
/// name None for /dev/null or when stripping fails.
pub(super) fn fetch_name(at: &[u8], strip: i64) -> (Option<Vec<u8>>, Option<Vec<u8>>, bool) {
    let mut i = 0;
    while i < at.len() && at[i].is_ascii_whitespace() {
        i += 1;
    }
    let at = &at[i..];
    let (name, rest): (Vec<u8>, &[u8]) = if at.first() == Some(&b'"') {
        match c_string(at) {
            Some(v) => v,
            None => return (None, None, false),
        }
    } else {
        let mut t = 0;
        while t < at.len() {
            if at[t].is_ascii_whitespace() {
                // Spaces belong to the name when a tab separates name and date.
                let mut u = t;
                while u < at.len() && at[u] != b'\t' && at.get(u + 1).map_or(false, |c| c.is_ascii_whitespace()) {
                    u += 1;
                }
                if at[u] != b'\t' && at[(u + 1).min(at.len())..].contains(&b'\t') {
                    t += 1;
                    continue;
                }
                break;
            }
            t += 1;
        }
        (at[..t].to_vec(), &at[t..])
    };
    let mut rest_end = rest.len();
    while rest_end > 0 && (rest[rest_end - 1] == b'\n' || rest[rest_end - 1] == b'\r') {
        rest_end -= 1;
    }
    let timestr = rest[..rest_end].to_vec();
    let date = String::from_utf8_lossy(&timestr).trim().to_string();
    // The epoch in any time zone means "this file does not exist".
    let epoch = date.starts_with("1970-01-01") || date.starts_with("1969-12-31") || date.contains("Jan  1 00:00:00 1970") || date.contains("Dec 31 ") && date.ends_with("1969");
    if name == b"/dev/null" {
        return (None, Some(timestr), true);
    }
    (strip_name(&name, strip), Some(timestr), epoch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripping() {
        assert_eq!(strip_name(b"a/b/c", -1), Some(b"c".to_vec()));
        assert_eq!(strip_name(b"a/b/c", 0), Some(b"a/b/c".to_vec()));
        assert_eq!(strip_name(b"a/b/c", 1), Some(b"b/c".to_vec()));
        assert_eq!(strip_name(b"a/b/c", 3), None);
        assert_eq!(strip_name(b"/abs/x", 1), Some(b"abs/x".to_vec()));
    }

    #[test]
    fn names_with_spaces_and_dates() {
        let (n, t, e) = fetch_name(b" a b\t2020-01-01 00:00:00.000000000 +0000\n", 0);
        assert_eq!(n, Some(b"a b".to_vec()));
        assert_eq!(t, Some(b"\t2020-01-01 00:00:00.000000000 +0000".to_vec()));
        assert!(!e);
        assert_eq!(fetch_name(b" /dev/null\n", 0).0, None);
        assert!(fetch_name(b" x\t1970-01-01 00:00:00.000000000 +0000\n", 0).2);
    }
}
