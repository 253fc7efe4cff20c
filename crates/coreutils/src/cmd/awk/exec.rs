//! Statements, output, getline and the main loop: BEGIN rules, then each record of the
//! ARGV files (or stdin) through the pattern-action rules, then END rules.

use std::io::Write;

use super::array::{Key, OwnedKey};
use super::ast::*;
use super::interp::{fatal, Abort, Cell, Flow, Interp, StdinRead, R};
use super::streams::{ReadResult, Sink};
use super::value::Value;
use super::vars;

impl<'a, 'io> Interp<'a, 'io> {
    pub fn exec_block(&mut self, stmts: &[Stmt]) -> R<Flow> {
        for s in stmts {
            match self.exec(s)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec_loop_body(&mut self, body: &Stmt) -> R<Option<Flow>> {
        Ok(match self.exec(body)? {
            Flow::Break => Some(Flow::Normal),
            Flow::Return(v) => Some(Flow::Return(v)),
            Flow::Normal | Flow::Continue => None,
        })
    }

    pub fn exec(&mut self, s: &Stmt) -> R<Flow> {
        match s {
            Stmt::At(line) => self.line = *line,
            Stmt::Expr(e) => {
                self.eval(e)?;
            }
            Stmt::If(cond, then, otherwise) => {
                if self.eval_bool(cond)? {
                    return self.exec(then);
                } else if let Some(otherwise) = otherwise {
                    return self.exec(otherwise);
                }
            }
            Stmt::While(cond, body) => {
                while self.eval_bool(cond)? {
                    if let Some(flow) = self.exec_loop_body(body)? {
                        return Ok(flow);
                    }
                }
            }
            Stmt::For(init, cond, step, body) => {
                if let Some(init) = init {
                    self.exec(init)?;
                }
                loop {
                    if let Some(cond) = cond {
                        if !self.eval_bool(cond)? {
                            break;
                        }
                    }
                    if let Some(flow) = self.exec_loop_body(body)? {
                        return Ok(flow);
                    }
                    if let Some(step) = step {
                        self.exec(step)?;
                    }
                }
            }
            Stmt::Block(stmts) => return self.exec_block(stmts),
            Stmt::Next => return Err(Abort::Next),
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            _ => return self.exec_other(s),
        }
        Ok(Flow::Normal)
    }

    /// The statements not on hot paths, kept out of `exec`'s stack frame.
    #[inline(never)]
    fn exec_other(&mut self, s: &Stmt) -> R<Flow> {
        match s {
            Stmt::Print(args, redirect) => self.print(args, redirect.as_ref())?,
            Stmt::Printf(args, redirect) => self.printf(args, redirect.as_ref())?,
            Stmt::Do(body, cond) => loop {
                if let Some(flow) = self.exec_loop_body(body)? {
                    return Ok(flow);
                }
                if !self.eval_bool(cond)? {
                    break;
                }
            },
            Stmt::ForIn(var, array, body) => {
                let id = self.array_of(*array)?;
                let keys = self.for_in_keys(id)?;
                for key in keys {
                    let value = match key {
                        OwnedKey::Int(i) => Value::Str(i.to_string().into_bytes().into()),
                        OwnedKey::Str(s) => Value::Str(s),
                    };
                    self.assign_var(*var, value)?;
                    if let Some(flow) = self.exec_loop_body(body)? {
                        return Ok(flow);
                    }
                }
            }
            Stmt::Switch(subject, cases) => return self.switch(subject, cases),
            Stmt::NextFile => return Err(Abort::NextFile),
            Stmt::Exit(code) => {
                let code = match code {
                    Some(e) => Some(self.eval_num(e)? as i64 as i32),
                    None => None,
                };
                return Err(Abort::Exit(code));
            }
            Stmt::Return(value) => {
                let v = match value {
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Delete(var, subs) => {
                let id = self.array_of(*var)?;
                match subs {
                    None => self.arrays[id].clear(),
                    Some(subs) => self.with_key(id, subs, |array, key| array.remove(key))?,
                }
            }
            _ => return self.exec(s),
        }
        Ok(Flow::Normal)
    }

    fn switch(&mut self, subject: &Expr, cases: &[(Option<CaseLabel>, Vec<Stmt>)]) -> R<Flow> {
        let value = self.eval(subject)?;
        let mut start = None;
        for (i, (label, _)) in cases.iter().enumerate() {
            let matched = match label {
                None => false,
                Some(CaseLabel::Regex(id)) => {
                    let re = self.regexes.literal(*id, self.icase).or_else(fatal)?;
                    re.is_match(&value.to_str(&self.convfmt))
                }
                Some(CaseLabel::Value(e)) => {
                    let v = self.eval(e)?;
                    let both_numeric = matches!(v, Value::Num(_)) && value.is_numeric();
                    if both_numeric {
                        v.to_num() == value.to_num()
                    } else {
                        v.to_str(&self.convfmt) == value.to_str(&self.convfmt)
                    }
                }
            };
            if matched {
                start = Some(i);
                break;
            }
        }
        let start = match start.or_else(|| cases.iter().position(|(label, _)| label.is_none())) {
            Some(i) => i,
            None => return Ok(Flow::Normal),
        };
        // Falls through to the following cases until a break.
        for (_, body) in &cases[start..] {
            match self.exec_block(body)? {
                Flow::Normal => {}
                Flow::Break => return Ok(Flow::Normal),
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn print(&mut self, args: &[Expr], redirect: Option<&(Redirect, Expr)>) -> R<()> {
        let mut buf = self.take_buf();
        if args.is_empty() {
            buf.extend_from_slice(self.rec.text());
        } else {
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(&self.ofs);
                }
                self.eval_output_into(arg, &mut buf)?;
            }
        }
        buf.extend_from_slice(&self.ors);
        let result = self.write_output(redirect, &buf);
        self.give_buf(buf);
        result
    }

    fn printf(&mut self, args: &[Expr], redirect: Option<&(Redirect, Expr)>) -> R<()> {
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            values.push(self.eval(arg)?);
        }
        let fmt = values[0].to_str(&self.convfmt);
        let mut buf = self.take_buf();
        if let Err(message) = super::format::sprintf(&mut buf, &fmt, &values[1..], &self.convfmt) {
            return fatal(message.trim_start_matches("fatal: ").to_string());
        }
        let result = self.write_output(redirect, &buf);
        self.give_buf(buf);
        result
    }

    /// KEY=VALUE entries from ENVIRON, for commands awk starts.
    pub fn child_env(&self) -> Vec<Vec<u8>> {
        let mut env = Vec::new();
        if let Cell::Arr(id) = self.globals[vars::ENVIRON as usize] {
            let array = &self.arrays[id];
            for key in array.keys() {
                let mut entry = key.to_bytes();
                entry.push(b'=');
                if let Some(v) = array.get(key.as_key()) {
                    v.append_str(&mut entry, &self.convfmt);
                }
                env.push(entry);
            }
        }
        env
    }

    pub fn write_output(&mut self, redirect: Option<&(Redirect, Expr)>, bytes: &[u8]) -> R<()> {
        let (kind, target) = match redirect {
            None => return self.write_stdout(bytes),
            Some((kind, target)) => (*kind, target),
        };
        if self.sandboxed {
            return fatal("redirection not allowed in sandbox mode");
        }
        let mut name = self.take_buf();
        self.eval_str_into(target, &mut name)?;
        if kind == Redirect::Pipe && !self.streams.is_open(&name) {
            // The command writes to our stdout: what we printed so far must come first.
            let _ = self.io.stdout.flush();
        }
        let env = if kind == Redirect::Pipe { self.child_env() } else { Vec::new() };
        let sink = match self.streams.sink(kind, &name, &env) {
            Ok(sink) => sink,
            Err(e) => {
                let what = if kind == Redirect::Pipe { "can't open pipe" } else { "can't redirect to" };
                return fatal(format!("{} `{}' ({})", what, String::from_utf8_lossy(&name), common::strerror(&e)));
            }
        };
        let result = match sink {
            Sink::Stdout => self.io.stdout.write_all(bytes),
            Sink::Stderr => self.io.stderr.write_all(bytes).and_then(|_| self.io.stderr.flush()),
            Sink::File(f) => f.write_all(bytes),
            Sink::Pipe(p) => p.write_all(bytes),
        };
        self.give_buf(name);
        match result {
            Ok(()) => Ok(()),
            Err(e) if common::error::is_broken_pipe(&e) && kind == Redirect::Pipe => Ok(()),
            Err(e) if common::error::is_broken_pipe(&e) => Err(Abort::BrokenPipe),
            Err(e) => fatal(format!("print to \"{}\" failed ({})", String::from_utf8_lossy(target_name(redirect)), common::strerror(&e))),
        }
    }

    pub fn write_stdout(&mut self, bytes: &[u8]) -> R<()> {
        match self.io.stdout.write_all(bytes) {
            Ok(()) => Ok(()),
            Err(e) if common::error::is_broken_pipe(&e) => Err(Abort::BrokenPipe),
            Err(e) => fatal(format!("print to \"standard output\" failed ({})", common::strerror(&e))),
        }
    }

    /// The keys for `for (k in a)`: gawk's order, or PROCINFO["sorted_in"]'s.
    fn for_in_keys(&mut self, id: usize) -> R<Vec<OwnedKey>> {
        let order = match self.globals[vars::PROCINFO as usize] {
            Cell::Arr(p) => self.arrays[p].get(Key::Str(b"sorted_in")).map(|v| v.to_str(&self.convfmt)),
            Cell::Val(_) => None,
        };
        let keys = self.arrays[id].keys();
        match order {
            Some(order) if !order.is_empty() && &*order != b"@unsorted" => self.sort_keys(id, keys, &order),
            _ => Ok(keys),
        }
    }

    /// getline in its three forms; returns 1, 0 (end of input) or -1 (error).
    pub fn getline(&mut self, source: GetlineSource, file: Option<&Expr>, target: Option<&LValue>) -> R<f64> {
        match source {
            GetlineSource::Main => {
                let mut line = Vec::new();
                let got = match target {
                    None => self.next_main_record(None)?,
                    Some(_) => self.next_main_record(Some(&mut line))?,
                };
                if !got {
                    return Ok(0.0);
                }
                self.nr += 1.0;
                self.fnr += 1.0;
                if let Some(target) = target {
                    self.assign_lvalue(target, Value::StrNum(line.into()))?;
                }
                Ok(1.0)
            }
            GetlineSource::File | GetlineSource::Command => {
                let command = source == GetlineSource::Command;
                if self.sandboxed && command {
                    return fatal("redirection not allowed in sandbox mode");
                }
                let mut name = Vec::new();
                if let Some(file) = file {
                    self.eval_str_into(file, &mut name)?;
                }
                if command {
                    let Interp { streams, io, .. } = self;
                    streams.flush_all(io.stdout, io.stderr);
                }
                let env = if command { self.child_env() } else { Vec::new() };
                let mut line = Vec::new();
                let mut rt = Vec::new();
                let result = {
                    let Interp { streams, io, stdin_reader, rs, .. } = self;
                    let mut stdin = StdinRead(&mut *io.stdin);
                    streams.read_record(&name, command, &env, rs, &mut stdin, stdin_reader, &mut line, &mut rt)
                };
                match result {
                    ReadResult::Record => {}
                    ReadResult::Eof => return Ok(0.0),
                    ReadResult::Error => return Ok(-1.0),
                }
                // gawk counts neither form in NR/FNR.
                self.rt = rt;
                match target {
                    Some(target) => self.assign_lvalue(target, Value::StrNum(line.into()))?,
                    None => self.rec.set(&line),
                }
                Ok(1.0)
            }
        }
    }

    /// Runs BEGIN, the main loop and END; returns the exit status.
    pub fn run_program(&mut self) -> R<()> {
        let prog = self.prog;
        let exiting = self.run_special(true)?;
        let main_rules: Vec<&Rule> = prog.rules.iter().filter(|r| matches!(r.pattern, Pattern::All | Pattern::Expr(_) | Pattern::Range(..))).collect();
        let has_end = prog.rules.iter().any(|r| matches!(r.pattern, Pattern::End | Pattern::BeginFile | Pattern::EndFile));
        if !exiting && (!main_rules.is_empty() || has_end) {
            'records: loop {
                if !self.next_main_record(None)? {
                    break;
                }
                self.nr += 1.0;
                self.fnr += 1.0;
                for rule in &main_rules {
                    match self.run_rule(rule) {
                        Ok(()) => {}
                        Err(Abort::Next) => continue 'records,
                        Err(Abort::NextFile) => {
                            self.end_current_file()?;
                            continue 'records;
                        }
                        Err(Abort::Exit(code)) => {
                            if let Some(code) = code {
                                self.exit_code = code;
                            }
                            break 'records;
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        self.run_special(false)?;
        Ok(())
    }

    /// Runs the BEGIN or END rules; whether one called `exit`.
    fn run_special(&mut self, begin: bool) -> R<bool> {
        let prog = self.prog;
        let name = if begin { "BEGIN" } else { "END" };
        for rule in prog.rules.iter().filter(|r| if begin { matches!(r.pattern, Pattern::Begin) } else { matches!(r.pattern, Pattern::End) }) {
            self.line = rule.line;
            match self.run_action(rule) {
                Ok(()) => {}
                Err(Abort::Exit(code)) => {
                    if let Some(code) = code {
                        self.exit_code = code;
                    }
                    return Ok(true);
                }
                Err(Abort::Next) | Err(Abort::NextFile) => return fatal(format!("`next' used in {} action", name)),
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }

    fn run_action(&mut self, rule: &Rule) -> R<()> {
        match &rule.action {
            Some(stmts) => {
                self.exec_block(stmts)?;
            }
            None => {
                let mut buf = self.take_buf();
                buf.extend_from_slice(self.rec.text());
                buf.extend_from_slice(&self.ors);
                let r = self.write_stdout(&buf);
                self.give_buf(buf);
                r?;
            }
        }
        Ok(())
    }

    fn run_rule(&mut self, rule: &Rule) -> R<()> {
        self.line = rule.line;
        let matched = match &rule.pattern {
            Pattern::All => true,
            Pattern::Expr(e) => self.eval_bool(e)?,
            Pattern::Range(start, stop, slot) => {
                if self.ranges[*slot] {
                    if self.eval_bool(stop)? {
                        self.ranges[*slot] = false;
                    }
                    true
                } else if self.eval_bool(start)? {
                    self.ranges[*slot] = !self.eval_bool(stop)?;
                    true
                } else {
                    false
                }
            }
            _ => false,
        };
        if matched {
            self.run_action(rule)?;
        }
        Ok(())
    }
}

fn target_name(redirect: Option<&(Redirect, Expr)>) -> &[u8] {
    match redirect {
        Some((_, Expr::Str(s))) => s,
        _ => b"output",
    }
}
