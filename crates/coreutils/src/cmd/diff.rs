//! command: diff
//! `diff`: compares files line by line, or directories entry by entry (GNU diffutils 3.8).
//! Formats: normal, -c/-C, -u/-U, -e, -n, -y, -q; ignoring case, white space, blank lines
//! and lines matching -I; -r with "Only in" and "diff -r" headers, -N, -x/-X, -S. Exit 0
//! when the inputs are the same, 1 when they differ, 2 on trouble.

#[path = "diff/analyze.rs"]
mod analyze;
#[path = "diff/color.rs"]
mod color;
#[path = "diff/dirs.rs"]
mod dirs;
#[path = "diff/format.rs"]
mod format;
#[path = "diff/myers.rs"]
mod myers;
#[path = "diff/side.rs"]
mod side;
#[path = "diff/text.rs"]
mod text;

use std::ffi::OsString;

use common::args::{os_bytes, ArgError, Command, Parsed, UsageError};
use common::quotearg::shell_quote;
use common::regex::{Flags, Flavor, Regex};
use common::{HasArg, Io, OptSpec, UError};

use analyze::{Compare, WhiteSpace};
use format::{Format, Style};

const SPEC: &str = "normal brief,q report-identical-files,s c C: context:: u U: unified:: ed,e rcs,n side-by-side,y width,W: left-column suppress-common-lines show-c-function,p show-function-line,F: label: expand-tabs,t initial-tab,T tabsize: suppress-blank-empty paginate,l recursive,r no-dereference new-file,N unidirectional-new-file ignore-file-name-case no-ignore-file-name-case exclude,x: exclude-from,X: starting-file,S: from-file: to-file: ignore-case,i ignore-tab-expansion,E ignore-trailing-space,Z ignore-space-change,b ignore-all-space,w ignore-blank-lines,B ignore-matching-lines,I: text,a strip-trailing-cr ifdef,D: old-group-format: new-group-format: changed-group-format: unchanged-group-format: line-format: old-line-format: new-line-format: unchanged-line-format: minimal,d horizon-lines: speed-large-files,H color:: palette: help version,v";

const HELP: &str = "Usage: diff [OPTION]... FILES
Compare FILES line by line.

Mandatory arguments to long options are mandatory for short options too.
      --normal                  output a normal diff (the default)
  -q, --brief                   report only when files differ
  -s, --report-identical-files  report when two files are the same
  -c, -C NUM, --context[=NUM]   output NUM (default 3) lines of copied context
  -u, -U NUM, --unified[=NUM]   output NUM (default 3) lines of unified context
  -e, --ed                      output an ed script
  -n, --rcs                     output an RCS format diff
  -y, --side-by-side            output in two columns
  -W, --width=NUM               output at most NUM (default 130) print columns
      --left-column             output only the left column of common lines
      --suppress-common-lines   do not output common lines

  -p, --show-c-function         show which C function each change is in
  -F, --show-function-line=RE   show the most recent line matching RE
      --label LABEL             use LABEL instead of file name and timestamp
                                  (can be repeated)

  -t, --expand-tabs             expand tabs to spaces in output
  -T, --initial-tab             make tabs line up by prepending a tab
      --tabsize=NUM             tab stops every NUM (default 8) print columns
      --suppress-blank-empty    suppress space or tab before empty output lines

  -r, --recursive                 recursively compare any subdirectories found
      --no-dereference            don't follow symbolic links
  -N, --new-file                  treat absent files as empty
      --unidirectional-new-file   treat absent first files as empty
  -x, --exclude=PAT               exclude files that match PAT
  -X, --exclude-from=FILE         exclude files that match any pattern in FILE
  -S, --starting-file=FILE        start with FILE when comparing directories
      --from-file=FILE1           compare FILE1 to all operands;
                                    FILE1 can be a directory
      --to-file=FILE2             compare all operands to FILE2;
                                    FILE2 can be a directory

  -i, --ignore-case               ignore case differences in file contents
  -E, --ignore-tab-expansion      ignore changes due to tab expansion
  -Z, --ignore-trailing-space     ignore white space at line end
  -b, --ignore-space-change       ignore changes in the amount of white space
  -w, --ignore-all-space          ignore all white space
  -B, --ignore-blank-lines        ignore changes where lines are all blank
  -I, --ignore-matching-lines=RE  ignore changes where all lines match RE

  -a, --text                      treat all files as text
      --strip-trailing-cr         strip trailing carriage return on input

  -d, --minimal            try hard to find a smaller set of changes
      --horizon-lines=NUM  keep NUM lines of the common prefix and suffix
      --speed-large-files  assume large files and many scattered small changes
      --color[=WHEN]       color output; WHEN is 'never', 'always', or 'auto';
                             plain --color means --color='auto'
      --help               display this help and exit
  -v, --version            output version information and exit

FILES are 'FILE1 FILE2' or 'DIR1 DIR2' or 'DIR FILE' or 'FILE DIR'.
If --from-file or --to-file is given, there are no restrictions on FILE(s).
If a FILE is '-', read standard input.
Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.

Not supported in the sandbox: -l/--paginate, -D/--ifdef, the --*-format options,
--ignore-file-name-case.
";

/// Everything the comparisons need besides the output format.
pub struct Config {
    pub format: Format,
    pub compare: Compare,
    pub brief: bool,
    pub report_identical: bool,
    pub recursive: bool,
    pub new_file: bool,
    pub unidirectional: bool,
    pub text: bool,
    pub minimal: bool,
    pub heuristic: bool,
    pub horizon: Option<usize>,
    pub strip_cr: bool,
    pub no_dereference: bool,
    pub excludes: Vec<Vec<u8>>,
    pub starting_file: Option<Vec<u8>>,
    /// The option words as given, shell-quoted, for `diff -r` header lines.
    pub switches: Vec<u8>,
}

/// diffutils words its hint `diff: Try 'diff --help' ...`, with the name in front.
const DIFF: Command = Command { usage_status: 2, usage_error: Some(UsageError(bad_option)), ..Command::compact("diff", SPEC, HELP) };

fn bad_option(io: &mut Io, error: ArgError) -> UError {
    usage(io, &error.to_string())
}

fn usage(io: &Io, message: &str) -> UError {
    UError::new(2, format!("{}\n{}: Try '{} --help' for more information.", message, io.name, io.name))
}

/// The raw words that are options (with their separate arguments), in order: GNU builds
/// the `diff -r` header from argv after getopt moved the options first.
fn option_words(args: &[OsString]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = os_bytes(&args[i]);
        i += 1;
        if word == b"--" {
            break;
        }
        if word.len() < 2 || word[0] != b'-' {
            continue;
        }
        out.push(b' ');
        out.extend_from_slice(&shell_quote(word));
        let takes_next = if word.starts_with(b"--") {
            let name = String::from_utf8_lossy(&word[2..]).into_owned();
            !name.contains('=') && {
                let spec = common::args::table(SPEC);
                let matches: Vec<&OptSpec> = spec.iter().filter(|o| o.long.map_or(false, |l| l.starts_with(name.as_str()))).collect();
                let exact = spec.iter().find(|o| o.long == Some(name.as_str()));
                exact.or_else(|| matches.first().copied()).map_or(false, |o| o.arg == HasArg::Required)
            }
        } else {
            let mut needs = false;
            for (k, &c) in word.iter().enumerate().skip(1) {
                if let Some(o) = common::args::table(SPEC).iter().find(|o| o.short == Some(c as char)) {
                    if o.arg == HasArg::Required {
                        needs = k + 1 == word.len();
                        break;
                    }
                }
            }
            needs
        };
        if takes_next && i < args.len() {
            out.push(b' ');
            out.extend_from_slice(&shell_quote(os_bytes(&args[i])));
            i += 1;
        }
    }
    out
}

fn number(value: &str) -> Option<usize> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(value.parse::<usize>().unwrap_or(usize::MAX))
}

/// What diff's options ask for, as the option loop collects it.
struct Settings {
    style: Option<Style>,
    colored: bool,
    context: Option<usize>,
    white: WhiteSpace,
    tab_expansion: bool,
    trailing: bool,
    ignore_case: bool,
    ignore_patterns: Vec<Vec<u8>>,
    function_pattern: Option<Vec<u8>>,
    labels: Vec<Vec<u8>>,
    operands: Vec<OsString>,
    from_file: Option<OsString>,
    to_file: Option<OsString>,
    width: usize,
    tabsize: usize,
    flags: std::collections::HashSet<&'static str>,
    excludes: Vec<Vec<u8>>,
    starting_file: Option<Vec<u8>>,
    horizon: Option<usize>,
}

/// Applies one option to `st`.
fn apply(st: &mut Settings, io: &Io, id: &'static str, value: Option<OsString>) -> Result<(), UError> {
    let text = value.as_ref().map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
    let bytes = value.as_ref().map(|v| os_bytes(v).to_vec()).unwrap_or_default();
    let mut want_style = None;
    match id {
        "normal" => want_style = Some(Style::Normal),
        "c" | "u" | "C" | "U" | "context" | "unified" => {
            want_style = Some(if id == "c" || id == "C" || id == "context" { Style::Context } else { Style::Unified });
            let n = if value.is_some() {
                match number(&text) {
                    Some(n) => n,
                    None => return Err(usage(io, &format!("invalid context length '{}'", text))),
                }
            } else {
                3
            };
            st.context = Some(st.context.map_or(n, |c: usize| c.max(n)));
        }
        "ed" => want_style = Some(Style::Ed),
        "rcs" => want_style = Some(Style::Rcs),
        "side-by-side" => want_style = Some(Style::SideBySide),
        "width" => match number(&text).filter(|n| *n > 0) {
            Some(n) => st.width = n,
            None => return Err(usage(io, &format!("invalid width '{}'", text))),
        },
        "tabsize" => match number(&text).filter(|n| *n > 0) {
            Some(n) => st.tabsize = n,
            None => return Err(usage(io, &format!("invalid tabsize '{}'", text))),
        },
        "horizon-lines" => match number(&text) {
            Some(n) => st.horizon = Some(n),
            None => return Err(usage(io, &format!("invalid horizon length '{}'", text))),
        },
        "show-c-function" => st.function_pattern = Some(b"^[[:alpha:]$_]".to_vec()),
        "show-function-line" => st.function_pattern = Some(bytes),
        "label" => st.labels.push(bytes),
        "ignore-case" => st.ignore_case = true,
        "ignore-tab-expansion" => st.tab_expansion = true,
        "ignore-trailing-space" => st.trailing = true,
        "ignore-space-change" => st.white = st.white.max(WhiteSpace::Change),
        "ignore-all-space" => st.white = WhiteSpace::All,
        "ignore-matching-lines" => st.ignore_patterns.push(bytes),
        "exclude" => st.excludes.push(bytes),
        "exclude-from" => match std::fs::read(&value.unwrap_or_default()) {
            Ok(data) => st.excludes.extend(data.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| l.to_vec())),
            Err(e) => return Err(UError::io(2, text, &e)),
        },
        "starting-file" => st.starting_file = Some(bytes),
        "from-file" => st.from_file = value,
        "to-file" => st.to_file = value,
        "color" => {
            st.colored = match text.as_str() {
                "" | "auto" => common::fsops::is_terminal(1),
                "always" => true,
                "never" => false,
                _ => return Err(usage(io, &format!("invalid color '{}'", text))),
            }
        }
        "palette" => {}
        "paginate" | "ifdef" | "old-group-format" | "new-group-format" | "changed-group-format" | "unchanged-group-format" | "line-format" | "old-line-format" | "new-line-format" | "unchanged-line-format" | "ignore-file-name-case" => {
            let shown = common::args::table(SPEC).iter().find(|o| o.id == id).and_then(|o| o.long).unwrap_or(id);
            return Err(usage(io, &format!("option not supported in the sandbox: --{}", shown)));
        }
        other => {
            st.flags.insert(other);
        }
    }
    if let Some(s) = want_style {
        if st.style.map_or(false, |old| old != s) {
            return Err(usage(io, "conflicting output style options"));
        }
        st.style = Some(s);
    }
    Ok(())
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut st = Settings { style: None, colored: false, context: None, white: WhiteSpace::Exact, tab_expansion: false, trailing: false, ignore_case: false, ignore_patterns: Vec::new(), function_pattern: None, labels: Vec::new(), operands: Vec::new(), from_file: None, to_file: None, width: 130, tabsize: 8, flags: std::collections::HashSet::new(), excludes: Vec::new(), starting_file: None, horizon: None };
    DIFF.options(&args, io, &mut |io, item| match item {
        Parsed::Operand(o) => {
            st.operands.push(o);
            Ok(())
        }
        Parsed::Opt { id, value } => apply(&mut st, io, id, value),
    })?;
    let Settings { style, colored, context, mut white, tab_expansion, trailing, ignore_case, ignore_patterns, function_pattern, labels, operands, from_file, to_file, width, tabsize, flags, excludes, starting_file, horizon } = st;

    if white < WhiteSpace::Change {
        white = match (tab_expansion, trailing) {
            (true, true) => WhiteSpace::TabExpansionAndTrailing,
            (true, false) => WhiteSpace::TabExpansion,
            (false, true) => WhiteSpace::Trailing,
            _ => WhiteSpace::Exact,
        };
    }
    if from_file.is_some() && to_file.is_some() {
        return Err(usage(io, "--from-file and --to-file both specified"));
    }
    if from_file.is_none() && to_file.is_none() {
        if operands.len() < 2 {
            let after = operands.last().cloned().unwrap_or_else(|| args[0].clone());
            return Err(usage(io, &format!("missing operand after '{}'", after.to_string_lossy())));
        }
        if operands.len() > 2 {
            return Err(usage(io, &format!("extra operand '{}'", operands[2].to_string_lossy())));
        }
    }
    let compile = |patterns: &[Vec<u8>]| -> Result<Option<Regex>, String> {
        if patterns.is_empty() {
            return Ok(None);
        }
        let refs: Vec<&[u8]> = patterns.iter().map(|p| p.as_slice()).collect();
        Regex::new_many(&refs, Flavor::Basic, Flags::default()).map(Some).map_err(|e| e.to_string())
    };
    let ignore_regex = compile(&ignore_patterns).map_err(|e| UError::new(2, e))?;
    let function_regex = compile(&function_pattern.into_iter().collect::<Vec<_>>()).map_err(|e| UError::new(2, e))?;
    let style = style.unwrap_or(Style::Normal);
    let mut label_iter = labels.into_iter();
    let format = Format {
        style,
        context: context.unwrap_or(3),
        initial_tab: flags.contains("initial-tab"),
        expand_tabs: flags.contains("expand-tabs"),
        tabsize,
        suppress_blank_empty: flags.contains("suppress-blank-empty"),
        ignore_blank_lines: flags.contains("ignore-blank-lines"),
        ignore_regex,
        function_regex,
        white,
        labels: [label_iter.next(), label_iter.next()],
        width,
        left_column: flags.contains("left-column"),
        suppress_common: flags.contains("suppress-common-lines"),
    };
    let config = Config {
        format,
        compare: Compare { ignore_case, white, tabsize },
        brief: flags.contains("brief"),
        report_identical: flags.contains("report-identical-files"),
        recursive: flags.contains("recursive"),
        new_file: flags.contains("new-file"),
        unidirectional: flags.contains("unidirectional-new-file"),
        text: flags.contains("text"),
        minimal: flags.contains("minimal"),
        heuristic: flags.contains("speed-large-files"),
        horizon,
        strip_cr: flags.contains("strip-trailing-cr"),
        no_dereference: flags.contains("no-dereference"),
        excludes,
        starting_file,
        switches: option_words(&args[1..]),
    };
    if colored && color::Painter::colours(config.format.style) {
        let mut painter = color::Painter::new(&mut *io.stdout, config.format.style);
        let mut painted = Io { name: io.name.clone(), stdin: &mut *io.stdin, stdout: &mut painter, stderr: &mut *io.stderr };
        let status = compare(&config, &mut painted, from_file, to_file, &operands);
        let _ = painted.stdout.flush();
        return Ok(status);
    }
    Ok(compare(&config, io, from_file, to_file, &operands))
}

/// Runs the comparisons the operands ask for; the exit status.
fn compare(config: &Config, io: &mut Io, from_file: Option<OsString>, to_file: Option<OsString>, operands: &[OsString]) -> i32 {
    let mut session = dirs::Session::new(config, io);
    let mut status = 0;
    match (from_file, to_file) {
        (Some(from), _) => {
            for op in operands {
                status = status.max(session.compare_top(os_bytes(&from), os_bytes(op)));
            }
        }
        (_, Some(to)) => {
            for op in operands {
                status = status.max(session.compare_top(os_bytes(op), os_bytes(&to)));
            }
        }
        _ => status = session.compare_top(os_bytes(&operands[0]), os_bytes(&operands[1])),
    }
    session.finish(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_words_keep_separate_arguments() {
        let args: Vec<OsString> = ["-r", "a", "-U", "1", "-x", "*.o", "b", "--label=A"].iter().map(OsString::from).collect();
        assert_eq!(String::from_utf8(option_words(&args)).unwrap(), " -r -U 1 -x '*.o' '--label=A'");
    }
}
