//! `mapfile`/`readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd]
//! [array]`: lines of input into an indexed array.

use std::collections::BTreeMap;

use super::{done, fail, read_options};
use crate::exec::Flow;
use crate::io::input::InputReader;
use crate::shell::Shell;
use crate::vars::Value;

pub fn mapfile(shell: &mut Shell, args: &[String]) -> Flow {
    let name = args[0].clone();
    let (given, first) = read_options!(shell, &name, args, "d:n:O:s:tu:C:c:");
    let mut delimiter = b'\n';
    let mut count = 0usize;
    let mut origin: Option<i64> = None;
    let mut skip = 0usize;
    let mut trim = false;
    let mut fd = 0u32;
    for option in given.given {
        let value = option.value.unwrap_or_default();
        let number = || value.parse::<i64>().ok().filter(|n| *n >= 0);
        match option.letter {
            'd' => delimiter = crate::text::to_bytes(&value).first().copied().unwrap_or(0),
            'n' => count = number().unwrap_or(0) as usize,
            'O' => origin = number(),
            's' => skip = number().unwrap_or(0) as usize,
            't' => trim = true,
            'u' => fd = number().unwrap_or(0) as u32,
            _ => {}
        }
    }
    let array = args.get(first).cloned().unwrap_or_else(|| "MAPFILE".to_string());
    if !shell_parser::is_name(&array) {
        return fail(shell, &name, &format!("`{}': not a valid identifier", array), 1);
    }
    let target = match shell.fds.get(fd) {
        Some(target) => target.clone(),
        None => return fail(shell, &name, &format!("{}: invalid file descriptor: Bad file descriptor", fd), 1),
    };
    let mut reader = InputReader::new(shell.sys.as_mut(), target);
    let mut lines = Vec::new();
    let mut current = Vec::new();
    let mut seen = 0usize;
    loop {
        if count > 0 && lines.len() >= count {
            break;
        }
        match reader.next(shell.sys.as_mut()) {
            Ok(Some(byte)) => {
                if byte == delimiter {
                    if !trim {
                        current.push(byte);
                    }
                    if seen >= skip {
                        lines.push(crate::text::from_bytes(&current));
                    }
                    seen += 1;
                    current.clear();
                } else {
                    current.push(byte);
                }
            }
            _ => break,
        }
    }
    if !current.is_empty() && (count == 0 || lines.len() < count) && seen >= skip {
        lines.push(crate::text::from_bytes(&current));
    }
    reader.finish(shell.sys.as_mut());
    let start = origin.unwrap_or(0);
    let mut map: BTreeMap<i64, String> = match (origin, shell.get_value(&array)) {
        (Some(_), Some(Value::Indexed(existing))) => existing,
        _ => BTreeMap::new(),
    };
    for (i, line) in lines.into_iter().enumerate() {
        map.insert(start + i as i64, line);
    }
    if let Err(error) = shell.assign_array(&array, Value::Indexed(map), false) {
        return fail(shell, &name, &error.message(), 1);
    }
    done(shell, 0)
}
