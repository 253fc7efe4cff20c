//! grep's options: GNU's `-NUM`, the option table, the help text, and what each option
//! sets before the patterns are compiled.

use std::ffi::{OsStr, OsString};

use common::args::{bytes_os, os_bytes, ArgError, UsageError};
use common::regex::{Flags, Flavor};
use common::{Command, Io, UError};

use super::{BinaryMode, Config, Walk};

const SPEC: &str = "E,extended-regexp F,fixed-strings G,basic-regexp P,perl-regexp e,regexp: f,file: i,ignore-case i=y no-ignore-case w,word-regexp x,line-regexp z,null-data s,no-messages v,invert-match m,max-count: b,byte-offset n,line-number line-buffered H,with-filename h,no-filename label: o,only-matching q,quiet q=silent binary-files: a,text I d,directories: D,devices: r,recursive R,dereference-recursive include: exclude: exclude-from: exclude-dir: L,files-without-match l,files-with-matches c,count T,initial-tab Z,null A,after-context: B,before-context: C,context: color:: color=colour:: U,binary group-separator: no-group-separator";

/// grep's usage errors print its usage line before GNU's hint and exit 2; `-V` is
/// `--version`.
pub(super) const GREP: Command = Command { usage_status: 2, standard: "help version,V", usage_error: Some(UsageError(bad_option)), ..Command::compact("grep", SPEC, HELP) };

fn bad_option(io: &mut Io, error: ArgError) -> UError {
    io.error(error);
    usage(io)
}

/// GNU grep's short usage on stderr, then its hint to try --help; status 2.
pub(super) fn usage(io: &mut Io) -> UError {
    let _ = writeln!(io.stderr, "Usage: {} [OPTION]... PATTERNS [FILE]...", io.name);
    UError { usage: true, ..UError::exit(2) }
}

/// GNU's `-NUM` (context NUM) becomes `--context=NUM` before option parsing (argv[0] kept).
pub(super) fn expand_digit_options(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut rest = false;
    for (i, a) in args.iter().enumerate() {
        let b = os_bytes(a);
        if i > 0 && !rest && b.len() > 1 && b[0] == b'-' && b[1..].iter().all(u8::is_ascii_digit) {
            let mut s = b"--context=".to_vec();
            s.extend_from_slice(&b[1..]);
            out.push(bytes_os(&s));
        } else {
            rest |= i > 0 && b == b"--";
            out.push(a.clone());
        }
    }
    out
}

fn context_number(value: &OsStr) -> Result<usize, UError> {
    match value.to_str().and_then(|s| s.parse::<u64>().ok()) {
        Some(n) => Ok(n.min(usize::MAX as u64 / 2) as usize),
        None => Err(UError::new(2, format!("{}: invalid context length argument", value.to_string_lossy()))),
    }
}

/// The lines of a pattern file (`-` is stdin), without the newline ending the last.
fn pattern_file(value: &OsStr, io: &mut Io) -> Result<Vec<Vec<u8>>, UError> {
    let data = if value == "-" {
        let mut d = Vec::new();
        io.stdin.read_to_end(&mut d).map(|_| d)
    } else {
        std::fs::read(value)
    };
    let mut data = data.map_err(|e| UError::io(2, value.to_string_lossy(), &e))?;
    if data.last() == Some(&b'\n') {
        data.pop();
    }
    if data.is_empty() {
        return Ok(Vec::new());
    }
    Ok(data.split(|b| *b == b'\n').map(|s| s.to_vec()).collect())
}

/// What grep's options ask for, before the patterns are compiled.
pub(super) struct Setup {
    pub(super) flavor: Flavor,
    pub(super) patterns: Vec<Vec<u8>>,
    pub(super) have_patterns: bool,
    pub(super) flags: Flags,
    pub(super) config: Config,
    pub(super) walk: Walk,
    pub(super) before: Option<usize>,
    pub(super) after: Option<usize>,
    pub(super) context: Option<usize>,
    pub(super) color: bool,
}

pub(super) fn setup(flavor: Flavor) -> Setup {
    let config = Config {
        invert: false,
        count_only: false,
        list_files: None,
        quiet: false,
        only_matching: false,
        line_number: false,
        byte_offset: false,
        initial_tab: false,
        null_after_name: false,
        max_count: None,
        before: 0,
        after: 0,
        colors: None,
        eol: b'\n',
        binary: BinaryMode::Binary,
        line_buffered: false,
        group_separator: Some(b"--".to_vec()),
        needs_line_numbers: false,
        context_given: false,
        heading: false,
        block_search: true,
    };
    let walk = Walk { recursive: false, dereference: false, includes: Vec::new(), excludes: Vec::new(), exclude_dirs: Vec::new(), skip_dirs: false, no_messages: false, with_filename: None, label: b"(standard input)".to_vec() };
    Setup { flavor, patterns: Vec::new(), have_patterns: false, flags: Flags { newline: true, ..Flags::default() }, config, walk, before: None, after: None, context: None, color: false }
}

/// Applies one option to `o`; an error ends grep (`--color=WHEN` with an unknown WHEN
/// prints the help, as GNU grep 3.8 does, and ends it with status 0).
pub(super) fn apply(o: &mut Setup, id: &str, value: OsString, io: &mut Io) -> Result<(), UError> {
    match id {
        "E" => o.flavor = Flavor::Extended,
        "F" => o.flavor = Flavor::Fixed,
        "G" => o.flavor = Flavor::Basic,
        "P" => o.flavor = Flavor::Perl,
        "e" => {
            o.patterns.extend(os_bytes(&value).split(|b| *b == b'\n').map(|s| s.to_vec()));
            o.have_patterns = true;
        }
        "f" => {
            o.patterns.extend(pattern_file(&value, io)?);
            o.have_patterns = true;
        }
        "i" => o.flags.icase = true,
        "no-ignore-case" => o.flags.icase = false,
        "w" => o.flags.whole_word = true,
        "x" => o.flags.whole_line = true,
        "z" => o.config.eol = 0,
        "s" => o.walk.no_messages = true,
        "v" => o.config.invert = true,
        "m" => match value.to_str().and_then(|s| s.parse::<i64>().ok()) {
            Some(n) => o.config.max_count = if n < 0 { None } else { Some(n as u64) },
            None => return Err(UError::new(2, "invalid max count")),
        },
        "b" => o.config.byte_offset = true,
        "n" => o.config.line_number = true,
        "line-buffered" => o.config.line_buffered = true,
        "H" => o.walk.with_filename = Some(true),
        "h" => o.walk.with_filename = Some(false),
        "label" => o.walk.label = os_bytes(&value).to_vec(),
        "o" => o.config.only_matching = true,
        "q" => o.config.quiet = true,
        "binary-files" => {
            o.config.binary = match value.to_str() {
                Some("binary") => BinaryMode::Binary,
                Some("text") => BinaryMode::Text,
                Some("without-match") => BinaryMode::WithoutMatch,
                _ => return Err(UError::new(2, "invalid argument for --binary-files")),
            }
        }
        "a" => o.config.binary = BinaryMode::Text,
        "I" => o.config.binary = BinaryMode::WithoutMatch,
        "d" => match value.to_str() {
            Some("read") => o.walk.skip_dirs = false,
            Some("skip") => o.walk.skip_dirs = true,
            Some("recurse") => o.walk.recursive = true,
            _ => return Err(UError::new(2, format!("invalid argument {} for '--directories'", common::io::quote(&value)))),
        },
        "r" => o.walk.recursive = true,
        "R" => {
            o.walk.recursive = true;
            o.walk.dereference = true;
        }
        "include" => o.walk.includes.push(os_bytes(&value).to_vec()),
        "exclude" => o.walk.excludes.push(os_bytes(&value).to_vec()),
        "exclude-from" => {
            let data = std::fs::read(&value).map_err(|e| UError::io(2, value.to_string_lossy(), &e))?;
            o.walk.excludes.extend(data.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec()));
        }
        "exclude-dir" => o.walk.exclude_dirs.push(os_bytes(&value).to_vec()),
        "L" => o.config.list_files = Some(false),
        "l" => o.config.list_files = Some(true),
        "c" => o.config.count_only = true,
        "T" => o.config.initial_tab = true,
        "Z" => o.config.null_after_name = true,
        "A" => o.after = Some(context_number(&value)?),
        "B" => o.before = Some(context_number(&value)?),
        "C" => o.context = Some(context_number(&value)?),
        "color" => {
            o.color = match value.to_str() {
                // grep's auto: a terminal that is not a dumb one.
                Some("") | Some("auto") | Some("tty") | Some("if-tty") => common::fsops::is_terminal(1) && std::env::var("TERM").map_or(false, |t| t != "dumb"),
                Some("never") | Some("no") | Some("none") => false,
                Some("always") | Some("yes") | Some("force") => true,
                _ => {
                    // GNU grep 3.8 answers an unknown WHEN with its help text and status 0.
                    let _ = io.out(HELP.replace("{name}", &io.name).as_bytes());
                    return Err(UError::exit(0));
                }
            }
        }
        "group-separator" => o.config.group_separator = Some(os_bytes(&value).to_vec()),
        "no-group-separator" => o.config.group_separator = None,
        // -D ACTION and -U change nothing here (no devices, no CR stripping).
        _ => {}
    }
    Ok(())
}

const HELP: &str = "Usage: {name} [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE.
Example: {name} -i 'hello world' menu.h main.c
PATTERNS can contain multiple patterns separated by newlines.

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -P, --perl-regexp         PATTERNS are Perl-like regular expressions (no look-around)
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           a data line ends in 0 byte, not newline

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines
  -V, --version             display version information and exit
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
      --line-buffered       flush output on every line
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   assume that binary files are TYPE;
                            TYPE is 'binary', 'text', or 'without-match'
  -a, --text                equivalent to --binary-files=text
  -I                        equivalent to --binary-files=without-match
  -d, --directories=ACTION  how to handle directories;
                            ACTION is 'read', 'recurse', or 'skip'
  -r, --recursive           like --directories=recurse
  -R, --dereference-recursive  likewise, but follow all symlinks
      --include=GLOB        search only files that match GLOB (a file pattern)
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any file pattern from FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -T, --initial-tab         make tabs line up (if needed)
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN],
      --colour[=WHEN]       use markers to highlight the matching strings;
                            WHEN is 'always', 'never', or 'auto'
  -U, --binary              do not strip CR characters at EOL (MSDOS/Windows)

When FILE is '-', read standard input.  With no FILE, read '.' if
recursive, '-' otherwise.  With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.
";
