//! command: patch
//! `patch`: applies unified, context and normal diffs (GNU patch 2.7): -p, -i, -R, -N,
//! --dry-run, -s, -o, -b/-z/-B/-Y, -E, -F, -l, -r, -t/-f; hunks found at an offset or with
//! fuzz say so, failed ones go to FILE.rej, reversed patches are detected (there is no
//! terminal to ask, so the questions get their default answers, as GNU does without one).
//! Files are created and deleted as the patch says. Exit 0, 1 (some hunks failed), 2.

#[path = "patch/apply.rs"]
mod apply;
#[path = "patch/parse.rs"]
mod parse;

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use common::args::{bytes_os, os_bytes, parse as parse_args, Order, Parsed};
use common::quotearg::shell_quote_str;
use common::{strerror, HasArg, Io, OptSpec};

use apply::Applier;
use parse::{FilePatch, Hunk, Kind};

const SPEC: &[OptSpec] = &[
    OptSpec::flag("backup", 'b', "backup"),
    OptSpec::both("prefix", 'B', "prefix", HasArg::Required),
    OptSpec::flag("context", 'c', "context"),
    OptSpec::both("directory", 'd', "directory", HasArg::Required),
    OptSpec::both("ifdef", 'D', "ifdef", HasArg::Required),
    OptSpec::flag("ed", 'e', "ed"),
    OptSpec::flag("remove-empty-files", 'E', "remove-empty-files"),
    OptSpec::flag("force", 'f', "force"),
    OptSpec::both("fuzz", 'F', "fuzz", HasArg::Required),
    OptSpec::both("get", 'g', "get", HasArg::Required),
    OptSpec::both("input", 'i', "input", HasArg::Required),
    OptSpec::flag("ignore-whitespace", 'l', "ignore-whitespace"),
    OptSpec::flag("normal", 'n', "normal"),
    OptSpec::flag("forward", 'N', "forward"),
    OptSpec::both("output", 'o', "output", HasArg::Required),
    OptSpec::both("strip", 'p', "strip", HasArg::Required),
    OptSpec::both("reject-file", 'r', "reject-file", HasArg::Required),
    OptSpec::flag("reverse", 'R', "reverse"),
    OptSpec::flag("quiet", 's', "quiet"),
    OptSpec::long("quiet", "silent", HasArg::No),
    OptSpec::flag("batch", 't', "batch"),
    OptSpec::flag("set-time", 'T', "set-time"),
    OptSpec::flag("unified", 'u', "unified"),
    OptSpec::flag("version", 'v', "version"),
    OptSpec::both("version-control", 'V', "version-control", HasArg::Required),
    OptSpec::both("debug", 'x', "debug", HasArg::Required),
    OptSpec::both("basename-prefix", 'Y', "basename-prefix", HasArg::Required),
    OptSpec::both("suffix", 'z', "suffix", HasArg::Required),
    OptSpec::flag("set-utc", 'Z', "set-utc"),
    OptSpec::long("dry-run", "dry-run", HasArg::No),
    OptSpec::long("verbose", "verbose", HasArg::No),
    OptSpec::long("binary", "binary", HasArg::No),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::long("backup-if-mismatch", "backup-if-mismatch", HasArg::No),
    OptSpec::long("no-backup-if-mismatch", "no-backup-if-mismatch", HasArg::No),
    OptSpec::long("posix", "posix", HasArg::No),
    OptSpec::long("quoting-style", "quoting-style", HasArg::Required),
    OptSpec::long("reject-format", "reject-format", HasArg::Required),
    OptSpec::long("read-only", "read-only", HasArg::Required),
    OptSpec::long("follow-symlinks", "follow-symlinks", HasArg::No),
];

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

struct Options {
    strip: i64,
    reverse: bool,
    forward: bool,
    dry_run: bool,
    silent: bool,
    verbose: bool,
    batch: bool,
    force: bool,
    backup: bool,
    backup_if_mismatch: Option<bool>,
    remove_empty: bool,
    output: Option<Vec<u8>>,
    reject_file: Option<Vec<u8>>,
    fuzz: isize,
    ignore_whitespace: bool,
    kind: Option<Kind>,
    suffix: Vec<u8>,
    suffix_given: bool,
    prefix: Option<Vec<u8>>,
    basename_prefix: Option<Vec<u8>>,
    posix: bool,
    reject_format: Option<Kind>,
}

/// A fatal error: `patch: **** message`, exit 2.
struct Fatal(String);

/// Output and bookkeeping across the file sections of one run.
struct Run<'o> {
    opts: &'o Options,
    say: Vec<u8>,
    to_stderr: bool,
    somefailed: bool,
    backed_up: HashSet<Vec<u8>>,
    rejects_created: HashSet<Vec<u8>>,
    stdout_file: Vec<u8>,
}

fn usage(io: &mut Io, message: &str) -> i32 {
    let _ = writeln!(io.stderr, "{}: {}", io.name, message);
    let _ = writeln!(io.stderr, "{}: Try '{} --help' for more information.", io.name, io.name);
    2
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

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse_args(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => return usage(io, &e.to_string()),
    };
    let mut o = Options {
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
    };
    let mut operands = Vec::new();
    let mut input: Option<Vec<u8>> = None;
    for item in parsed {
        let (id, value) = match item {
            Parsed::Operand(v) => {
                operands.push(v);
                continue;
            }
            Parsed::Opt { id, value } => (id, value),
        };
        let bytes = value.as_ref().map(|v| os_bytes(v).to_vec()).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let fatal = |io: &mut Io, m: String| {
            let _ = writeln!(io.stderr, "{}: **** {}", io.name, m);
            2
        };
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
                    return fatal(io, format!("Can't change to directory {} : {}", shell_quote_str(&bytes), strerror(&e)));
                }
            }
            "remove-empty-files" => o.remove_empty = true,
            "force" => o.force = true,
            "fuzz" => match number(&text, "fuzz factor") {
                Ok(n) => o.fuzz = n as isize,
                Err(m) => return fatal(io, m),
            },
            "strip" => match number(&text, "strip count") {
                Ok(n) => o.strip = n,
                Err(m) => return fatal(io, m),
            },
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
                _ => return usage(io, &format!("invalid argument '{}' for '--reject-format'", text)),
            },
            "help" => {
                let _ = io.out(HELP.as_bytes());
                return 0;
            }
            "version" => {
                let _ = io.out(common::version_text("patch").as_bytes());
                return 0;
            }
            other => {
                let shown = SPEC.iter().find(|s| s.id == other).and_then(|s| s.long).unwrap_or(other);
                return usage(io, &format!("option not supported in the sandbox: --{}", shown));
            }
        }
    }
    if operands.len() > 2 {
        let _ = writeln!(io.stderr, "{}: {}: extra operand", io.name, shell_quote_str(os_bytes(&operands[2])));
        let _ = writeln!(io.stderr, "{}: Try '{} --help' for more information.", io.name, io.name);
        return 2;
    }
    let origfile = operands.first().map(|o| os_bytes(o).to_vec());
    if let Some(p) = operands.get(1) {
        input = Some(os_bytes(p).to_vec());
    }
    let data = match &input {
        Some(p) if p.as_slice() != b"-" => match std::fs::read(path(p)) {
            Ok(d) => d,
            Err(e) => {
                let _ = writeln!(io.stderr, "{}: **** Can't open patch file {} : {}", io.name, shell_quote_str(p), strerror(&e));
                return 2;
            }
        },
        _ => {
            let mut buf = Vec::new();
            if let Err(e) = io.stdin.read_to_end(&mut buf) {
                let _ = writeln!(io.stderr, "{}: **** read error : {}", io.name, strerror(&e));
                return 2;
            }
            buf
        }
    };
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
        Ok(()) => i32::from(run.somefailed),
        Err(Fatal(m)) => {
            let _ = io.stdout.flush();
            let _ = writeln!(io.stderr, "{}: **** {}", io.name, m);
            2
        }
    }
}

/// GNU's best_name: fewest directory components, then shortest base name, then shortest
/// name, among the names not ignored.
fn best_name(names: &[Option<Vec<u8>>; 3], ignore: [bool; 3]) -> Option<usize> {
    let comps = |n: &[u8]| n.iter().enumerate().filter(|(i, &c)| c == b'/' && *i + 1 < n.len() && (*i == 0 || n[i - 1] != b'/')).count();
    let base_len = |n: &[u8]| n.len() - n.iter().rposition(|&c| c == b'/').map_or(0, |p| p + 1);
    let candidates: Vec<usize> = (0..3).filter(|&i| names[i].is_some() && !ignore[i]).collect();
    let key = |i: usize| {
        let n = names[i].as_deref().unwrap_or(b"");
        (comps(n), base_len(n), n.len())
    };
    let best = candidates.iter().map(|&i| key(i)).min()?;
    candidates.into_iter().find(|&i| key(i) == best)
}

/// Directories that creating `name` would have to make.
fn new_dirs(name: &[u8]) -> usize {
    let mut count = 0;
    for (i, &c) in name.iter().enumerate() {
        if c == b'/' && i > 0 && name[i - 1] != b'/' && !path(&name[..i]).is_dir() {
            count += 1;
        }
    }
    count
}

impl<'o> Run<'o> {
    fn say(&mut self, text: &str) {
        self.say.extend_from_slice(text.as_bytes());
    }

    fn flush(&mut self, io: &mut Io) {
        if self.to_stderr {
            let _ = io.stderr.write_all(&self.say);
        } else {
            let _ = io.stdout.write_all(&self.say);
        }
        self.say.clear();
    }

    /// A question with no terminal to answer it: the prompt, a newline, the default.
    fn ask(&mut self, prompt: &str) {
        self.say(prompt);
        self.say("\n");
    }

    /// GNU's ok_to_reverse. Returns (reverse?, skip the rest?).
    fn ok_to_reverse(&mut self, message: &str, reverse: bool) -> (bool, bool) {
        let o = self.opts;
        if o.forward || !(o.force && o.silent) {
            self.say(message);
        }
        if o.forward {
            self.say("  Skipping patch.\n");
            return (false, true);
        }
        if o.force {
            if !o.silent {
                self.say("  Applying it anyway.\n");
            }
            return (false, false);
        }
        if o.batch {
            self.say(if reverse { "  Ignoring -R.\n" } else { "  Assuming -R.\n" });
            return (true, false);
        }
        self.ask(if reverse { "  Ignore -R? [n] " } else { "  Assume -R? [n] " });
        self.ask("Apply anyway? [n] ");
        if !o.silent {
            self.say("Skipping patch.\n");
        }
        (false, true)
    }

    fn backup_name(&self, name: &[u8]) -> Vec<u8> {
        let (dir, base) = match name.iter().rposition(|&c| c == b'/') {
            Some(p) => (&name[..=p], &name[p + 1..]),
            None => (&b""[..], name),
        };
        let mut out = self.opts.prefix.clone().unwrap_or_default();
        out.extend_from_slice(dir);
        if let Some(bp) = &self.opts.basename_prefix {
            out.extend_from_slice(bp);
        }
        out.extend_from_slice(base);
        // With -B or -Y the suffix is added only when -z was given too.
        if (self.opts.prefix.is_none() && self.opts.basename_prefix.is_none()) || self.opts.suffix_given {
            out.extend_from_slice(&self.opts.suffix);
        }
        out
    }

    /// Saves the current contents of `name` (an empty file when it does not exist), once.
    fn make_backup(&mut self, name: &[u8]) -> Result<(), Fatal> {
        if self.opts.dry_run || !self.backed_up.insert(name.to_vec()) {
            return Ok(());
        }
        let target = self.backup_name(name);
        let contents = std::fs::read(path(name)).unwrap_or_default();
        if let Some(p) = path(&target).parent() {
            let _ = std::fs::create_dir_all(p);
        }
        std::fs::write(path(&target), contents).map_err(|e| Fatal(format!("Can't create file {} : {}", shell_quote_str(&target), strerror(&e))))
    }

    /// Chooses the file to patch (GNU's intuit_diff_type naming rules). Returns the name,
    /// whether it exists, and whether the patch must be skipped.
    fn choose_file(&mut self, fp: &FilePatch, reverse: &mut bool) -> (Option<Vec<u8>>, bool, bool) {
        let mut names = fp.names.clone();
        if (names[0].is_some() || names[1].is_some()) && names[2].is_some() && !self.opts.posix {
            names[2] = None;
        }
        let meta = |n: &Option<Vec<u8>>| n.as_ref().and_then(|n| common::fsext::metadata(&path(n), false).ok());
        let metas = [meta(&names[0]), meta(&names[1]), meta(&names[2])];
        let exists = [metas[0].is_some(), metas[1].is_some(), metas[2].is_some()];
        let last_named = (0..3).rev().find(|&i| names[i].is_some());
        let mut chosen = best_name(&names, [!exists[0], !exists[1], !exists[2]]);
        let mut skip = false;
        if let Some(i0) = last_named {
            let regular = chosen.map_or(true, |i| metas[i].map_or(false, |m| !m.is_dir()));
            if regular {
                let target = chosen.unwrap_or(i0);
                let nonexistent = chosen.is_none();
                let is_empty = nonexistent || metas[target].map_or(true, |m| m.size == 0);
                let name = names[target].clone().unwrap_or_default();
                let (reversed, s) = self.maybe_reverse(fp, &name, nonexistent, is_empty, reverse);
                skip |= s;
                if reversed && chosen.is_none() {
                    chosen = Some(i0);
                }
            }
        }
        if chosen.is_none() && fp.says_nonexistent[*reverse as usize] != 0 {
            let dirs: Vec<Option<usize>> = names.iter().map(|n| n.as_ref().map(|n| new_dirs(n))).collect();
            let min = dirs.iter().flatten().min().copied();
            if let Some(min) = min {
                let ignore = [dirs[0].map_or(true, |d| d > min), dirs[1].map_or(true, |d| d > min), dirs[2].map_or(true, |d| d > min)];
                chosen = best_name(&names, ignore);
            }
        }
        match chosen {
            Some(i) => (names[i].clone(), exists[i], skip),
            None => (None, false, skip),
        }
    }

    /// GNU's maybe_reverse: a patch that creates an existing file or deletes a missing one
    /// looks reversed. Returns (looked reversed, skip).
    fn maybe_reverse(&mut self, fp: &FilePatch, name: &[u8], nonexistent: bool, is_empty: bool, reverse: &mut bool) -> (bool, bool) {
        let says = |k: bool| fp.says_nonexistent[k as usize];
        let looks_reversed = (!is_empty as u8) < says(*reverse ^ is_empty);
        if is_empty && says(*reverse ^ nonexistent) == 1 && says(!*reverse ^ nonexistent) == 2 {
            return (false, false);
        }
        if !looks_reversed {
            return (false, false);
        }
        let message = format!(
            "The next patch{} would {} the file {},\nwhich {}!",
            if *reverse { ", when reversed," } else { "" },
            if nonexistent {
                "delete"
            } else if is_empty {
                "empty out"
            } else {
                "create"
            },
            shell_quote_str(name),
            if nonexistent {
                "does not exist"
            } else if is_empty {
                "is already empty"
            } else {
                "already exists"
            }
        );
        let (r, skip) = self.ok_to_reverse(&message, *reverse);
        if r {
            *reverse = !*reverse;
        }
        (true, skip)
    }

    fn file(&mut self, fp: FilePatch, origfile: Option<&[u8]>) -> Result<(), Fatal> {
        let o = self.opts;
        let mut reverse = o.reverse;
        let kind = fp.kind.unwrap_or(Kind::Unified);
        let (inname, mut skip) = match origfile {
            Some(name) => {
                let meta = common::fsext::metadata(&path(name), true);
                let mut skip = false;
                if meta.as_ref().map_or(true, |m| !m.is_dir()) {
                    let missing = meta.is_err();
                    let empty = missing || meta.as_ref().map_or(true, |m| m.size == 0);
                    skip = self.maybe_reverse(&fp, name, missing, empty, &mut reverse).1;
                }
                (Some(name.to_vec()), skip)
            }
            None => {
                let (name, _, skip) = self.choose_file(&fp, &mut reverse);
                (name, skip)
            }
        };
        let total = fp.hunks.len();
        let inname = match inname {
            Some(n) => n,
            None => {
                if !o.silent {
                    self.say(&format!("can't find file to patch at input line {}\n", fp.start_line));
                    if kind != Kind::Normal {
                        self.say(if o.strip < 0 { "Perhaps you should have used the -p or --strip option?\n" } else { "Perhaps you used the wrong -p or --strip option?\n" });
                    }
                    if !fp.leading.is_empty() {
                        self.say("The text leading up to this was:\n--------------------------\n");
                        for l in &fp.leading {
                            self.say.push(b'|');
                            self.say.extend_from_slice(l);
                        }
                        self.say("--------------------------\n");
                    }
                }
                if o.force || o.batch {
                    self.say("No file to patch.  Skipping patch.\n");
                } else {
                    self.ask("File to patch: ");
                    self.ask("Skip this patch? [y] ");
                    if !o.silent {
                        self.say("Skipping patch.\n");
                    }
                }
                self.somefailed = true;
                self.say(&format!("{} out of {} hunk{} ignored\n", total, total, if total == 1 { "" } else { "s" }));
                return Ok(());
            }
        };
        if skip {
            self.somefailed = true;
            self.say(&format!("{} out of {} hunk{} ignored\n", total, total, if total == 1 { "" } else { "s" }));
            return Ok(());
        }
        let outname = o.output.clone().unwrap_or_else(|| inname.clone());
        let input = match std::fs::read(path(&inname)) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Fatal(format!("Can't open file {} : {}", shell_quote_str(&inname), strerror(&e)))),
        };
        if !o.silent {
            let verb = if o.dry_run { "checking" } else { "patching" };
            if outname != inname {
                self.say(&format!("{} file {} (read from {})\n", verb, shell_quote_str(&outname), String::from_utf8_lossy(&inname)));
            } else {
                self.say(&format!("{} file {}\n", verb, shell_quote_str(&outname)));
            }
        }
        let mut applier = Applier::new(&input, o.ignore_whitespace);
        let mut rej: Vec<u8> = Vec::new();
        let mut failed = 0;
        let mut mismatch = false;
        let mut apply_anyway = false;
        let reject_kind = o.reject_format.unwrap_or(kind);
        for (index, original) in fp.hunks.iter().enumerate() {
            let number = index + 1;
            let mut hunk: Hunk = if reverse { original.swapped() } else { original.clone() };
            let context = hunk.prefix_context.max(hunk.suffix_context) as isize;
            let max_fuzz = o.fuzz.min(context);
            let mut where_ = 0;
            let mut fuzz: isize = 0;
            if !skip {
                loop {
                    let mut incr = 1;
                    where_ = applier.locate(&hunk, fuzz);
                    if where_ == 0 || fuzz != 0 || applier.in_offset != 0 {
                        mismatch = true;
                    }
                    if number == 1 && where_ == 0 && !(o.force || apply_anyway) && reverse == o.reverse {
                        let swapped = hunk.swapped();
                        where_ = applier.locate(&swapped, fuzz);
                        let message = if reverse { "Unreversed patch detected!" } else { "Reversed (or previously applied) patch detected!" };
                        let mut accepted = false;
                        if where_ != 0 {
                            let (r, s) = self.ok_to_reverse(message, reverse);
                            skip = s;
                            accepted = r;
                        }
                        if accepted {
                            reverse = !reverse;
                            hunk = swapped;
                        } else if where_ != 0 {
                            apply_anyway = true;
                            incr = 0;
                            where_ = 0;
                        }
                    }
                    if skip || where_ != 0 {
                        break;
                    }
                    fuzz += incr;
                    if fuzz > max_fuzz {
                        break;
                    }
                }
            }
            let newwhere = if where_ != 0 { where_ } else { hunk.first as isize } + applier.out_offset;
            let ok = !skip && where_ != 0 && !(where_ == 1 && fp.says_nonexistent[reverse as usize] == 2 && !input.is_empty()) && applier.apply(&hunk, where_);
            if !ok {
                let header = if failed == 0 {
                    let names = fp.names.clone();
                    let line = |k: usize| {
                        let mut v = names[k].clone().unwrap_or_else(|| b"/dev/null".to_vec());
                        v.extend_from_slice(fp.timestr[k].as_deref().unwrap_or(b""));
                        v
                    };
                    Some(if reverse { [line(1), line(0)] } else { [line(0), line(1)] })
                } else {
                    None
                };
                apply::reject(&mut rej, reject_kind, header.as_ref(), fp.names[2].as_deref(), &hunk, applier.out_offset);
                failed += 1;
                if o.verbose || (!skip && !o.silent) {
                    let endings = if !skip && applier.line_endings_differ(&hunk, newwhere) { " (different line endings)" } else { "" };
                    self.say(&format!("Hunk #{} {} at {}{}.\n", number, if skip { "ignored" } else { "FAILED" }, newwhere, endings));
                }
            } else if o.verbose || (!o.silent && (fuzz != 0 || applier.in_offset != 0)) {
                let mut text = format!("Hunk #{} succeeded at {}", number, newwhere);
                if fuzz != 0 {
                    text.push_str(&format!(" with fuzz {}", fuzz));
                }
                if applier.in_offset != 0 {
                    text.push_str(&format!(" (offset {} line{})", applier.in_offset, if applier.in_offset == 1 { "" } else { "s" }));
                }
                text.push_str(".\n");
                self.say(&text);
            }
        }
        if !skip {
            applier.finish();
            let backup = o.backup || (o.backup_if_mismatch.unwrap_or(!o.posix) && (mismatch || failed > 0));
            let says_gone = fp.says_nonexistent[!reverse as usize] == 2;
            if o.output.is_some() {
                if !o.dry_run {
                    self.write_output(&outname, &applier.out)?;
                }
            } else if applier.zero_output && (o.remove_empty || (says_gone && !o.posix)) {
                if !o.dry_run {
                    if backup {
                        self.make_backup(&outname)?;
                    }
                    if std::fs::remove_file(path(&outname)).is_ok() {
                        remove_empty_parents(&outname);
                    }
                }
            } else {
                if !applier.zero_output && says_gone && !o.posix {
                    self.somefailed = true;
                    if !o.silent {
                        self.say(&format!("Not deleting file {} as content differs from patch\n", shell_quote_str(&outname)));
                    }
                }
                if !o.dry_run {
                    if backup {
                        self.make_backup(&outname)?;
                    }
                    if failed < total {
                        self.write_output(&outname, &applier.out)?;
                    }
                }
            }
        }
        if failed > 0 {
            self.somefailed = true;
            self.say(&format!("{} out of {} hunk{} {}", failed, total, if total == 1 { "" } else { "s" }, if skip { "ignored" } else { "FAILED" }));
            let rejname = match &o.reject_file {
                Some(r) => r.clone(),
                None => {
                    let mut r = outname.clone();
                    r.extend_from_slice(b".rej");
                    r
                }
            };
            if rejname.as_slice() == b"-" || o.dry_run {
                self.say("\n");
            } else {
                self.say(&format!(" -- saving rejects to file {}\n", shell_quote_str(&rejname)));
                let append = !self.rejects_created.insert(rejname.clone());
                let result = if append {
                    std::fs::OpenOptions::new().append(true).open(path(&rejname)).and_then(|mut f| f.write_all(&rej))
                } else {
                    std::fs::write(path(&rejname), &rej)
                };
                result.map_err(|e| Fatal(format!("Can't create file {} : {}", shell_quote_str(&rejname), strerror(&e))))?;
            }
        }
        Ok(())
    }

    fn write_output(&mut self, name: &[u8], data: &[u8]) -> Result<(), Fatal> {
        if name == b"-" {
            self.stdout_file.extend_from_slice(data);
            return Ok(());
        }
        if let Some(parent) = path(name).parent() {
            if !parent.as_os_str().is_empty() {
                let _ = std::fs::create_dir_all(parent);
            }
        }
        std::fs::write(path(name), data).map_err(|e| Fatal(format!("Can't create file {} : {}", shell_quote_str(name), strerror(&e))))
    }
}

/// After deleting a file, removes the directories it leaves empty (GNU does too).
fn remove_empty_parents(name: &[u8]) {
    let mut p = path(name);
    while p.pop() {
        if p.as_os_str().is_empty() || std::fs::remove_dir(&p).is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_names() {
        let names = [Some(b"a/b/f".to_vec()), Some(b"b/f".to_vec()), None];
        assert_eq!(best_name(&names, [false, false, true]), Some(1));
        assert_eq!(best_name(&names, [false, true, true]), Some(0));
        assert_eq!(best_name(&names, [true, true, true]), None);
    }
}
