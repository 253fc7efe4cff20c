//! The main input: the ARGV operands in order (`var=value` operands are assignments,
//! `-` is stdin, no file operands means stdin), with BEGINFILE/ENDFILE rules around each
//! file, read record by record into `$0` or a getline variable.

use super::array::classify;
use super::ast::*;
use super::input::RecordReader;
use super::interp::{fatal, Abort, Cell, Interp, MainSource, StdinRead, R};
use super::value::Value;
use super::vars;

impl<'a, 'io> Interp<'a, 'io> {
    /// The ARGV element `i` as bytes, if present.
    fn argv(&self, i: usize) -> Option<Vec<u8>> {
        let id = match self.globals[vars::ARGV as usize] {
            Cell::Arr(id) => id,
            Cell::Val(_) => return None,
        };
        let text = i.to_string();
        self.arrays[id].get(classify(text.as_bytes())).map(|v| v.to_str(&self.convfmt).to_vec())
    }

    /// Opens the next input operand. Returns false when there are none left.
    fn open_next_input(&mut self) -> R<bool> {
        loop {
            let argc = match &self.globals[vars::ARGC as usize] {
                Cell::Val(v) => v.to_num().max(0.0) as usize,
                Cell::Arr(_) => 0,
            };
            if self.argv_index >= argc {
                if self.used_file_operand || self.main_done {
                    return Ok(false);
                }
                self.used_file_operand = true;
                self.main_source = Some(MainSource::Stdin);
                self.fnr = 0.0;
                self.globals[vars::FILENAME as usize] = Cell::Val(Value::Str(b"-".as_slice().into()));
                return Ok(true);
            }
            let i = self.argv_index;
            self.argv_index += 1;
            let arg = match self.argv(i) {
                Some(a) if !a.is_empty() => a,
                _ => continue,
            };
            if let Some(eq) = assignment_split(&arg) {
                let name = String::from_utf8_lossy(&arg[..eq]).into_owned();
                let value = super::lexer::unescape(&arg[eq + 1..]);
                self.command_line_assign(&name, value)?;
                continue;
            }
            self.used_file_operand = true;
            self.fnr = 0.0;
            self.globals[vars::FILENAME as usize] = Cell::Val(Value::StrNum(arg.as_slice().into()));
            if arg == b"-" || arg == b"/dev/stdin" {
                self.main_source = Some(MainSource::Stdin);
                return Ok(true);
            }
            match std::fs::File::open(common::args::bytes_os(&arg)) {
                Ok(f) => {
                    if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
                        let _ = writeln!(self.io.stderr, "{}: warning: command line argument `{}' is a directory: skipped", self.io.name, String::from_utf8_lossy(&arg));
                        continue;
                    }
                    self.main_source = Some(MainSource::File(f, RecordReader::new()));
                    self.globals[vars::ERRNO as usize] = Cell::Val(Value::Str(b"".as_slice().into()));
                    return Ok(true);
                }
                Err(e) => {
                    let message = common::strerror(&e);
                    if self.has_rules(Pattern::BeginFile) {
                        // gawk lets BEGINFILE see ERRNO and skip the file with nextfile.
                        self.globals[vars::ERRNO as usize] = Cell::Val(Value::Str(message.as_bytes().into()));
                        if self.run_file_rules(Pattern::BeginFile)? {
                            continue;
                        }
                    }
                    return Err(Abort::Fatal(format!("cannot open file `{}' for reading: {}", String::from_utf8_lossy(&arg), message)));
                }
            }
        }
    }

    /// `var=value` on the command line or in ARGV: assigns a strnum.
    pub fn command_line_assign(&mut self, name: &str, value: Vec<u8>) -> R<()> {
        let index = match self.prog.globals.iter().position(|g| g == name) {
            Some(i) => i as u32,
            None => return Ok(()),
        };
        if self.prog.functions.iter().any(|f| f.name == name) {
            return fatal(format!("cannot use function `{}' as variable name", name));
        }
        self.assign_var(Var::Global(index), Value::StrNum(value.into()))
    }

    pub fn has_rules(&self, kind: Pattern) -> bool {
        self.prog.rules.iter().any(|r| std::mem::discriminant(&r.pattern) == std::mem::discriminant(&kind))
    }

    /// Runs the BEGINFILE or ENDFILE rules. Returns true if one ran `nextfile`.
    pub fn run_file_rules(&mut self, kind: Pattern) -> R<bool> {
        let prog = self.prog;
        for rule in prog.rules.iter().filter(|r| std::mem::discriminant(&r.pattern) == std::mem::discriminant(&kind)) {
            self.line = rule.line;
            if let Some(stmts) = &rule.action {
                match self.exec_block(stmts) {
                    Ok(_) => {}
                    Err(Abort::NextFile) if matches!(kind, Pattern::BeginFile) => return Ok(true),
                    Err(Abort::Next) | Err(Abort::NextFile) => return fatal("`next' or `nextfile' used in ENDFILE action"),
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(false)
    }

    /// Ends the current input file: ENDFILE rules, then the next read opens the next one.
    pub fn end_current_file(&mut self) -> R<()> {
        if self.main_source.take().is_some() && self.has_rules(Pattern::EndFile) {
            self.run_file_rules(Pattern::EndFile)?;
        }
        Ok(())
    }

    /// Reads the next main-input record into `$0` (or into `line` for `getline var`).
    pub fn next_main_record(&mut self, mut line: Option<&mut Vec<u8>>) -> R<bool> {
        loop {
            if self.main_source.is_none() {
                if !self.open_next_input()? {
                    self.main_done = true;
                    return Ok(false);
                }
                if self.has_rules(Pattern::BeginFile) && self.run_file_rules(Pattern::BeginFile)? {
                    self.main_source = None;
                    continue;
                }
            }
            let mut fresh = std::mem::take(&mut self.record_buf);
            let result = {
                let Interp { main_source, io, stdin_reader, rs, rt, .. } = self;
                let out: &mut Vec<u8> = match &mut line {
                    Some(l) => l,
                    None => &mut fresh,
                };
                match main_source {
                    Some(MainSource::Stdin) => stdin_reader.read_record(&mut StdinRead(&mut *io.stdin), rs, out, rt),
                    Some(MainSource::File(f, reader)) => reader.read_record(f, rs, out, rt),
                    None => Ok(false),
                }
            };
            if line.is_none() && matches!(result, Ok(true)) {
                self.rec.swap_in(&mut fresh);
            }
            self.record_buf = fresh;
            match result {
                Ok(true) => return Ok(true),
                Ok(false) => self.end_current_file()?,
                Err(e) => {
                    let name = match &self.globals[vars::FILENAME as usize] {
                        Cell::Val(v) => v.to_str(&self.convfmt).to_vec(),
                        Cell::Arr(_) => Vec::new(),
                    };
                    return fatal(format!("error reading input file `{}': {}", String::from_utf8_lossy(&name), common::strerror(&e)));
                }
            }
        }
    }
}

/// `name=value` where name is an identifier: the index of `=`.
pub fn assignment_split(arg: &[u8]) -> Option<usize> {
    let eq = arg.iter().position(|c| *c == b'=')?;
    let name = &arg[..eq];
    let ok = !name.is_empty() && (name[0] == b'_' || name[0].is_ascii_alphabetic()) && name.iter().all(|c| *c == b'_' || c.is_ascii_alphanumeric());
    if ok {
        Some(eq)
    } else {
        None
    }
}
