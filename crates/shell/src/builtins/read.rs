//! `read [-ers] [-a array] [-d delim] [-n|-N count] [-p prompt] [-t timeout] [-u fd]
//! [name ...]`: one line split on IFS, the last name taking the rest.

use super::{done, fail, read_options};
use crate::exec::Flow;
use crate::io::input::InputReader;
use crate::shell::Shell;

pub fn read(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, first) = read_options!(shell, "read", args, "ersa:d:i:n:N:p:t:u:");
    let mut raw = false;
    let mut array = None;
    let mut delimiter = Some(b'\n');
    let mut limit: Option<usize> = None;
    let mut exact = false;
    let mut prompt = None;
    let mut timeout: Option<f64> = None;
    let mut fd = 0u32;
    for option in given.given {
        let value = option.value.unwrap_or_default();
        match option.letter {
            'r' => raw = true,
            'a' => array = Some(value),
            'd' => delimiter = Some(crate::text::to_bytes(&value).first().copied().unwrap_or(0)),
            'n' | 'N' => {
                match value.trim().parse::<usize>() {
                    Ok(n) => limit = Some(n),
                    Err(_) => return fail(shell, "read", &format!("{}: invalid number", value), 1),
                }
                exact = option.letter == 'N';
            }
            'p' => prompt = Some(value),
            't' => match timeout_seconds(&value) {
                Some(t) => timeout = Some(t),
                None => return fail(shell, "read", &format!("{}: invalid timeout specification", value), 1),
            },
            'u' => match value.parse::<u32>() {
                Ok(n) => fd = n,
                Err(_) => return fail(shell, "read", &format!("{}: invalid file descriptor specification", value), 1),
            },
            _ => {}
        }
    }
    let names: Vec<String> = args[first..].to_vec();
    // The array's name is checked first; the others as they are assigned (bash sets the
    // valid names before a bad one).
    if let Some(name) = array.iter().find(|name| !shell_parser::is_name(name)) {
        return fail(shell, "read", &format!("`{}': not a valid identifier", name), 1);
    }
    let target = match shell.fds.get(fd) {
        Some(target) => target.clone(),
        None => return fail(shell, "read", &format!("{}: invalid file descriptor: Bad file descriptor", fd), 1),
    };
    if let Some(prompt) = prompt {
        let interactive = match &target {
            crate::io::Target::Real(real) => shell.sys.is_tty(*real),
            _ => false,
        };
        if interactive {
            shell.write_err(&prompt);
        }
    }
    if let (Some(seconds), crate::io::Target::Memory(memory)) = (timeout, &target) {
        if seconds == 0.0 {
            // `read -t 0` only says whether input is there.
            let memory = memory.borrow();
            return done(shell, if memory.pos < memory.data.len() { 0 } else { 1 });
        }
    }
    if let (Some(seconds), crate::io::Target::Real(real)) = (timeout, &target) {
        let ms = (seconds * 1000.0) as u64;
        match shell.sys.wait_readable(*real, ms) {
            Ok(true) => {
                if seconds == 0.0 {
                    return done(shell, 0);
                }
            }
            Ok(false) => return done(shell, if seconds == 0.0 { 1 } else { 142 }),
            // Where the kernel cannot tell (the sandbox), `-t 0` says input is there, as
            // select() says for a file or EOF; a longer timeout just reads.
            Err(_) if seconds == 0.0 => return done(shell, 0),
            Err(_) => {}
        }
    }
    if limit == Some(0) {
        // Nothing is read, and the names are set to nothing.
        let result = match &array {
            Some(array) => shell.set_array_list(array, Vec::new()),
            None => assign_fields(shell, &names, vec![String::new(); names.len().max(1)]),
        };
        return match result {
            Err(error) => read_error(shell, error),
            Ok(()) => done(shell, 0),
        };
    }
    if exact {
        delimiter = None;
    }
    let mut reader = InputReader::new(shell.sys.as_mut(), target);
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
        let byte = match reader.next(shell.sys.as_mut()) {
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
    reader.finish(shell.sys.as_mut());
    if let Some(error) = error {
        return fail(shell, "read", &format!("read error: {}: {}", fd, error), 1);
    }
    let status = if found_delimiter { 0 } else { 1 };
    let ifs = shell.get_scalar("IFS").unwrap_or_else(|| " \t\n".to_string());
    let result = if let Some(array) = array {
        let fields = split_fields(&chars, &ifs, usize::MAX);
        shell.set_array_list(&array, fields)
    } else if exact || names.is_empty() {
        let line: String = chars.iter().map(|(c, _)| *c).collect();
        assign_fields(shell, &names, vec![line])
    } else {
        let mut fields = split_fields(&chars, &ifs, names.len());
        fields.resize(names.len(), String::new());
        assign_fields(shell, &names, fields)
    };
    match result {
        Err(error) => read_error(shell, error),
        Ok(()) => done(shell, status),
    }
}

/// Assigns `values` to `names` in order (REPLY when there are none; names without a value
/// get nothing), stopping at the first that fails.
fn assign_fields(shell: &mut Shell, names: &[String], values: Vec<String>) -> Result<(), crate::vars::AssignError> {
    if names.is_empty() {
        return shell.assign_scalar("REPLY", values.into_iter().next().unwrap_or_default(), false);
    }
    let mut values = values.into_iter();
    for name in names {
        if !shell_parser::is_name(name) {
            return Err(crate::vars::AssignError::Other(format!("`{}': not a valid identifier", name)));
        }
        shell.assign_scalar(name, values.next().unwrap_or_default(), false)?;
    }
    Ok(())
}

fn read_error(shell: &mut Shell, error: crate::vars::AssignError) -> Flow {
    // bash names only the variable for a readonly one.
    if let crate::vars::AssignError::Readonly(_) = error {
        shell.report(&error.message());
        return done(shell, 1);
    }
    fail(shell, "read", &error.message(), 1)
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

/// A `-t` timeout as bash's `uconvert` reads it: seconds with an optional fraction. A minus
/// sign is an error only when the whole-seconds part is not zero (bash reads `-0.5` as
/// half a second).
fn timeout_seconds(text: &str) -> Option<f64> {
    let magnitude = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = magnitude.split_once('.').unwrap_or((magnitude, ""));
    if !whole.bytes().all(|c| c.is_ascii_digit()) || !fraction.bytes().all(|c| c.is_ascii_digit()) || whole.len() + fraction.len() == 0 {
        return None;
    }
    let seconds: f64 = format!("{}.{}", if whole.is_empty() { "0" } else { whole }, fraction).parse().ok()?;
    if text.starts_with('-') && seconds >= 1.0 {
        return None;
    }
    Some(seconds)
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
