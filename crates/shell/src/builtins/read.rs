//! `read [-ers] [-a array] [-d delim] [-n|-N count] [-p prompt] [-t timeout] [-u fd]
//! [name ...]`: one line split on IFS, the last name taking the rest.

use super::{done, fail, parse_options};
use crate::exec::Flow;
use crate::io::input::InputReader;
use crate::shell::Shell;

pub fn read(shell: &mut Shell, args: &[String]) -> Flow {
    let (options, first) = match parse_options(args, "adinNptu") {
        Ok(parsed) => parsed,
        Err(message) => return fail(shell, "read", &format!("{}\nread: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]", message), 2),
    };
    let mut raw = false;
    let mut array = None;
    let mut delimiter = Some(b'\n');
    let mut limit: Option<usize> = None;
    let mut exact = false;
    let mut prompt = None;
    let mut timeout: Option<f64> = None;
    let mut fd = 0u32;
    for (option, value) in options {
        let value = value.unwrap_or_default();
        match option {
            'r' => raw = true,
            's' | 'e' => {}
            'i' => {}
            'a' => array = Some(value),
            'd' => delimiter = Some(crate::text::to_bytes(&value).first().copied().unwrap_or(0)),
            'n' | 'N' => {
                match value.parse::<usize>() {
                    Ok(n) => limit = Some(n),
                    Err(_) => return fail(shell, "read", &format!("{}: invalid number", value), 2),
                }
                exact = option == 'N';
            }
            'p' => prompt = Some(value),
            't' => match value.parse::<f64>() {
                Ok(t) if t >= 0.0 => timeout = Some(t),
                _ => return fail(shell, "read", &format!("{}: invalid timeout specification", value), 2),
            },
            'u' => match value.parse::<u32>() {
                Ok(n) => fd = n,
                Err(_) => return fail(shell, "read", &format!("{}: invalid file descriptor specification", value), 1),
            },
            other => return fail(shell, "read", &format!("-{}: invalid option", other), 2),
        }
    }
    let names: Vec<String> = args[first..].to_vec();
    for name in names.iter().chain(array.iter()) {
        if !shell_parser::is_name(name) {
            return fail(shell, "read", &format!("`{}': not a valid identifier", name), 1);
        }
    }
    let target = match shell.fds.get(fd) {
        Some(target) => target.clone(),
        None => return fail(shell, "read", &format!("{}: invalid file descriptor: Bad file descriptor", fd), 1),
    };
    if let Some(prompt) = prompt {
        let interactive = match &target {
            crate::io::Target::Real(real) => shell.host.is_tty(*real),
            _ => false,
        };
        if interactive {
            shell.write_err(&prompt);
        }
    }
    if let (Some(seconds), crate::io::Target::Real(real)) = (timeout, &target) {
        let ms = (seconds * 1000.0) as u64;
        match shell.host.wait_readable(*real, ms) {
            Ok(true) => {
                if seconds == 0.0 {
                    return done(shell, 0);
                }
            }
            Ok(false) => return done(shell, if seconds == 0.0 { 1 } else { 142 }),
            Err(_) => {}
        }
    }
    if limit == Some(0) {
        return done(shell, 0);
    }
    if exact {
        delimiter = None;
    }
    let mut reader = InputReader::new(shell.host.as_mut(), target);
    let mut chars: Vec<(char, bool)> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    let mut found_delimiter = false;
    let mut escaped_next = false;
    let mut error = None;
    loop {
        if limit.map_or(false, |n| chars.len() >= n) {
            found_delimiter = true;
            break;
        }
        let byte = match reader.next(shell.host.as_mut()) {
            Ok(Some(byte)) => byte,
            Ok(None) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        if pending.is_empty() && !escaped_next {
            if Some(byte) == delimiter {
                found_delimiter = true;
                break;
            }
            if byte == b'\\' && !raw {
                escaped_next = true;
                continue;
            }
        }
        if escaped_next && pending.is_empty() && byte == b'\n' {
            // Backslash-newline continues the line.
            escaped_next = false;
            continue;
        }
        pending.push(byte);
        let text = crate::text::from_bytes(&pending);
        let complete = std::str::from_utf8(&pending).is_ok() || pending.len() >= 4 || byte < 0x80;
        if complete {
            for c in text.chars() {
                chars.push((c, escaped_next));
            }
            pending.clear();
            escaped_next = false;
        }
    }
    if !pending.is_empty() {
        for c in crate::text::from_bytes(&pending).chars() {
            chars.push((c, escaped_next));
        }
    }
    reader.finish(shell.host.as_mut());
    if let Some(error) = error {
        return fail(shell, "read", &format!("read error: {}: {}", fd, error), 1);
    }
    let status = if found_delimiter { 0 } else { 1 };
    let ifs = shell.get_scalar("IFS").unwrap_or_else(|| " \t\n".to_string());
    let result = if let Some(array) = array {
        let fields = split_fields(&chars, &ifs, usize::MAX);
        shell.set_array_list(&array, fields)
    } else if names.is_empty() {
        let line: String = chars.iter().map(|(c, _)| *c).collect();
        shell.assign_scalar("REPLY", line, false)
    } else if exact {
        let line: String = chars.iter().map(|(c, _)| *c).collect();
        let mut result = shell.assign_scalar(&names[0], line, false);
        for name in &names[1..] {
            result = result.and(shell.assign_scalar(name, String::new(), false));
        }
        result
    } else {
        let mut fields = split_fields(&chars, &ifs, names.len());
        fields.resize(names.len(), String::new());
        let mut result = Ok(());
        for (name, value) in names.iter().zip(fields) {
            if let Err(error) = shell.assign_scalar(name, value, false) {
                result = Err(error);
            }
        }
        result
    };
    if let Err(error) = result {
        return fail(shell, "read", &error.message(), 1);
    }
    done(shell, status)
}

/// Splits read's input into at most `count` fields; the last one keeps the rest of the
/// line (minus trailing IFS whitespace). Escaped characters never split.
fn split_fields(chars: &[(char, bool)], ifs: &str, count: usize) -> Vec<String> {
    let is_white = |c: char| matches!(c, ' ' | '\t' | '\n') && ifs.contains(c);
    let is_sep = |&(c, escaped): &(char, bool)| !escaped && ifs.contains(c);
    let mut fields = Vec::new();
    let mut i = 0;
    while i < chars.len() && !chars[i].1 && is_white(chars[i].0) {
        i += 1;
    }
    while i < chars.len() {
        if fields.len() + 1 == count {
            let mut end = chars.len();
            while end > i && !chars[end - 1].1 && is_white(chars[end - 1].0) {
                end -= 1;
            }
            // A single trailing non-whitespace separator is dropped, as in bash.
            let rest: Vec<&(char, bool)> = chars[i..end].iter().collect();
            let mut text: String = rest.iter().map(|(c, _)| *c).collect();
            if end > i && is_sep(&chars[end - 1]) && !is_white(chars[end - 1].0) && !chars[i..end - 1].iter().any(is_sep) {
                text.pop();
            }
            fields.push(text);
            return fields;
        }
        let start = i;
        while i < chars.len() && !is_sep(&chars[i]) {
            i += 1;
        }
        fields.push(chars[start..i].iter().map(|(c, _)| *c).collect());
        while i < chars.len() && !chars[i].1 && is_white(chars[i].0) {
            i += 1;
        }
        if i < chars.len() && is_sep(&chars[i]) && !is_white(chars[i].0) {
            i += 1;
            while i < chars.len() && !chars[i].1 && is_white(chars[i].0) {
                i += 1;
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::split_fields;

    fn split(text: &str, ifs: &str, count: usize) -> Vec<String> {
        let chars: Vec<(char, bool)> = text.chars().map(|c| (c, false)).collect();
        split_fields(&chars, ifs, count)
    }

    #[test]
    fn last_field_takes_the_rest() {
        assert_eq!(split("  a b  c d  ", " \t\n", 2), ["a", "b  c d"]);
        assert_eq!(split("1,2,3", ",", 2), ["1", "2,3"]);
        assert_eq!(split("a b", " ", usize::MAX), ["a", "b"]);
    }
}
