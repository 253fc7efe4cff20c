//! `sort`: sorts, merges (-m) or checks (-c/-C) lines. All input is read into one buffer
//! and lines are sorted as (start, end) offsets into it, never as owned strings. Without
//! keys or ordering options the comparison is a plain byte compare (memcmp); otherwise
//! `sort/keys.rs` compares key by key and, unless -s or -u, falls back to the whole line
//! like GNU's "last resort" comparison. The sort is stable, as GNU's merge sort is.

use std::cmp::Ordering;
use std::ffi::OsString;
use std::io::{self, Read, Write};

use common::args::{os_bytes, Command, Order, Parsed};
use common::io::{open_input, quote};
use common::{strerror, Io, UError};

#[path = "sort/compare.rs"]
mod compare;
#[path = "sort/keys.rs"]
mod keys;

use keys::{Key, RandomSalt};

const SPEC: &str = "b,ignore-leading-blanks d,dictionary-order f,ignore-case g,general-numeric-sort i,ignore-nonprinting M,month-sort h,human-numeric-sort n,numeric-sort R,random-sort random-source: r,reverse sort: V,version-sort batch-size: c check:: C compress-program: debug files0-from: k,key: m,merge o,output: s,stable S,buffer-size: t,field-separator: T,temporary-directory: parallel: u,unique z,zero-terminated";

const SORT: Command = Command { usage_status: STATUS_TROUBLE, order: Order::Permute, ..Command::compact("sort", SPEC, HELP) };

const HELP: &str = "Usage: sort [OPTION]... [FILE]...
  or:  sort [OPTION]... --files0-from=F
Write sorted concatenation of all FILE(s) to standard output.

With no FILE, or when FILE is -, read standard input.

Ordering options:
  -b, --ignore-leading-blanks  ignore leading blanks
  -d, --dictionary-order      consider only blanks and alphanumeric characters
  -f, --ignore-case           fold lower case to upper case characters
  -g, --general-numeric-sort  compare according to general numerical value
  -i, --ignore-nonprinting    consider only printable characters
  -M, --month-sort            compare (unknown) < 'JAN' < ... < 'DEC'
  -h, --human-numeric-sort    compare human readable numbers (e.g., 2K 1G)
  -n, --numeric-sort          compare according to string numerical value
  -R, --random-sort           shuffle, but group identical keys
      --random-source=FILE    get random bytes from FILE
  -r, --reverse               reverse the result of comparisons
      --sort=WORD             sort according to WORD:
                                general-numeric -g, human-numeric -h, month -M,
                                numeric -n, random -R, version -V
  -V, --version-sort          natural sort of (version) numbers within text

Other options:
  -c, --check, --check=diagnose-first  check for sorted input; do not sort
  -C, --check=quiet, --check=silent  like -c, but do not report first bad line
      --files0-from=F       read input from the files specified by
                            NUL-terminated names in file F
  -k, --key=KEYDEF          sort via a key; KEYDEF gives location and type
  -m, --merge               merge already sorted files; do not sort
  -o, --output=FILE         write result to FILE instead of standard output
  -s, --stable              stabilize sort by disabling last-resort comparison
  -S, --buffer-size=SIZE    (accepted; the sandbox sorts in memory)
  -t, --field-separator=SEP  use SEP instead of non-blank to blank transition
  -T, --temporary-directory=DIR  (accepted; no temporary files are used)
      --parallel=N          (accepted; the sandbox sorts on one thread)
  -u, --unique              with -c, check for strict ordering;
                              without -c, output only the first of an equal run
  -z, --zero-terminated     line delimiter is NUL, not newline
{standard}
KEYDEF is F[.C][OPTS][,F[.C][OPTS]] for start and stop position, where F is a
field number and C a character position in the field; both are origin 1, and
the stop position defaults to the line's end.  OPTS is one or more single-letter
ordering options [bdfgiMhnRrV], which override global ordering options for
that key.
";

const STATUS_TROUBLE: i32 = 2;

#[derive(PartialEq, Eq, Clone, Copy)]
enum Check {
    No,
    Diagnose,
    Quiet,
}

struct Config {
    keys: Vec<Key>,
    global: Key,
    tab: Option<u8>,
    stable: bool,
    unique: bool,
    delimiter: u8,
    salt: RandomSalt,
}

impl Config {
    /// Whether a plain byte comparison of whole lines gives the order (the fast path).
    fn is_plain(&self) -> bool {
        self.keys.is_empty()
    }

    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        self.compare_with_first(a, b, None)
    }

    /// Compares two lines; `first` is their first key when already known.
    fn compare_with_first(&self, a: &[u8], b: &[u8], first: Option<(&[u8], &[u8])>) -> Ordering {
        if self.keys.is_empty() {
            let o = a.cmp(b);
            return if self.global.reverse { o.reverse() } else { o };
        }
        let o = keys::compare_keys(a, b, first, &self.keys, self.tab, &self.salt);
        if o != Ordering::Equal || self.stable || self.unique {
            return o;
        }
        let last = a.cmp(b);
        if self.global.reverse {
            last.reverse()
        } else {
            last
        }
    }
}

/// Rewrites the obsolete `+POS1 [-POS2]` operands into keys (GNU still accepts them).
fn take_obsolete_keys(args: &[OsString]) -> (Vec<OsString>, Vec<(usize, Key)>) {
    let mut out = Vec::new();
    let mut found = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = os_bytes(&args[i]);
        if a == b"--" {
            out.extend(args[i..].iter().cloned());
            break;
        }
        if a.len() > 1 && a[0] == b'+' && a[1].is_ascii_digit() {
            let next = args.get(i + 1).map(|n| os_bytes(n)).filter(|n| n.len() > 1 && n[0] == b'-' && n[1].is_ascii_digit());
            if let Some(key) = keys::parse_obsolete(a, next) {
                found.push((out.len(), key));
                i += if next.is_some() { 2 } else { 1 };
                continue;
            }
        }
        out.push(args[i].clone());
        i += 1;
    }
    (out, found)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (rest, obsolete) = take_obsolete_keys(&args[1..]);
    let mut global = Key::whole_line();
    let mut keys: Vec<Key> = obsolete.into_iter().map(|(_, k)| k).collect();
    let mut files: Vec<OsString> = Vec::new();
    let mut check = Check::No;
    let mut merge = false;
    let mut output: Option<OsString> = None;
    let mut stable = false;
    let mut unique = false;
    let mut delimiter = b'\n';
    let mut tab: Option<u8> = None;
    let mut random_source: Option<OsString> = None;
    let mut files0: Option<OsString> = None;
    SORT.options_after_name(&rest, io, &mut |_, p| {
        let (id, value) = match p {
            Parsed::Operand(f) => {
                files.push(f);
                return Ok(());
            }
            Parsed::Opt { id, value } => (id, value.unwrap_or_default()),
        };
        let text = value.to_string_lossy().into_owned();
        match id {
            "b" | "d" | "f" | "g" | "i" | "M" | "h" | "n" | "R" | "r" | "V" => {
                global.set_option(id.as_bytes()[0], false);
                if id == "b" {
                    global.skip_end_blanks = true;
                }
            }
            "sort" => {
                let letter = match text.as_str() {
                    "general-numeric" => b'g',
                    "human-numeric" => b'h',
                    "month" => b'M',
                    "numeric" => b'n',
                    "random" => b'R',
                    "version" => b'V',
                    _ => {
                        return Err(UError::usage(STATUS_TROUBLE, format!("invalid argument {} for '--sort'\nValid arguments are:\n  - 'general-numeric'\n  - 'human-numeric'\n  - 'month'\n  - 'numeric'\n  - 'random'\n  - 'version'", quote(&value))));
                    }
                };
                global.set_option(letter, false);
            }
            "random-source" => random_source = Some(value),
            "c" => check = Check::Diagnose,
            "C" => check = Check::Quiet,
            "check" => match text.as_str() {
                "" | "diagnose-first" => check = Check::Diagnose,
                "quiet" | "silent" => check = Check::Quiet,
                _ => {
                    return Err(UError::usage(STATUS_TROUBLE, format!("invalid argument {} for '--check'\nValid arguments are:\n  - 'diagnose-first'\n  - 'quiet', 'silent'", quote(&value))));
                }
            },
            "compress-program" | "debug" => {
                return Err(UError::new(STATUS_TROUBLE, format!("option not supported in the sandbox: --{}", id)));
            }
            "files0-from" => files0 = Some(value),
            "k" => match keys::parse_keydef(&text) {
                Ok(k) => keys.push(k),
                Err(message) => {
                    return Err(UError::new(STATUS_TROUBLE, message));
                }
            },
            "m" => merge = true,
            "o" => {
                if output.as_ref().map_or(false, |o| *o != value) {
                    return Err(UError::new(STATUS_TROUBLE, "multiple output files specified"));
                }
                output = Some(value);
            }
            "s" => stable = true,
            "S" | "batch-size" | "parallel" | "T" => {}
            "t" => {
                let sep = tab_char(&value)?;
                if tab.map_or(false, |t| t != sep) {
                    return Err(UError::new(STATUS_TROUBLE, "incompatible tabs"));
                }
                tab = Some(sep);
            }
            "u" => unique = true,
            "z" => delimiter = 0,
            _ => {}
        }
        Ok(())
    })?;
    for key in keys.iter_mut() {
        if key.has_no_ordering() && !key.reverse {
            key.inherit(&global);
        }
    }
    if keys.is_empty() && !global.has_no_ordering() {
        keys.push(global.clone());
    }
    for key in &keys {
        if let Some(letters) = key.conflict() {
            io.error(format!("options '-{}' are incompatible", letters));
            return Ok(STATUS_TROUBLE);
        }
    }
    if let Some(list) = files0 {
        if let Some(extra) = files.first() {
            return Err(UError::usage(STATUS_TROUBLE, format!("extra operand {}\nfile operands cannot be combined with --files0-from", quote(extra))));
        }
        match common::io::read_names0(&list, &mut *io.stdin) {
            Ok(names) => files = names,
            Err(e) => {
                io.error(format!("cannot open {} for reading: {}", quote(&list), strerror(&e)));
                return Ok(STATUS_TROUBLE);
            }
        }
    }
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let salt = make_salt(random_source.as_ref()).map_err(|e| {
        let source = random_source.unwrap_or_default();
        let message = if e.kind() == io::ErrorKind::UnexpectedEof { format!("{}: end of file", quote(&source)) } else { format!("open failed: {}: {}", source.to_string_lossy(), strerror(&e)) };
        UError::new(STATUS_TROUBLE, message)
    })?;
    let config = Config { keys, global, tab, stable, unique, delimiter, salt };
    if check != Check::No {
        if files.len() > 1 {
            return Err(UError::usage(STATUS_TROUBLE, format!("extra operand {} not allowed with -c", quote(&files[1]))));
        }
        return Ok(check_sorted(io, &files[0], &config, check == Check::Diagnose));
    }
    let mut data = Vec::new();
    let mut starts = Vec::new();
    for file in &files {
        starts.push(data.len());
        if let Err(status) = read_input(io, file, delimiter, &mut data) {
            return Ok(status);
        }
    }
    let lines = if merge { merge_lines(&data, &starts, &config) } else { sort_lines(&data, &config) };
    write_output(io, output, &data, &lines, &config)
}

/// Writes the sorted lines to stdout or to -o's file (opened only now, so `-o` may name an input).
fn write_output(io: &mut Io, output: Option<OsString>, data: &[u8], lines: &[(usize, usize)], config: &Config) -> Result<i32, UError> {
    match output {
        None => match write_lines(io.stdout, data, lines, config) {
            Ok(()) => Ok(0),
            Err(e) => Err(UError::write(&e)),
        },
        Some(path) => {
            let result = std::fs::File::create(&path).and_then(|f| {
                let mut w = io::BufWriter::with_capacity(64 * 1024, f);
                write_lines(&mut w, data, lines, config)?;
                w.flush()
            });
            match result {
                Ok(()) => Ok(0),
                Err(e) => Err(UError::new(STATUS_TROUBLE, format!("open failed: {}: {}", path.to_string_lossy(), strerror(&e)))),
            }
        }
    }
}

/// `-t SEP`: one byte, or `\0` for NUL.
fn tab_char(value: &OsString) -> Result<u8, UError> {
    let bytes = os_bytes(value);
    Ok(match bytes {
        [] => {
            return Err(UError::new(STATUS_TROUBLE, "empty tab"));
        }
        [c] => *c,
        b"\\0" => 0,
        _ => {
            return Err(UError::new(STATUS_TROUBLE, format!("multi-character tab {}", quote(&value))));
        }
    })
}

fn make_salt(source: Option<&OsString>) -> io::Result<RandomSalt> {
    match source {
        Some(path) => {
            // GNU seeds its hash with the first 16 bytes and fails on a shorter source.
            let mut bytes = Vec::new();
            std::fs::File::open(path)?.take(16).read_to_end(&mut bytes)?;
            if bytes.len() < 16 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file"));
            }
            Ok(RandomSalt(bytes))
        }
        None => {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u8(0);
            Ok(RandomSalt(h.finish().to_le_bytes().to_vec()))
        }
    }
}

/// Appends an input to `data`, ending it with the delimiter.
fn read_input(io: &mut Io, file: &OsString, delimiter: u8, data: &mut Vec<u8>) -> Result<(), i32> {
    {
        let before = data.len();
        let result = open_input(file, &mut *io.stdin).map_err(|e| (true, e)).and_then(|mut input| input.reader().read_to_end(data).map_err(|e| (false, e)));
        if let Err((opening, e)) = result {
            let is_dir = std::fs::metadata(file).map(|m| m.is_dir()).unwrap_or(false);
            let what = if opening && !is_dir { "cannot read" } else { "read failed" };
            io.error(format!("{}: {}: {}", what, file.to_string_lossy(), strerror(&e)));
            return Err(STATUS_TROUBLE);
        }
        if data.len() > before && data.last() != Some(&delimiter) {
            data.push(delimiter);
        }
    }
    Ok(())
}

/// -m: merges the inputs (each assumed sorted); on ties the earlier input goes first.
fn merge_lines(data: &[u8], starts: &[usize], config: &Config) -> Vec<(usize, usize)> {
    let mut runs: Vec<Vec<(usize, usize)>> = Vec::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(data.len());
        runs.push(split_lines(&data[start..end], config.delimiter).into_iter().map(|(s, e)| (s + start, e + start)).collect());
    }
    let text = |l: (usize, usize)| &data[l.0..l.1];
    let mut heads = vec![0usize; runs.len()];
    let mut out: Vec<(usize, usize)> = Vec::new();
    loop {
        let mut best: Option<usize> = None;
        for r in 0..runs.len() {
            if heads[r] >= runs[r].len() {
                continue;
            }
            best = match best {
                Some(b) if config.compare(text(runs[b][heads[b]]), text(runs[r][heads[r]])) != Ordering::Greater => Some(b),
                _ => Some(r),
            };
        }
        let b = match best {
            Some(b) => b,
            None => return out,
        };
        let line = runs[b][heads[b]];
        heads[b] += 1;
        if config.unique {
            if let Some(&last) = out.last() {
                if config.compare(text(last), text(line)) == Ordering::Equal {
                    continue;
                }
            }
        }
        out.push(line);
    }
}

/// Line boundaries (without delimiters) in input order.
fn split_lines(data: &[u8], delimiter: u8) -> Vec<(usize, usize)> {
    let mut lines = Vec::with_capacity(data.len() / 32 + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(delimiter, data) {
        lines.push((start, end));
        start = end + 1;
    }
    if start < data.len() {
        lines.push((start, data.len()));
    }
    lines
}

fn sort_lines(data: &[u8], config: &Config) -> Vec<(usize, usize)> {
    let mut lines = split_lines(data, config.delimiter);
    let text = |l: &(usize, usize)| &data[l.0..l.1];
    if config.is_plain() {
        // Equal whole lines are identical, so an unstable sort gives the same output.
        if config.global.reverse {
            lines.sort_unstable_by(|a, b| text(b).cmp(text(a)));
        } else {
            lines.sort_unstable_by(|a, b| text(a).cmp(text(b)));
        }
    } else {
        // Like GNU, find each line's first key once rather than at every comparison.
        let first = &config.keys[0];
        let mut keyed: Vec<(usize, usize, usize, usize)> = lines
            .iter()
            .map(|&(s, e)| {
                let line = &data[s..e];
                let k = keys::key_slice(line, first, config.tab);
                let ks = s + (k.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
                (s, e, ks, ks + k.len())
            })
            .collect();
        keyed.sort_by(|a, b| config.compare_with_first(&data[a.0..a.1], &data[b.0..b.1], Some((&data[a.2..a.3], &data[b.2..b.3]))));
        lines = keyed.into_iter().map(|(s, e, _, _)| (s, e)).collect();
    }
    if config.unique {
        lines.dedup_by(|later, earlier| config.compare(text(earlier), text(later)) == Ordering::Equal);
    }
    lines
}

fn write_lines(out: &mut dyn Write, data: &[u8], lines: &[(usize, usize)], config: &Config) -> io::Result<()> {
    for &(s, e) in lines {
        // The delimiter follows every line in `data` (read_inputs adds a missing one).
        out.write_all(&data[s..=e.min(data.len() - 1)])?;
        if e == data.len() {
            out.write_all(&[config.delimiter])?;
        }
    }
    Ok(())
}

/// -c / -C: exit 1 at the first line out of order (reporting it with -c).
fn check_sorted(io: &mut Io, file: &OsString, config: &Config, diagnose: bool) -> i32 {
    let mut data = Vec::new();
    if let Err(status) = read_input(io, file, config.delimiter, &mut data) {
        return status;
    }
    let lines = split_lines(&data, config.delimiter);
    for (n, pair) in lines.windows(2).enumerate() {
        let (a, b) = (&data[pair[0].0..pair[0].1], &data[pair[1].0..pair[1].1]);
        let o = config.compare(a, b);
        if o == Ordering::Greater || (config.unique && o == Ordering::Equal) {
            if diagnose {
                let mut message = format!("{}: {}:{}: disorder: ", io.name, file.to_string_lossy(), n + 2).into_bytes();
                message.extend_from_slice(b);
                message.push(b'\n');
                let _ = io.stderr.write_all(&message);
            }
            return 1;
        }
    }
    0
}
