//! `fmt [-WIDTH] [OPTION]... [FILE]...`: GNU fmt. Paragraphs (runs of non-blank lines with
//! the same indentation; `-c` crown and `-t` tagged paragraphs let the first line differ;
//! `-s` makes every line its own paragraph; `-p` handles only lines with a prefix) are
//! refilled to `-w` columns (default 75) by GNU's optimal line breaking: each possible
//! break is charged for distance from the goal width (`-g`, default 93% of the width),
//! raggedness and breaks near sentence ends, and the cheapest paragraph wins. Sentence ends
//! (a period-like word followed by a newline or two spaces) keep two spaces; `-u` makes the
//! other spacing uniform. Lengths are in bytes, tabs are 8 columns, as in GNU fmt.

#[path = "fmt/para.rs"]
mod para;

use std::ffi::OsString;

use common::args::os_bytes;
use common::{Command, Io, UError};

use para::{Formatter, Options};

const SPEC: &str = "crown=c,crown-margin prefix,p: split=s,split-only tagged=t,tagged-paragraph uniform=u,uniform-spacing width,w: goal,g:";

const FMT: Command = Command::compact("fmt", SPEC, HELP);

const MAX_WIDTH: usize = 2500;

fn q(text: &str) -> String {
    format!("\u{2018}{}\u{2019}", text)
}

pub fn run(mut args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut width_text: Option<String> = None;
    // The old `-WIDTH` form, only as the first argument.
    if let Some(first) = args.get(1).map(|a| os_bytes(a).to_vec()) {
        if first.len() > 1 && first[0] == b'-' && first[1].is_ascii_digit() {
            width_text = Some(String::from_utf8_lossy(&first[1..]).into_owned());
            args.remove(1);
        }
    }
    let mut options = Options::default();
    let mut goal_text: Option<String> = None;
    let mut files = FMT.operands(&args, io, &mut |_, id, value| {
        let v = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
        match id {
            "crown" => options.crown = true,
            "split" => options.split = true,
            "tagged" => options.tagged = true,
            "uniform" => options.uniform = true,
            "width" => width_text = Some(v),
            "goal" => goal_text = Some(v),
            _ => options.set_prefix(v.as_bytes()),
        }
        Ok(())
    })?;
    options.max_width = 75;
    if let Some(w) = &width_text {
        match w.parse::<usize>() {
            Ok(n) if n <= MAX_WIDTH => options.max_width = n,
            parsed => {
                return Err(UError::new(1, format!("invalid width: {}{}", q(w), range_note(&parsed))));
            }
        }
    }
    options.goal_width = match &goal_text {
        Some(g) => match g.parse::<usize>() {
            Ok(n) if n <= options.max_width => {
                if width_text.is_none() {
                    options.max_width = n + 10;
                }
                n
            }
            parsed => {
                return Err(UError::new(1, format!("invalid width: {}{}", q(g), range_note(&parsed))));
            }
        },
        None => options.max_width * 187 / 200,
    };
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let mut status = 0;
    for file in &files {
        let result = if os_bytes(file) == b"-" {
            Formatter::new(&options, io.stdin, &mut *io.stdout).run()
        } else {
            match std::fs::File::open(file) {
                Ok(f) => {
                    let mut reader = std::io::BufReader::with_capacity(common::io::BUFFER_SIZE, f);
                    Formatter::new(&options, &mut reader, &mut *io.stdout).run()
                }
                Err(e) => {
                    io.error(format!("cannot open {} for reading: {}", common::io::quote(file), common::strerror(&e)));
                    status = 1;
                    continue;
                }
            }
        };
        if let Err(e) = result {
            if common::error::is_broken_pipe(&e) {
                return Ok(status);
            }
            io.error(format!("{}: {}", file.to_string_lossy(), common::strerror(&e)));
            status = 1;
        }
    }
    Ok(status)
}

/// GNU adds strerror(ERANGE) when a number parsed but is too large.
fn range_note<E>(parsed: &Result<usize, E>) -> &'static str {
    if parsed.is_ok() {
        ": Numerical result out of range"
    } else {
        ""
    }
}

const HELP: &str = "Usage: {name} [-WIDTH] [OPTION]... [FILE]...\nReformat each paragraph in the FILE(s), writing to standard output.\nThe option -WIDTH is an abbreviated form of --width=DIGITS.\n\n\
Mandatory arguments to long options are mandatory for short options too.\n\
  -c, --crown-margin        preserve indentation of first two lines\n\
  -p, --prefix=STRING       reformat only lines beginning with STRING,\n\
                              reattaching the prefix to reformatted lines\n\
  -s, --split-only          split long lines, but do not refill\n\
  -t, --tagged-paragraph    indentation of first line different from second\n\
  -u, --uniform-spacing     one space between words, two after sentences\n\
  -w, --width=WIDTH         maximum line width (default of 75 columns)\n\
  -g, --goal=WIDTH          goal width (default of 93% of width)\n\
      --help        display this help and exit\n\
      --version     output version information and exit\n\n\
With no FILE, or when FILE is -, read standard input.\n";
