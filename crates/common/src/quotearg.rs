//! gnulib quotearg's "shell" quoting style, as GNU tools use it in messages (patch's
//! `patching file 'a b'`, the option words of diff's `diff -r` lines): a word is left
//! bare when the shell would read it back unchanged, else put in single quotes, or in
//! double quotes when its only problem is a single quote.

/// Bytes that never need quoting.
fn safe(i: usize, c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"%+,-./:@]_".contains(&c) || c >= 0x80 || (i > 0 && (c == b'#' || c == b'~'))
}

/// Quotes `word` for a message, like `quotearg` with `shell_quoting_style`.
pub fn shell_quote(word: &[u8]) -> Vec<u8> {
    if !word.is_empty() && word.iter().enumerate().all(|(i, &c)| safe(i, c)) {
        return word.to_vec();
    }
    let fine_in_double = word.iter().all(|c| !b"$`\"\\!".contains(c) && *c >= 0x20);
    if word.contains(&b'\'') && fine_in_double {
        let mut out = vec![b'"'];
        out.extend_from_slice(word);
        out.push(b'"');
        return out;
    }
    let mut out = vec![b'\''];
    for &c in word {
        if c == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(c);
        }
    }
    out.push(b'\'');
    out
}

/// How ls and stat quote a name their own test of safe bytes found unsafe: in single
/// quotes, or, when it holds one, in double quotes with `"`, `$`, `` ` `` and `\` escaped.
pub fn quote_name(name: &[u8]) -> Vec<u8> {
    if !name.contains(&b'\'') {
        return [b"'", name, b"'"].concat();
    }
    let mut out = vec![b'"'];
    for c in name {
        if b"\"$`\\".contains(c) {
            out.push(b'\\');
        }
        out.push(*c);
    }
    out.push(b'"');
    out
}

/// `shell_quote` as a String (lossy for invalid UTF-8), for format! messages.
pub fn shell_quote_str(word: &[u8]) -> String {
    String::from_utf8_lossy(&shell_quote(word)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles() {
        assert_eq!(shell_quote(b"plain/file.c"), b"plain/file.c".to_vec());
        assert_eq!(shell_quote(b"a b"), b"'a b'".to_vec());
        assert_eq!(shell_quote(b"--unified=1"), b"'--unified=1'".to_vec());
        assert_eq!(shell_quote(b"it's"), b"\"it's\"".to_vec());
        assert_eq!(shell_quote(b"it's $x"), b"'it'\\''s $x'".to_vec());
        assert_eq!(shell_quote(b""), b"''".to_vec());
        assert_eq!(shell_quote(b"#x"), b"'#x'".to_vec());
        assert_eq!(shell_quote(b"x#"), b"x#".to_vec());
        assert_eq!(quote_name(b"a b"), b"'a b'".to_vec());
        assert_eq!(quote_name(b"it's $x"), b"\"it's \\$x\"".to_vec());
    }
}
