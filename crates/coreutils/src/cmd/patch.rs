//! command: patch
//! `patch`: applies unified, context and normal diffs (GNU patch 2.7): -p, -i, -R, -N,
//! --dry-run, -s, -o, -b/-z/-B/-Y, -E, -F, -l, -r, -t/-f; hunks found at an offset or with
//! fuzz say so, failed ones go to FILE.rej, reversed patches are detected (there is no
//! terminal to ask, so the questions get their default answers, as GNU does without one).
//! Files are created and deleted as the patch says. Exit 0, 1 (some hunks failed), 2.

#[path = "patch/apply.rs"]
mod apply;
#[path = "patch/hunks.rs"]
mod hunks;
#[path = "patch/names.rs"]
mod names;
#[path = "patch/parse.rs"]
mod parse;
#[path = "patch/run.rs"]
mod run;

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::PathBuf;

use common::args::{bytes_os, os_bytes, ArgError, Command, Parsed, UsageError};
use common::quotearg::shell_quote_str;
use common::{strerror, Io, UError};

use parse::Kind;
use run::Run;

const SPEC: &str = "backup,b prefix,B: context,c directory,d: ifdef,D: ed,e remove-empty-files,E force,f fuzz,F: get,g: input,i: ignore-whitespace,l normal,n forward,N output,o: strip,p: reject-file,r: reverse,R quiet,s quiet=silent batch,t set-time,T unified,u version,v version-control,V: debug,x: basename-prefix,Y: suffix,z: set-utc,Z dry-run verbose binary help backup-if-mismatch no-backup-if-mismatch posix quoting-style: reject-format: read-only: follow-symlinks";

const HELP: &str = "Usage: patch [OPTION]... [ORIGFILE [PATCHFILE]]

Input options:

  -p NUM  --strip=NUM  Strip NUM leading components from file names.
  -F LINES  --fuzz LINES  Set the fuzz factor to LINES for inexact matching.
  -l  --ignore-whitespace  Ignore white space changes between patch and input.

  -c  --context  Interpret the patch as a context difference.
  -n  --normal  Interpret the patch as a normal difference.
  -u  --unified  Interpret the patch as a unified difference.

  -N  --forward  Ignore patches that appear to be reversed or already applied.
  -R  --reverse  Assume patches were created with old and new files swapped.

  -i PATCHFILE  --input=PATCHFILE  Read patch from PATCHFILE instead of stdin.

Output options:

  -o FILE  --output=FILE  Output patched files to FILE.
  -r FILE  --reject-file=FILE  Output rejects to FILE.

  -E  --remove-empty-files  Remove output files that are empty after patching.

Backup and version control options:

  -b  --backup  Back up the original contents of each file.
  --backup-if-mismatch  Back up if the patch does not match exactly.
  --no-backup-if-mismatch  Back up mismatches only if otherwise requested.

  -B PREFIX  --prefix=PREFIX  Prepend PREFIX to backup file names.
  -Y PREFIX  --basename-prefix=PREFIX  Prepend PREFIX to backup file basenames.
  -z SUFFIX  --suffix=SUFFIX  Append SUFFIX to backup file names.

Miscellaneous options:

  -t  --batch  Ask no questions; skip bad-Prereq patches; assume reversed.
  -f  --force  Like -t, but ignore bad-Prereq patches, and assume unreversed.
  -s  --quiet  --silent  Work silently unless an error occurs.
  --verbose  Output extra information about the work being done.
  --dry-run  Do not actually change any files; just print what would happen.
  --posix  Conform to the POSIX standard.

  -d DIR  --directory=DIR  Change the working directory to DIR first.
  --reject-format=FORMAT  Create 'context' or 'unified' rejects.
  --binary  Read and write data in binary mode.

  -v  --version  Output version info.
  --help  Output this help.

There is no terminal in the sandbox: questions get their default answers, as GNU
patch gives them without one. Not supported: -e/--ed, -D/--ifdef, -T/-Z (set time),
-V (numbered backups), -g (version control).
";

pub struct Options {
    pub strip: i64,
    pub reverse: bool,
    pub forward: bool,
    pub dry_run: bool,
    pub silent: bool,
    pub verbose: bool,
    pub batch: bool,
    pub force: bool,
    pub backup: bool,
    pub backup_if_mismatch: Option<bool>,
    pub remove_empty: bool,
    pub output: Option<Vec<u8>>,
    pub reject_file: Option<Vec<u8>>,
    pub fuzz: isize,
    pub ignore_whitespace: bool,
    pub kind: Option<Kind>,
    pub suffix: Vec<u8>,
    pub suffix_given: bool,
    pub prefix: Option<Vec<u8>>,
    pub basename_prefix: Option<Vec<u8>>,
    pub posix: bool,
    pub reject_format: Option<Kind>,
}

/// A fatal error: `patch: **** message`, exit 2.
pub struct Fatal(pub String);

/// GNU patch words its hint `patch: Try 'patch --help' ...`, with the name in front.
const PATCH: Command = Command { usage_status: 2, usage_error: Some(UsageError(bad_option)), ..Command::compact("patch", SPEC, HELP) };

fn bad_option(io: &mut Io, error: ArgError) -> UError {
    usage(io, &error.to_string())
}

fn usage(io: &Io, message: &str) -> UError {
    UError::new(2, format!("{}\n{}: Try '{} --help' for more information.", message, io.name, io.name))
}

/// `patch: **** message`, exit 2.
fn fatal(message: impl std::fmt::Display) -> UError {
    UError::new(2, format!("**** {}", message))
}

fn path(p: &[u8]) -> PathBuf {
    PathBuf::from(bytes_os(p))
}

fn number(text: &str, what: &str) -> Result<i64, String> {
    let t = text.strip_prefix('+').unwrap_or(text);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{} {} is not a number", what, shell_quote_str(text.as_bytes())));
    }
    Ok(t.parse::<i64>().unwrap_or(i64::MAX))
}

/// The options before any is given (the backup suffix and POSIX mode from the environment).
fn default_options() -> Options {
    Options {
        strip: -1,
        reverse: false,
        forward: false,
        dry_run: false,
        silent: false,
        verbose: false,
        batch: false,
        force: false,
        backup: false,
        backup_if_mismatch: None,
        remove_empty: false,
        output: None,
        reject_file: None,
        fuzz: 2,
        ignore_whitespace: false,
        kind: None,
        suffix: std::env::var_os("SIMPLE_BACKUP_SUFFIX").map(|s| os_bytes(&s).to_vec()).filter(|s| !s.is_empty()).unwrap_or_else(|| b".orig".to_vec()),
        suffix_given: false,
        prefix: None,
        basename_prefix: None,
        posix: std::env::var_os("POSIXLY_CORRECT").is_some(),
        reject_format: None,
    }
}

/// The patch: the file named (`-i` or the second operand), else stdin.
fn read_patch(io: &mut Io, input: Option<&[u8]>) -> Result<Vec<u8>, UError> {
    match input {
        Some(p) if p != b"-" => std::fs::read(path(p)).map_err(|e| fatal(format_args!("Can't open patch file {} : {}", shell_quote_str(p), strerror(&e)))),
        _ => {
            let mut buf = Vec::new();
            io.stdin.read_to_end(&mut buf).map_err(|e| fatal(format_args!("read error : {}", strerror(&e))))?;
            Ok(buf)
        }
    }
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut o = default_options();
    let mut operands = Vec::new();
    let mut input: Option<Vec<u8>> = None;
    PATCH.options(&args, io, &mut |io, item| {
        let (id, value) = match item {
            Parsed::Operand(v) => {
                operands.push(v);
                return Ok(());
            }
            Parsed::Opt { id, value } => (id, value),
        };
        let bytes = value.as_ref().map(|v| os_bytes(v).to_vec()).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        match id {
            "backup" => o.backup = true,
            "prefix" => o.prefix = Some(bytes),
            "basename-prefix" => o.basename_prefix = Some(bytes),
            "suffix" => {
                o.suffix = bytes;
                o.suffix_given = true;
            }
            "context" => o.kind = Some(Kind::Context),
            "unified" => o.kind = Some(Kind::Unified),
            "normal" => o.kind = Some(Kind::Normal),
            "directory" => {
                if let Err(e) = std::env::set_current_dir(path(&bytes)) {
                    return Err(fatal(format_args!("Can't change to directory {} : {}", shell_quote_str(&bytes), strerror(&e))));
                }
            }
            "remove-empty-files" => o.remove_empty = true,
            "force" => o.force = true,
            "fuzz" => o.fuzz = number(&text, "fuzz factor").map_err(fatal)? as isize,
            "strip" => o.strip = number(&text, "strip count").map_err(fatal)?,
            "input" => input = Some(bytes),
            "ignore-whitespace" => o.ignore_whitespace = true,
            "forward" => o.forward = true,
            "output" => o.output = Some(bytes),
            "reject-file" => o.reject_file = Some(bytes),
            "reverse" => o.reverse = true,
            "quiet" => o.silent = true,
            "batch" => o.batch = true,
            "dry-run" => o.dry_run = true,
            "verbose" => o.verbose = true,
            "binary" | "follow-symlinks" | "debug" | "quoting-style" | "read-only" => {}
            "backup-if-mismatch" => o.backup_if_mismatch = Some(true),
            "no-backup-if-mismatch" => o.backup_if_mismatch = Some(false),
            "posix" => o.posix = true,
            "reject-format" => match text.as_str() {
                "context" => o.reject_format = Some(Kind::Context),
                "unified" => o.reject_format = Some(Kind::Unified),
                _ => return Err(usage(io, &format!("invalid argument '{}' for '--reject-format'", text))),
            },
            other => {
                let shown = common::args::table(SPEC).iter().find(|s| s.id == other).and_then(|s| s.long).unwrap_or(other);
                return Err(usage(io, &format!("option not supported in the sandbox: --{}", shown)));
            }
        }
        Ok(())
    })?;
    if operands.len() > 2 {
        return Err(usage(io, &format!("{}: extra operand", shell_quote_str(os_bytes(&operands[2])))));
    }
    let origfile = operands.first().map(|o| os_bytes(o).to_vec());
    if let Some(p) = operands.get(1) {
        input = Some(os_bytes(p).to_vec());
    }
    let data = read_patch(io, input.as_deref())?;
    let mut run = Run {
        opts: &o,
        say: Vec::new(),
        to_stderr: o.output.as_deref() == Some(b"-"),
        somefailed: false,
        backed_up: HashSet::new(),
        rejects_created: HashSet::new(),
        stdout_file: Vec::new(),
    };
    let result = match parse::parse(&data, o.strip, o.kind) {
        Ok(files) => {
            let mut outcome = Ok(());
            for fp in files {
                outcome = run.file(fp, origfile.as_deref());
                if outcome.is_err() {
                    break;
                }
                run.flush(io);
            }
            outcome
        }
        Err(parse::Malformed(m)) => Err(Fatal(m)),
    };
    run.flush(io);
    if !run.stdout_file.is_empty() {
        let _ = io.stdout.write_all(&run.stdout_file);
    }
    match result {
        Ok(()) => Ok(i32::from(run.somefailed)),
        Err(Fatal(m)) => {
            let _ = io.stdout.flush();
            Err(fatal(m))
        }
    }
}
