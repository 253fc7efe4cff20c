//! `source file [args]` and `.`: run a file in the current shell.

use super::fail;
use crate::exec::Flow;
use crate::sys::FileKind;
use crate::options::Shopt;
use crate::shell::Shell;

pub fn source(shell: &mut Shell, args: &[String]) -> Flow {
    let name = args[0].clone();
    let file = match args.get(1) {
        Some(file) => file.clone(),
        None => return fail(shell, &name, "filename argument required\n.: usage: . filename [arguments]", 2),
    };
    let path = if file.contains('/') || !shell.options.shopt(Shopt::Sourcepath) {
        file.clone()
    } else {
        find_in_path(shell, &file).unwrap_or_else(|| file.clone())
    };
    let text = match crate::cli::read_file(shell, &path) {
        Ok(text) => text,
        Err(error) => return fail(shell, &name, &format!("{}: {}", file, error), 1),
    };
    let saved_positional = if args.len() > 2 { Some(std::mem::replace(&mut shell.positional, args[2..].to_vec())) } else { None };
    let saved_source = std::mem::replace(&mut shell.source_name, file.clone());
    shell.sourcing += 1;
    shell.status = 0;
    let (flow, syntax_error) = shell.run_source(&text, &file, 1);
    shell.sourcing -= 1;
    shell.source_name = saved_source;
    if let Some(positional) = saved_positional {
        shell.positional = positional;
    }
    if syntax_error.is_some() {
        shell.status = 1;
    }
    match flow {
        Flow::Return => Flow::Normal,
        other => other,
    }
}

fn find_in_path(shell: &mut Shell, file: &str) -> Option<String> {
    let path = shell.get_scalar("PATH")?;
    for dir in path.split(':') {
        let dir = if dir.is_empty() { "." } else { dir };
        let candidate = format!("{}/{}", dir.trim_end_matches('/'), file);
        if shell.sys.stat(&candidate, true).map_or(false, |s| s.kind == FileKind::File) {
            return Some(candidate);
        }
    }
    None
}
