//! From the command line to a running program: joins the program sources, parses them
//! (reporting syntax errors gawk-style, with the line and a caret), sets up the initial
//! variables (ARGV, ENVIRON, PROCINFO, -F, -v) and runs it.

use std::ffi::OsStr;

use common::Io;

use super::array::{classify, AwkArray};
use super::fields::{FieldMode, Record};
use super::input::{RecordReader, RsMode};
use super::interp::{Abort, Cell, FieldSource, Interp};
use super::lexer::{unescape, SyntaxError};
use super::random::Random;
use super::regex::Regexes;
use super::streams::Streams;
use super::value::Value;
use super::{parser, vars, Options};

/// Where a line of the joined program text came from: (its first line, source name).
fn source_of(table: &[(u32, String)], line: u32) -> (String, u32) {
    let mut found = ("cmd. line".to_string(), line);
    for (first, name) in table {
        if *first <= line {
            found = (name.clone(), line - first + 1);
        }
    }
    found
}

fn report_syntax(io: &mut Io, text: &[u8], table: &[(u32, String)], error: &SyntaxError) {
    let offset = error.offset.min(text.len());
    let line_start = text[..offset].iter().rposition(|c| *c == b'\n').map_or(0, |p| p + 1);
    let line_end = text[offset..].iter().position(|c| *c == b'\n').map_or(text.len(), |p| offset + p);
    let line = 1 + text[..offset].iter().filter(|c| **c == b'\n').count() as u32;
    let (name, local_line) = source_of(table, line);
    let prefix = format!("{}: {}:{}: ", io.name, name, local_line);
    if error.message == "syntax error" || error.message.starts_with("unexpected") || error.message.starts_with("unterminated") {
        let _ = writeln!(io.stderr, "{}{}", prefix, String::from_utf8_lossy(&text[line_start..line_end]));
        let column = super::format::count_chars(&text[line_start..offset]);
        let _ = writeln!(io.stderr, "{}{}^ {}", prefix, " ".repeat(column), error.message);
    } else {
        let _ = writeln!(io.stderr, "{}{}", prefix, error.message);
    }
}

pub fn run_program(options: Options, argv0: &OsStr, io: &mut Io) -> i32 {
    let _ = argv0;
    let mut text = Vec::new();
    let mut table = Vec::new();
    let mut line = 1u32;
    for (name, source) in &options.sources {
        table.push((line, name.clone()));
        text.extend_from_slice(source);
        line += source.iter().filter(|c| **c == b'\n').count() as u32;
        if !source.ends_with(b"\n") {
            text.push(b'\n');
            line += 1;
        }
    }
    let (program, warnings) = match parser::parse(&text) {
        Ok(p) => p,
        Err(e) if e.message.ends_with("never defined") => {
            let _ = writeln!(io.stderr, "{}: cmd. line:1: fatal: {}", io.name, e.message.replace("called but never defined", "not defined"));
            return 2;
        }
        Err(e) => {
            report_syntax(io, &text, &table, &e);
            return 1;
        }
    };
    for (offset, message) in warnings {
        let line = 1 + text[..offset.min(text.len())].iter().filter(|c| **c == b'\n').count() as u32;
        let (name, local) = source_of(&table, line);
        let _ = writeln!(io.stderr, "{}: {}:{}: warning: {}", io.name, name, local, message);
    }
    let mut regexes = Regexes::new(program.regexes.clone());
    if let Err(message) = regexes.check_literals() {
        let _ = writeln!(io.stderr, "{}: cmd. line:1: fatal: {}", io.name, message);
        return 2;
    }
    let globals = vec![Cell::Val(Value::Uninit); program.globals.len()];
    let ranges = vec![false; program.ranges];
    let mut interp = Interp {
        prog: &program,
        io,
        globals,
        locals: Vec::new(),
        frame: 0,
        depth: 0,
        arrays: Vec::new(),
        free_arrays: Vec::new(),
        frame_arrays: Vec::new(),
        rec: Record::default(),
        nr: 0.0,
        fnr: 0.0,
        rt: Vec::new(),
        record_buf: Vec::new(),
        convfmt: b"%.6g".to_vec(),
        ofmt: b"%.6g".to_vec(),
        ofs: b" ".to_vec(),
        ors: b"\n".to_vec(),
        subsep: b"\x1c".to_vec(),
        fmode: FieldMode::Default,
        field_source: FieldSource::Fs,
        rs: RsMode::Byte(b'\n'),
        icase: false,
        regexes,
        streams: Streams::default(),
        stdin_reader: RecordReader::new(),
        main_source: None,
        argv_index: 1,
        used_file_operand: false,
        main_done: false,
        ranges,
        rng: Random::new(),
        scratch: Vec::new(),
        exit_code: 0,
        line: 1,
        sources: table.clone(),
        sandboxed: options.sandbox,
        function: None,
        stack_base: super::interp::stack_marker(),
    };
    let status = match initialize(&mut interp, &options).and_then(|_| interp.run_program()) {
        Ok(()) => interp.exit_code,
        Err(Abort::Fatal(message)) => {
            let (name, local) = source_of(&table, interp.line);
            let context = if interp.nr > 0.0 {
                let filename = match &interp.globals[vars::FILENAME as usize] {
                    Cell::Val(v) => v.to_str(b"%.6g").to_vec(),
                    Cell::Arr(_) => Vec::new(),
                };
                let filename = if filename.is_empty() { b"-".to_vec() } else { filename };
                format!("(FILENAME={} FNR={}) ", String::from_utf8_lossy(&filename), interp.fnr)
            } else {
                String::new()
            };
            let _ = interp.io.stdout.flush();
            let _ = writeln!(interp.io.stderr, "{}: {}:{}: {}fatal: {}", interp.io.name, name, local, context, message);
            2
        }
        Err(Abort::BrokenPipe) => 141,
        Err(Abort::Exit(code)) => code.unwrap_or(interp.exit_code),
        Err(Abort::Next) | Err(Abort::NextFile) => interp.exit_code,
    };
    let Interp { streams, io, .. } = &mut interp;
    streams.close_all(io.stdout);
    status
}

fn set_array(interp: &mut Interp, slot: u32, entries: Vec<(Vec<u8>, Value)>) {
    let mut array = AwkArray::new();
    for (key, value) in entries {
        array.set(classify(&key), value);
    }
    interp.arrays.push(array);
    interp.globals[slot as usize] = Cell::Arr(interp.arrays.len() - 1);
}

fn initialize(interp: &mut Interp, options: &Options) -> Result<(), Abort> {
    let defaults: [(u32, &[u8]); 9] = [
        (vars::FS, b" "),
        (vars::OFS, b" "),
        (vars::ORS, b"\n"),
        (vars::RS, b"\n"),
        (vars::SUBSEP, b"\x1c"),
        (vars::CONVFMT, b"%.6g"),
        (vars::OFMT, b"%.6g"),
        (vars::FPAT, b"[^[:space:]]+"),
        (vars::FILENAME, b""),
    ];
    for (slot, value) in defaults {
        interp.globals[slot as usize] = Cell::Val(Value::from_str(value));
    }
    interp.globals[vars::FIELDWIDTHS as usize] = Cell::Val(Value::from_str(b""));
    interp.globals[vars::ERRNO as usize] = Cell::Val(Value::from_str(b""));
    interp.globals[vars::RSTART as usize] = Cell::Val(Value::Num(0.0));
    interp.globals[vars::RLENGTH as usize] = Cell::Val(Value::Num(-1.0));
    interp.globals[vars::IGNORECASE as usize] = Cell::Val(Value::Num(0.0));

    let mut argv = vec![(b"0".to_vec(), Value::Str(interp.io.name.as_bytes().into()))];
    for (i, op) in options.operands.iter().enumerate() {
        argv.push(((i + 1).to_string().into_bytes(), Value::strnum(common::args::os_bytes(op))));
    }
    interp.globals[vars::ARGC as usize] = Cell::Val(Value::Num(argv.len() as f64));
    set_array(interp, vars::ARGV, argv);

    let environ = std::env::vars_os()
        .map(|(k, v)| (common::args::os_bytes(&k).to_vec(), Value::strnum(common::args::os_bytes(&v))))
        .collect();
    set_array(interp, vars::ENVIRON, environ);

    // std::process::id() is unsupported (it panics) on WASI: ask the kernel there.
    #[cfg(target_os = "wasi")]
    let pid = airlock_sys::getpid();
    #[cfg(not(target_os = "wasi"))]
    let pid = std::process::id();
    let procinfo = vec![
        (b"version".to_vec(), Value::from_str(b"5.2.1")),
        (b"pid".to_vec(), Value::Num(pid as f64)),
        (b"FS".to_vec(), Value::from_str(b"FS")),
        (b"strftime".to_vec(), Value::from_str(b"%a %b %e %H:%M:%S %Z %Y")),
        (b"platform".to_vec(), Value::from_str(b"posix")),
    ];
    set_array(interp, vars::PROCINFO, procinfo);

    if let Some(fs) = &options.field_separator {
        let fs = unescape(fs);
        interp.assign_var(super::ast::Var::Global(vars::FS), Value::StrNum(fs.into()))?;
    }
    for assignment in &options.assignments {
        match super::main_input::assignment_split(assignment) {
            Some(eq) => {
                let name = String::from_utf8_lossy(&assignment[..eq]).into_owned();
                interp.command_line_assign(&name, unescape(&assignment[eq + 1..]))?;
            }
            None => {
                let shown = String::from_utf8_lossy(assignment).into_owned();
                let message = if shown.contains('=') {
                    format!("`{}' is not a legal variable name", shown.split('=').next().unwrap_or(""))
                } else {
                    format!("`{}' argument to `-v' not in `var=value' form", shown)
                };
                return Err(Abort::Fatal(message));
            }
        }
    }
    Ok(())
}
