//! Running a parsed sed script over the input: the cycle (read a line into the pattern
//! space, run the commands, print it unless -n, flush the append queue), addresses and
//! ranges, hold space, and the commands' effects.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::rc::Rc;

use common::regex::Regex;

use super::input::Input;
use super::script::{Addr, Addr2, Kind, Script, SedRegex, Subst};

#[path = "edit.rs"]
mod edit;
use edit::{list, translate};

pub struct Settings {
    pub quiet: bool,
    pub line_wrap: usize,
    pub unbuffered: bool,
    pub delim: u8,
    pub posix: bool,
    /// -s/-i: `$` and line numbers are per file.
    pub separate: bool,
}

/// Where `w` and `s///w` write.
pub enum Target {
    Stdout,
    Stderr,
    File(io::BufWriter<File>, bool),
}

enum Queued {
    Text(Vec<u8>),
    File(Vec<u8>),
}

/// How a cycle ended.
enum End {
    /// End of script: print the pattern space unless -n.
    Normal,
    /// d: no print.
    Delete,
    /// D with a newline left: start again without reading.
    Restart,
    /// q (print) / Q or n/N at the end of input in POSIX mode (no print).
    Quit(bool),
}

#[derive(Clone, Copy, Default)]
struct Range {
    active: bool,
    end: u64,
}

/// A runtime error (status 4, like GNU's I/O and runtime failures) or a write error.
pub enum Failure {
    Io(io::Error),
    Message(String, i32),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Io(e)
    }
}

pub struct Exec<'s> {
    script: &'s Script,
    settings: Settings,
    ps: Vec<u8>,
    hold: Vec<u8>,
    chomped: bool,
    /// Whether the hold space "ends with a newline": GNU moves this flag along with the
    /// text (h, H, g, G, x), which decides if a last line without newline gets one.
    hold_chomped: bool,
    lineno: u64,
    ranges: Vec<Range>,
    last_regex: Option<Rc<Regex>>,
    queue: Vec<Queued>,
    replaced: bool,
    pub exit: Option<i32>,
    pub targets: Vec<Target>,
    readers: Vec<Option<BufReader<File>>>,
    /// The main output lacks a final newline (the input's last line had none).
    missing_newline: bool,
}

impl<'s> Exec<'s> {
    pub fn new(script: &'s Script, settings: Settings, targets: Vec<Target>) -> Exec<'s> {
        let mut ranges = vec![Range::default(); script.commands.len()];
        for (i, c) in script.commands.iter().enumerate() {
            if let Some(Addr::Zero) = c.addr1 {
                ranges[i].active = true;
            }
        }
        let readers = script.read_files.iter().map(|n| File::open(String::from_utf8_lossy(n).as_ref()).ok().map(BufReader::new)).collect();
        Exec { script, settings, ps: Vec::new(), hold: Vec::new(), chomped: true, hold_chomped: true, lineno: 0, ranges, last_regex: None, queue: Vec::new(), replaced: false, exit: None, targets, readers, missing_newline: false }
    }

    pub fn delim(&self) -> u8 {
        self.settings.delim
    }

    /// Runs over `input` until it ends or the script quits. `out` is the main output.
    pub fn run(&mut self, input: &mut Input, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Failure> {
        if self.settings.separate {
            self.lineno = 0;
        }
        self.missing_newline = false;
        let mut restart = false;
        loop {
            if !restart {
                match input.read(err) {
                    Some(line) => {
                        self.ps = line.data;
                        self.chomped = line.chomped;
                        self.lineno += 1;
                        self.replaced = false;
                    }
                    None => break,
                }
            }
            restart = false;
            let end = self.cycle(input, out, err)?;
            match end {
                End::Normal | End::Quit(true) => {
                    if !self.settings.quiet {
                        self.emit_ps(out)?;
                    }
                }
                End::Restart => restart = true,
                _ => {}
            }
            self.dump_queue(out)?;
            if self.settings.unbuffered {
                out.flush()?;
            }
            if let End::Quit(_) = end {
                if self.exit.is_none() {
                    self.exit = Some(0);
                }
                break;
            }
        }
        Ok(())
    }

    fn write_out(&mut self, out: &mut dyn Write, data: &[u8], newline: bool) -> io::Result<()> {
        if self.missing_newline {
            out.write_all(&[self.settings.delim])?;
            self.missing_newline = false;
        }
        out.write_all(data)?;
        if newline {
            out.write_all(&[self.settings.delim])?;
        } else {
            self.missing_newline = true;
        }
        Ok(())
    }

    fn emit_ps(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let ps = std::mem::take(&mut self.ps);
        let r = self.write_out(out, &ps, self.chomped);
        self.ps = ps;
        r
    }

    fn dump_queue(&mut self, out: &mut dyn Write) -> io::Result<()> {
        for item in std::mem::take(&mut self.queue) {
            match item {
                Queued::Text(t) => {
                    if self.missing_newline {
                        out.write_all(&[self.settings.delim])?;
                        self.missing_newline = false;
                    }
                    out.write_all(&t)?;
                }
                Queued::File(name) => {
                    if let Ok(data) = std::fs::read(String::from_utf8_lossy(&name).as_ref()) {
                        if !data.is_empty() {
                            if self.missing_newline {
                                out.write_all(&[self.settings.delim])?;
                                self.missing_newline = false;
                            }
                            out.write_all(&data)?;
                            if data.last() != Some(&b'\n') {
                                self.missing_newline = true;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn regex_for(&mut self, re: &SedRegex) -> Result<Rc<Regex>, Failure> {
        match re {
            Some(r) => {
                self.last_regex = Some(r.clone());
                Ok(r.clone())
            }
            None => self.last_regex.clone().ok_or_else(|| Failure::Message("no previous regular expression".into(), 1)),
        }
    }

    fn match_addr(&mut self, addr: &Addr, input: &Input) -> Result<bool, Failure> {
        Ok(match addr {
            Addr::Line(n) => self.lineno == *n,
            Addr::Last => input.is_last() && (self.settings.separate || !input.has_pending_files() || input.is_last()),
            Addr::Regex(re) => {
                let re = self.regex_for(re)?;
                re.is_match(&self.ps)
            }
            Addr::Step(first, step) => {
                if *step == 0 {
                    self.lineno == *first
                } else {
                    self.lineno >= *first && (self.lineno - first) % step == 0
                }
            }
            Addr::Zero => false,
        })
    }

    fn selected(&mut self, i: usize, input: &Input) -> Result<bool, Failure> {
        let script = self.script;
        let c = &script.commands[i];
        let hit = match (&c.addr1, &c.addr2) {
            (None, _) => true,
            (Some(a), None) => self.match_addr(a, input)?,
            (Some(a1), Some(a2)) => self.match_range(i, a1, a2, input)?,
        };
        Ok(hit != c.negate)
    }

    fn match_range(&mut self, i: usize, a1: &Addr, a2: &Addr2, input: &Input) -> Result<bool, Failure> {
        let line = self.lineno;
        if self.ranges[i].active {
            let ends = match a2 {
                Addr2::Addr(Addr::Line(n)) => line >= *n,
                Addr2::Plus(_) | Addr2::Tilde(_) => line >= self.ranges[i].end,
                Addr2::Addr(a) => self.match_addr(a, input)?,
            };
            if ends {
                self.ranges[i].active = false;
            }
            return Ok(true);
        }
        if !self.match_addr(a1, input)? {
            return Ok(false);
        }
        let range = &mut self.ranges[i];
        match a2 {
            Addr2::Addr(Addr::Line(n)) => range.active = *n > line,
            Addr2::Plus(n) => {
                range.active = *n > 0;
                range.end = line + n;
            }
            Addr2::Tilde(n) => {
                // GNU 4.9 runs to the next multiple even when this line is one.
                range.active = *n > 0;
                if *n > 0 {
                    range.end = (line / n + 1) * n;
                }
            }
            Addr2::Addr(Addr::Last) => range.active = !input.is_last(),
            Addr2::Addr(_) => range.active = true,
        }
        Ok(true)
    }

    fn cycle(&mut self, input: &mut Input, out: &mut dyn Write, err: &mut dyn Write) -> Result<End, Failure> {
        let script = self.script;
        let n = script.commands.len();
        let mut pc = 0;
        while pc < n {
            if !self.selected(pc, input)? {
                pc = match script.commands[pc].kind {
                    Kind::Block(after) => after,
                    _ => pc + 1,
                };
                continue;
            }
            let command = &script.commands[pc];
            pc += 1;
            match &command.kind {
                Kind::Block(_) | Kind::EndBlock | Kind::Nop => {}
                Kind::LineNumber => {
                    let text = format!("{}\n", self.lineno);
                    self.write_out(out, text.as_bytes(), false)?;
                    self.missing_newline = false;
                }
                Kind::Append(text) => self.queue.push(Queued::Text(text.clone())),
                Kind::Insert(text) => {
                    self.write_out(out, text, false)?;
                    self.missing_newline = false;
                }
                Kind::Change(text) => {
                    let in_range = command.addr2.is_some() && !command.negate && self.ranges[pc - 1].active;
                    if !in_range {
                        self.write_out(out, text, false)?;
                        self.missing_newline = false;
                    }
                    return Ok(End::Delete);
                }
                Kind::Branch(target) => pc = *target,
                Kind::BranchIfSub(target) => {
                    if self.replaced {
                        self.replaced = false;
                        pc = *target;
                    }
                }
                Kind::BranchIfNoSub(target) => {
                    if !self.replaced {
                        pc = *target;
                    } else {
                        self.replaced = false;
                    }
                }
                Kind::Delete => return Ok(End::Delete),
                Kind::DeleteFirst => match memchr::memchr(b'\n', &self.ps) {
                    Some(i) => {
                        self.ps.drain(..=i);
                        return Ok(End::Restart);
                    }
                    None => return Ok(End::Delete),
                },
                Kind::Exec(cmd) => self.exec(cmd.as_deref(), out)?,
                Kind::FileName => {
                    let mut name = if input.name.is_empty() { b"-".to_vec() } else { input.name.clone() };
                    name.push(b'\n');
                    self.write_out(out, &name, false)?;
                    self.missing_newline = false;
                }
                Kind::Get => {
                    self.ps = self.hold.clone();
                    self.chomped = self.hold_chomped;
                }
                Kind::GetAppend => {
                    self.ps.push(b'\n');
                    let hold = std::mem::take(&mut self.hold);
                    self.ps.extend_from_slice(&hold);
                    self.hold = hold;
                    self.chomped = self.hold_chomped;
                }
                Kind::Hold => {
                    self.hold = self.ps.clone();
                    self.hold_chomped = self.chomped;
                }
                Kind::HoldAppend => {
                    self.hold.push(b'\n');
                    self.hold.extend_from_slice(&self.ps);
                    self.hold_chomped = self.chomped;
                }
                Kind::List(width) => {
                    let width = width.unwrap_or(self.settings.line_wrap);
                    let text = list(&self.ps, width);
                    self.write_out(out, &text, false)?;
                    self.missing_newline = false;
                }
                Kind::Next | Kind::NextAppend => {
                    if let Some(end) = self.next_line(matches!(command.kind, Kind::Next), input, out, err)? {
                        return Ok(end);
                    }
                }
                Kind::Print => self.emit_ps(out)?,
                Kind::PrintFirst => {
                    let end = memchr::memchr(b'\n', &self.ps).unwrap_or(self.ps.len());
                    let first = self.ps[..end].to_vec();
                    self.write_out(out, &first, true)?;
                }
                Kind::Quit(code) => {
                    self.exit = Some(*code);
                    return Ok(End::Quit(true));
                }
                Kind::QuitSilent(code) => {
                    self.exit = Some(*code);
                    return Ok(End::Quit(false));
                }
                Kind::ReadFile(name) => self.queue.push(Queued::File(name.clone())),
                Kind::ReadLine(index) => {
                    if let Some(Some(reader)) = self.readers.get_mut(*index) {
                        let mut line = Vec::new();
                        if reader.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
                            if line.last() != Some(&b'\n') {
                                line.push(b'\n');
                            }
                            self.queue.push(Queued::Text(line));
                        }
                    }
                }
                Kind::Subst(subst) => self.subst_command(subst, out)?,
                Kind::Write(t) => {
                    let ps = self.ps.clone();
                    self.write_target(*t, &ps, out)?;
                }
                Kind::WriteFirst(t) => {
                    let end = memchr::memchr(b'\n', &self.ps).unwrap_or(self.ps.len());
                    let first = self.ps[..end].to_vec();
                    self.write_target(*t, &first, out)?;
                }
                Kind::Exchange => {
                    std::mem::swap(&mut self.ps, &mut self.hold);
                    std::mem::swap(&mut self.chomped, &mut self.hold_chomped);
                }
                Kind::Translate(map) => self.ps = translate(&self.ps, map),
                Kind::Zap => self.ps.clear(),
            }
        }
        Ok(End::Normal)
    }

    /// `e [command]`: runs the command and prints its output, or (without one) runs the
    /// pattern space and replaces it with the output.
    fn exec(&mut self, cmd: Option<&[u8]>, out: &mut dyn Write) -> Result<(), Failure> {
        out.flush()?;
        match cmd {
            Some(c) => {
                let output = super::shell_output(c).map_err(|e| Failure::Message(e, 4))?;
                self.write_out(out, &output, false)?;
                self.missing_newline = false;
            }
            None => {
                let mut output = super::shell_output(&self.ps).map_err(|e| Failure::Message(e, 4))?;
                if output.last() == Some(&b'\n') {
                    output.pop();
                }
                self.ps = output;
            }
        }
        Ok(())
    }

    /// `n` (`replace`) and `N`: the next line replaces or is appended to the pattern space;
    /// Some when there is none and the cycle ends.
    fn next_line(&mut self, replace: bool, input: &mut Input, out: &mut dyn Write, err: &mut dyn Write) -> Result<Option<End>, Failure> {
        if input.is_last() || self.exit.is_some() {
            // GNU prints the pattern space and stops (POSIX mode: no print for N).
            let print = !(self.settings.posix && !replace);
            return Ok(Some(End::Quit(print)));
        }
        if replace {
            if !self.settings.quiet {
                self.emit_ps(out)?;
            }
        }
        self.dump_queue(out)?;
        if let Some(line) = input.read(err) {
            self.lineno += 1;
            self.replaced = false;
            if replace {
                self.ps = line.data;
            } else {
                self.ps.push(b'\n');
                self.ps.extend_from_slice(&line.data);
            }
            self.chomped = line.chomped;
        }
        Ok(None)
    }

    /// `s///` with its flags: `e` runs the result, `p` prints it, `w` writes it.
    fn subst_command(&mut self, subst: &Subst, out: &mut dyn Write) -> Result<(), Failure> {
        if self.substitute(subst)? {
            self.replaced = true;
            if subst.eval {
                out.flush()?;
                let mut output = super::shell_output(&self.ps).map_err(|e| Failure::Message(e, 4))?;
                if output.last() == Some(&b'\n') {
                    output.pop();
                }
                self.ps = output;
            }
            if subst.print {
                self.emit_ps(out)?;
            }
            if let Some(t) = subst.write {
                let ps = self.ps.clone();
                self.write_target(t, &ps, out)?;
            }
        }
        Ok(())
    }

    fn write_target(&mut self, index: usize, data: &[u8], out: &mut dyn Write) -> io::Result<()> {
        let delim = self.settings.delim;
        match self.targets.get_mut(index) {
            Some(Target::Stdout) => self.write_out(out, data, true),
            Some(Target::Stderr) => {
                let mut e = io::stderr();
                e.write_all(data)?;
                e.write_all(&[delim])
            }
            Some(Target::File(w, _)) => {
                w.write_all(data)?;
                w.write_all(&[delim])?;
                if self.settings.unbuffered {
                    w.flush()?;
                }
                Ok(())
            }
            None => Ok(()),
        }
    }
}
