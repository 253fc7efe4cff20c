//! command: sed
//! `sed`: the stream editor (GNU sed 4.9). Options and files here; the script parser is
//! `sed/parse.rs`, the script's data `sed/script.rs`, the execution `sed/exec.rs`, the
//! input stream `sed/input.rs`. Regexes use the shared `common::regex` layer.

#[path = "sed/exec.rs"]
mod exec;
#[path = "sed/input.rs"]
mod input;
#[path = "sed/parse.rs"]
mod parse;
#[path = "sed/script.rs"]
mod script;
#[cfg(test)]
#[path = "sed/tests.rs"]
mod tests;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use common::args::{os_bytes, ArgError, UsageError};
use common::{strerror, Command, Io, UError};

use exec::{Exec, Failure, Settings, Target};
use input::Input;
use parse::{Origin, Source};

const SPEC: &str = "n,quiet n=silent e,expression: f,file: i,in-place:: E,regexp-extended E=r s,separate u,unbuffered l,line-length: z,null-data posix debug sandbox follow-symlinks b,binary";

/// GNU sed answers a bad option with its whole usage on stderr, status 1.
const SED: Command = Command { usage_error: Some(UsageError(bad_option)), ..Command::compact("sed", SPEC, USAGE) };

const USAGE: &str = "Usage: {name} [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution (not supported in the sandbox)
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.
";

fn bad_option(io: &mut Io, error: ArgError) -> UError {
    io.error(error);
    usage(io)
}

fn usage(io: &mut Io) -> UError {
    let _ = io.stderr.write_all(USAGE.replace("{name}", &io.name).as_bytes());
    UError::exit(1)
}

/// sed's failed write of its output: `couldn't write items to stdout`, status 4.
fn write_error(error: io::Error) -> UError {
    match common::error::is_broken_pipe(&error) {
        true => UError::write(&error),
        false => UError::new(4, format!("couldn't write items to stdout: {}", strerror(&error))),
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut source = Source::new();
    let mut quiet = false;
    let mut in_place: Option<Vec<u8>> = None;
    let mut extended = false;
    let mut separate = false;
    let mut unbuffered = false;
    let mut line_wrap = 70;
    let mut delim = b'\n';
    let mut posix = false;
    let mut sandbox = false;
    let mut operands = SED.operands(&args, io, &mut |io, id, value| {
        let value = value.unwrap_or_default();
        match id {
            "n" => quiet = true,
            "e" => source.add(os_bytes(&value), Origin::Expression),
            "f" => {
                let data = if value == "-" {
                    let mut d = Vec::new();
                    io::Read::read_to_end(io.stdin, &mut d).map(|_| d)
                } else {
                    std::fs::read(&value)
                };
                // GNU's EXIT_PANIC, as for every file sed cannot open.
                let data = data.map_err(|e| UError::new(4, format!("couldn't open file {}: {}", value.to_string_lossy(), strerror(&e))))?;
                source.add(&data, Origin::File(value.to_string_lossy().into_owned()));
            }
            "i" => {
                in_place = Some(os_bytes(&value).to_vec());
                separate = true;
            }
            "E" => extended = true,
            "s" => separate = true,
            "u" => unbuffered = true,
            "l" => line_wrap = value.to_str().and_then(|s| s.parse::<usize>().ok()).ok_or_else(|| format!("invalid line length: {}", value.to_string_lossy()))?,
            "z" => delim = 0,
            "posix" => posix = true,
            "debug" => return Err(UError::new(1, "option not supported in the sandbox: --debug")),
            "sandbox" => sandbox = true,
            // --follow-symlinks and -b change nothing here.
            _ => {}
        }
        Ok(())
    })?;
    if source.pieces.is_empty() {
        if operands.is_empty() {
            return Err(usage(io));
        }
        let script = operands.remove(0);
        source.add(os_bytes(&script), Origin::Expression);
    }
    let script = parse::parse(&source, &parse::Options { extended, sandbox })?;
    let mut targets = Vec::new();
    for name in &script.write_files {
        targets.push(match name.as_slice() {
            b"/dev/stdout" => Target::Stdout,
            b"/dev/stderr" => Target::Stderr,
            _ => {
                let file = std::fs::File::create(String::from_utf8_lossy(name).as_ref()).map_err(|e| UError::new(4, format!("couldn't open file {}: {}", String::from_utf8_lossy(name), strerror(&e))))?;
                Target::File(io::BufWriter::new(file), false)
            }
        });
    }
    let settings = Settings { quiet: quiet || script.quiet, line_wrap, unbuffered, delim, posix, separate };
    let mut exec = Exec::new(&script, settings, targets);
    if operands.is_empty() {
        operands.push(OsString::from("-"));
    }
    let result = match &in_place {
        Some(suffix) => edit_in_place(&mut exec, operands, suffix, io),
        None => stream(&mut exec, operands, separate, io),
    };
    let failed = match result {
        Ok(failed) => failed,
        Err(Failure::Io(e)) => return Err(write_error(e)),
        Err(Failure::Message(m, status)) => {
            io.stdout.flush().map_err(write_error)?;
            return Err(UError::new(status, m));
        }
    };
    for target in &mut exec.targets {
        if let Target::File(w, _) = target {
            w.flush().map_err(write_error)?;
        }
    }
    io.stdout.flush().map_err(write_error)?;
    Ok(match exec.exit {
        Some(code) if code != 0 => code,
        _ if failed => 2,
        Some(code) => code,
        None => 0,
    })
}

/// Reads the operands as one stream (or file by file with -s). Returns whether an input
/// could not be read.
fn stream(exec: &mut Exec, operands: Vec<OsString>, separate: bool, io: &mut Io) -> Result<bool, Failure> {
    let mut input = Input::new(operands, io.stdin, exec_delim(exec), separate);
    if separate {
        while input.open_next(io.stderr) {
            exec.run(&mut input, io.stdout, io.stderr)?;
            if exec.exit.is_some() {
                break;
            }
        }
    } else {
        input.fill(io.stderr);
        exec.run(&mut input, io.stdout, io.stderr)?;
    }
    Ok(input.failed)
}

fn exec_delim(exec: &Exec) -> u8 {
    exec.delim()
}

/// -i: each file is rewritten through a temporary file in its directory.
fn edit_in_place(exec: &mut Exec, operands: Vec<OsString>, suffix: &[u8], io: &mut Io) -> Result<bool, Failure> {
    let mut failed = false;
    for operand in operands {
        if operand == "-" {
            io.error("couldn't edit -: not a regular file");
            failed = true;
            continue;
        }
        let path = PathBuf::from(&operand);
        let mut input = Input::new(vec![operand.clone()], io.stdin, exec.delim(), true);
        if !input.open_next(io.stderr) {
            failed = true;
            continue;
        }
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or_else(|| Path::new("."));
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let temp = dir.join(format!("sed{:08x}", stamp));
        let file = match std::fs::File::create(&temp) {
            Ok(f) => f,
            Err(e) => {
                return Err(Failure::Message(format!("couldn't open temporary file {}: {}", temp.display(), strerror(&e)), 4));
            }
        };
        let mut writer = io::BufWriter::new(file);
        let result = exec.run(&mut input, &mut writer, io.stderr);
        writer.flush()?;
        drop(writer);
        if let Ok(meta) = common::fsext::metadata(&path, true) {
            let _ = common::fsext::set_mode(&temp, meta.permissions());
        }
        if !suffix.is_empty() {
            let backup = backup_name(&path, suffix);
            if let Err(e) = std::fs::rename(&path, &backup) {
                let _ = std::fs::remove_file(&temp);
                return Err(Failure::Message(format!("cannot rename {}: {}", path.display(), strerror(&e)), 4));
            }
        }
        if let Err(e) = std::fs::rename(&temp, &path) {
            let _ = std::fs::remove_file(&temp);
            return Err(Failure::Message(format!("cannot rename {}: {}", temp.display(), strerror(&e)), 4));
        }
        result?;
        failed |= input.failed;
        if exec.exit.is_some() {
            break;
        }
    }
    Ok(failed)
}

/// GNU's backup name: `*` in the suffix stands for the file's base name.
fn backup_name(path: &Path, suffix: &[u8]) -> PathBuf {
    let base = path.file_name().map(|b| os_bytes(b).to_vec()).unwrap_or_default();
    if suffix.contains(&b'*') {
        let mut name = Vec::new();
        for &b in suffix {
            if b == b'*' {
                name.extend_from_slice(&base);
            } else {
                name.push(b);
            }
        }
        let name = common::args::bytes_os(&name);
        if name.to_string_lossy().contains('/') {
            PathBuf::from(name)
        } else {
            path.with_file_name(name)
        }
    } else {
        let mut name = base;
        name.extend_from_slice(suffix);
        path.with_file_name(common::args::bytes_os(&name))
    }
}

/// Runs `command` with `sh -c` and returns what it wrote on stdout (`e`, `s///e`). The
/// output goes through a temporary file, since spawning has no pipe capture.
pub fn shell_output(command: &[u8]) -> Result<Vec<u8>, String> {
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let temp = format!("/tmp/sed-e-{:x}", stamp);
    let mut script = b"exec >\"$0\"\n".to_vec();
    script.extend_from_slice(command);
    let argv = vec![OsString::from("sh"), OsString::from("-c"), common::args::bytes_os(&script), OsString::from(&temp)];
    let result = common::process::run_and_wait(&argv);
    let output = std::fs::read(&temp);
    let _ = std::fs::remove_file(&temp);
    match result {
        Ok(_) => output.map_err(|e| format!("e: {}", strerror(&e))),
        Err(e) => Err(format!("couldn't run sh: {}", strerror(&e))),
    }
}
