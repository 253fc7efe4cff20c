//! Starting the shell the way `bash` is started: `bash -c 'cmds' [name [args]]`,
//! `bash script.sh args`, or a script on standard input; options as bash takes them.

use crate::exec::Flow;
use crate::sys::{Errno, FileKind, Sys, OpenFlags};
use crate::shell::{Mode, Shell};

const VERSION_TEXT: &str = "GNU bash, version 5.2.15(1)-release (wasm32-airlock)\n\
This is the Airlock shell, a bash-compatible interpreter.\n";

pub fn run(sys: Box<dyn Sys>, args: Vec<String>) -> i32 {
    let mut shell = Shell::new(sys, Mode::Command);
    for fd in shell.sys.inherited_fds() {
        shell.fds.inherit(fd);
    }
    let environment = shell.sys.environment();
    shell.init_variables(&environment);
    shell.import_functions(&environment);
    let program = args.first().cloned().unwrap_or_else(|| "bash".to_string());
    let mut command_mode = false;
    let mut stdin_mode = false;
    let mut index = 1;
    while index < args.len() {
        let arg = args[index].clone();
        match arg.as_str() {
            "--" => {
                index += 1;
                break;
            }
            "--version" => {
                shell.write_fd(1, VERSION_TEXT.as_bytes()).ok();
                return 0;
            }
            "--help" => {
                shell.write_fd(1, b"Usage: bash [option] ... [-c command | script-file] [arguments ...]\n").ok();
                return 0;
            }
            "--posix" => {
                shell.options.set_named("posix", true);
            }
            "--login" | "--norc" | "--noprofile" | "--noediting" | "--restricted" | "--verbose" => {}
            "-o" | "+o" | "-O" | "+O" => {
                index += 1;
                let name = match args.get(index) {
                    Some(name) => name.clone(),
                    None => {
                        shell.write_err(&format!("{}: {}: option requires an argument\n", program, arg));
                        return 2;
                    }
                };
                let on = arg.starts_with('-');
                let known = if arg.ends_with('o') { shell.options.set_named(&name, on) } else { shell.options.set_shopt_named(&name, on) };
                if !known {
                    shell.write_err(&format!("{}: {}: invalid option name\n", program, name));
                    return 2;
                }
            }
            _ if (arg.starts_with('-') || arg.starts_with('+')) && arg.len() > 1 && !arg.starts_with("--") => {
                let on = arg.starts_with('-');
                for letter in arg[1..].chars() {
                    match letter {
                        'c' => command_mode = true,
                        's' => stdin_mode = true,
                        'i' | 'l' | 'r' | 'D' | 'p' => {}
                        other => {
                            if !shell.options.set_flag(other, on) {
                                shell.write_err(&format!("{}: -{}: invalid option\n", program, other));
                                return 2;
                            }
                        }
                    }
                }
            }
            _ => break,
        }
        index += 1;
    }
    let operands = args[index..].to_vec();
    if command_mode {
        let command = match operands.first() {
            Some(command) => command.clone(),
            None => {
                shell.write_err(&format!("{}: -c: option requires an argument\n", program));
                return 2;
            }
        };
        shell.arg0 = operands.get(1).cloned().unwrap_or(program);
        shell.positional = operands.iter().skip(2).cloned().collect();
        shell.error_prefix = shell.arg0.clone();
        shell.options.extra_flags.push('c');
        return run_text(&mut shell, &command, "-c");
    }
    if !stdin_mode {
        if let Some(script) = operands.first() {
            let script = script.clone();
            return run_script_file(&mut shell, &script, operands[1..].to_vec());
        }
    }
    shell.arg0 = program.clone();
    shell.error_prefix = program;
    shell.positional = operands;
    shell.mode = Mode::Script;
    shell.options.extra_flags.push('s');
    let text = match read_all(&mut shell, 0) {
        Ok(text) => text,
        Err(_) => String::new(),
    };
    run_text(&mut shell, &text, "")
}

/// Runs program text to its end (or `exit`), then the EXIT trap; the exit status.
fn run_text(shell: &mut Shell, text: &str, origin: &str) -> i32 {
    let (flow, syntax_error) = shell.run_source(text, origin, 1);
    if let Some(status) = syntax_error {
        shell.status = status;
    }
    let _ = flow == Flow::Exit;
    shell.finish()
}

/// `bash script args`: the script's name is `$0` and prefixes error messages.
pub fn run_script_file(shell: &mut Shell, path: &str, args: Vec<String>) -> i32 {
    shell.mode = Mode::Script;
    shell.arg0 = path.to_string();
    shell.error_prefix = path.to_string();
    shell.source_name = path.to_string();
    shell.positional = args;
    let text = match read_file(shell, path) {
        Ok(text) => text,
        Err(error) => {
            let status = if error == Errno::NOENT { 127 } else { 126 };
            shell.write_err(&format!("bash: {}: {}\n", path, error));
            return status;
        }
    };
    run_text(shell, &text, "")
}

/// A whole file as text (bytes kept as they are).
pub fn read_file(shell: &mut Shell, path: &str) -> Result<String, Errno> {
    // `source /dev/stdin <<< text` reads the shell's own descriptor 0 (maybe a here-string).
    match shell.special_path(path) {
        Some(Some(target)) => {
            let mut data = Vec::new();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match crate::io::read_target(shell.sys.as_mut(), &target, &mut buf) {
                    Ok(0) => return Ok(crate::text::from_bytes(&data)),
                    Ok(n) => data.extend_from_slice(&buf[..n]),
                    Err(Errno::INTR) => continue,
                    Err(error) => return Err(error),
                }
            }
        }
        Some(None) => return Err(Errno::BADF),
        None => {}
    }
    if shell.sys.stat(path, true).map_or(false, |s| s.kind == FileKind::Dir) {
        return Err(Errno::ISDIR);
    }
    let fd = shell.sys.open(path, OpenFlags::read_only(), 0)?;
    let mut data = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let result = loop {
        match shell.sys.read(fd, &mut buf) {
            Ok(0) => break Ok(()),
            Ok(n) => data.extend_from_slice(&buf[..n]),
            Err(Errno::INTR) => continue,
            Err(error) => break Err(error),
        }
    };
    shell.sys.close(fd);
    result?;
    Ok(crate::text::from_bytes(&data))
}

fn read_all(shell: &mut Shell, fd: u32) -> Result<String, Errno> {
    let mut data = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match shell.sys.read(fd, &mut buf) {
            Ok(0) => return Ok(crate::text::from_bytes(&data)),
            Ok(n) => data.extend_from_slice(&buf[..n]),
            Err(Errno::INTR) => continue,
            Err(error) => return Err(error),
        }
    }
}
