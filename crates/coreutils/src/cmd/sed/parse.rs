//! The sed script parser (GNU sed 4.9 syntax and error messages). Scripts from several -e
//! and -f are joined with newlines, as GNU does (so `-e 'a\' -e text` works); errors name
//! the piece they come from: `-e expression #2, char 5: …` or `file F line 3: …`.

use super::script::{Addr, Addr2, Command, Kind, Script};

// Addresses and delimited (regex) text, in their own file.
#[path = "parse_addr.rs"]
mod addr;
#[path = "parse_subst.rs"]
mod subst;

/// Where a piece of the joined script came from.
pub enum Origin {
    Expression,
    File(String),
}

pub struct Source {
    pub text: Vec<u8>,
    /// (start offset in text, origin) per piece, in order.
    pub pieces: Vec<(usize, Origin)>,
}

impl Source {
    pub fn new() -> Source {
        Source { text: Vec::new(), pieces: Vec::new() }
    }

    pub fn add(&mut self, text: &[u8], origin: Origin) {
        if !self.pieces.is_empty() {
            self.text.push(b'\n');
        }
        self.pieces.push((self.text.len(), origin));
        self.text.extend_from_slice(text);
        if let Some(Origin::File(_)) = self.pieces.last().map(|p| &p.1) {
            if self.text.last() == Some(&b'\n') {
                self.text.pop();
            }
        }
    }

    /// GNU's location prefix for an error at byte `pos` (chars consumed so far).
    fn locate(&self, pos: usize) -> String {
        let mut index = 0;
        for (i, (start, _)) in self.pieces.iter().enumerate() {
            if *start <= pos.saturating_sub(1) || i == 0 {
                index = i;
            }
        }
        let (start, origin) = &self.pieces[index];
        match origin {
            Origin::Expression => {
                let number = self.pieces[..=index].iter().filter(|p| matches!(p.1, Origin::Expression)).count();
                format!("-e expression #{}, char {}", number, pos.saturating_sub(*start))
            }
            Origin::File(name) => {
                let line = 1 + self.text[*start..pos.min(self.text.len())].iter().filter(|b| **b == b'\n').count();
                format!("file {} line {}", name, line)
            }
        }
    }
}

pub struct Options {
    pub extended: bool,
    pub sandbox: bool,
}

pub struct Parser<'a> {
    src: &'a Source,
    s: &'a [u8],
    pos: usize,
    opts: &'a Options,
    commands: Vec<Command>,
    write_files: Vec<Vec<u8>>,
    read_files: Vec<Vec<u8>>,
    /// Open `{` command indexes.
    blocks: Vec<usize>,
    /// (command index, label) of jumps to resolve, and defined labels.
    jumps: Vec<(usize, Vec<u8>)>,
    labels: Vec<(Vec<u8>, usize)>,
}

type PResult<T> = Result<T, String>;

pub fn parse(src: &Source, opts: &Options) -> PResult<Script> {
    let mut p = Parser { src, s: &src.text, pos: 0, opts, commands: Vec::new(), write_files: Vec::new(), read_files: Vec::new(), blocks: Vec::new(), jumps: Vec::new(), labels: Vec::new() };
    // GNU 4.9 takes any script starting with `#n` as -n (its check's precedence lets `#no` in).
    let quiet = p.s.starts_with(b"#n");
    p.script()?;
    if !p.blocks.is_empty() {
        return Err(format!("{}: unmatched `{{'", p.src.locate(0)));
    }
    let end = p.commands.len();
    for (index, label) in std::mem::take(&mut p.jumps) {
        let target = if label.is_empty() {
            end
        } else {
            match p.labels.iter().find(|(l, _)| *l == label) {
                Some((_, t)) => *t,
                None => return Err(format!("can't find label for jump to `{}'", String::from_utf8_lossy(&label))),
            }
        };
        match &mut p.commands[index].kind {
            Kind::Branch(t) | Kind::BranchIfSub(t) | Kind::BranchIfNoSub(t) => *t = target,
            _ => {}
        }
    }
    Ok(Script { commands: p.commands, write_files: p.write_files, read_files: p.read_files, quiet })
}

impl<'a> Parser<'a> {
    fn err(&self, message: &str) -> String {
        format!("{}: {}", self.src.locate(self.pos), message)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ') | Some(b'\t')) {
            self.pos += 1;
        }
    }

    fn skip_blanks_and_separators(&mut self) {
        while matches!(self.peek(), Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b';')) {
            self.pos += 1;
        }
    }

    fn script(&mut self) -> PResult<()> {
        loop {
            self.skip_blanks_and_separators();
            if self.peek().is_none() {
                return Ok(());
            }
            if self.peek() == Some(b'#') {
                while !matches!(self.next(), Some(b'\n') | None) {}
                continue;
            }
            self.command()?;
        }
    }

    /// A command's addresses: none, one, or a range (`a,b`, `a,+N`, `a,~N`).
    fn addresses(&mut self) -> PResult<(Option<Addr>, Option<Addr2>)> {
        let addr1 = self.address()?;
        let mut addr2 = None;
        if addr1.is_some() {
            self.skip_spaces();
            if self.peek() == Some(b',') {
                self.pos += 1;
                self.skip_spaces();
                addr2 = Some(match self.peek() {
                    Some(b'+') | Some(b'~') => {
                        let plus = self.next() == Some(b'+');
                        let n = match self.number() {
                            Some(n) => n,
                            None => return Err(self.err("expected newer version of sed")),
                        };
                        if plus {
                            Addr2::Plus(n)
                        } else {
                            Addr2::Tilde(n)
                        }
                    }
                    _ => match self.address()? {
                        Some(Addr::Zero) => return Err(self.err("invalid usage of line address 0")),
                        Some(a) => Addr2::Addr(a),
                        None => return Err(self.err("unexpected `,'")),
                    },
                });
            }
        }
        if let Some(Addr::Zero) = addr1 {
            if !matches!(addr2, Some(Addr2::Addr(Addr::Regex(_)))) {
                return Err(self.err("invalid usage of line address 0"));
            }
        }
        Ok((addr1, addr2))
    }

    fn command(&mut self) -> PResult<()> {
        let (addr1, addr2) = self.addresses()?;
        self.skip_spaces();
        let mut negate = false;
        while self.peek() == Some(b'!') {
            self.pos += 1;
            negate = true;
            self.skip_spaces();
        }
        let c = match self.next() {
            Some(c) => c,
            None => return Err(self.err("missing command")),
        };
        let has_addr = addr1.is_some();
        let one_addr_only = |p: &Self| if addr2.is_some() { Err(p.err("command only uses one address")) } else { Ok(()) };
        let kind = match c {
            b'{' => {
                self.blocks.push(self.commands.len());
                Kind::Block(0)
            }
            b'}' => {
                if has_addr || negate {
                    return Err(self.err("} doesn't want any addresses"));
                }
                let open = match self.blocks.pop() {
                    Some(o) => o,
                    None => return Err(self.err("unexpected `}'")),
                };
                let after = self.commands.len() + 1;
                self.commands[open].kind = Kind::Block(after);
                self.end_of_command()?;
                Kind::EndBlock
            }
            b'#' => {
                if has_addr {
                    return Err(self.err("comments don't accept any addresses"));
                }
                while !matches!(self.next(), Some(b'\n') | None) {}
                return Ok(());
            }
            b':' => {
                if has_addr {
                    return Err(self.err(": doesn't want any addresses"));
                }
                self.skip_spaces();
                let label = self.label();
                if label.is_empty() {
                    return Err(self.err("\":\" lacks a label"));
                }
                self.labels.push((label, self.commands.len()));
                return Ok(());
            }
            b'=' => self.simple(Kind::LineNumber)?,
            b'a' | b'i' | b'c' => {
                let text = self.text()?;
                match c {
                    b'a' => Kind::Append(text),
                    b'i' => Kind::Insert(text),
                    _ => Kind::Change(text),
                }
            }
            b'b' | b't' | b'T' => {
                self.skip_spaces();
                let label = self.label();
                self.jumps.push((self.commands.len(), label));
                self.end_of_command()?;
                match c {
                    b'b' => Kind::Branch(0),
                    b't' => Kind::BranchIfSub(0),
                    _ => Kind::BranchIfNoSub(0),
                }
            }
            b'd' => self.simple(Kind::Delete)?,
            b'D' => self.simple(Kind::DeleteFirst)?,
            b'e' => {
                if self.opts.sandbox {
                    return Err(self.err("e/r/w commands disabled in sandbox mode"));
                }
                self.skip_spaces();
                let cmd = self.rest_of_line();
                Kind::Exec(if cmd.is_empty() { None } else { Some(cmd) })
            }
            b'F' => self.simple(Kind::FileName)?,
            b'g' => self.simple(Kind::Get)?,
            b'G' => self.simple(Kind::GetAppend)?,
            b'h' => self.simple(Kind::Hold)?,
            b'H' => self.simple(Kind::HoldAppend)?,
            b'l' | b'L' | b'q' | b'Q' => {
                if c == b'q' || c == b'Q' {
                    one_addr_only(self)?;
                }
                self.skip_spaces();
                let n = self.number();
                self.end_of_command()?;
                match c {
                    b'l' | b'L' => Kind::List(n.map(|n| n as usize)),
                    b'q' => Kind::Quit(n.unwrap_or(0) as i32),
                    _ => Kind::QuitSilent(n.unwrap_or(0) as i32),
                }
            }
            b'n' => self.simple(Kind::Next)?,
            b'N' => self.simple(Kind::NextAppend)?,
            b'p' => self.simple(Kind::Print)?,
            b'P' => self.simple(Kind::PrintFirst)?,
            b'r' | b'R' | b'w' | b'W' => {
                if self.opts.sandbox {
                    return Err(self.err("e/r/w commands disabled in sandbox mode"));
                }
                let name = self.filename()?;
                match c {
                    b'r' => Kind::ReadFile(name),
                    b'R' => {
                        self.read_files.push(name);
                        Kind::ReadLine(self.read_files.len() - 1)
                    }
                    b'w' => Kind::Write(self.write_file(name)),
                    _ => Kind::WriteFirst(self.write_file(name)),
                }
            }
            b's' => self.substitute()?,
            b'x' => self.simple(Kind::Exchange)?,
            b'y' => self.translate()?,
            b'z' => self.simple(Kind::Zap)?,
            b'v' => {
                self.label();
                self.end_of_command()?;
                Kind::Nop
            }
            _ => {
                return Err(self.err(&format!("unknown command: `{}'", char::from(c))));
            }
        };
        self.commands.push(Command { addr1, addr2, negate, kind });
        Ok(())
    }

    fn simple(&mut self, kind: Kind) -> PResult<Kind> {
        self.end_of_command()?;
        Ok(kind)
    }

    /// After a command: spaces, then `;`, newline, `}`, `#` or the end.
    fn end_of_command(&mut self) -> PResult<()> {
        self.skip_spaces();
        match self.peek() {
            None | Some(b'\n') | Some(b';') => {
                if self.peek().is_some() {
                    self.pos += 1;
                }
                Ok(())
            }
            Some(b'}') | Some(b'#') => Ok(()),
            Some(_) => {
                self.pos += 1;
                Err(self.err("extra characters after command"))
            }
        }
    }

    fn label(&mut self) -> Vec<u8> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == b'\n' || c == b';' {
                break;
            }
            self.pos += 1;
        }
        let mut label = self.s[start..self.pos].to_vec();
        while matches!(label.last(), Some(b' ') | Some(b'\t')) {
            label.pop();
        }
        label
    }

    fn rest_of_line(&mut self) -> Vec<u8> {
        let start = self.pos;
        while !matches!(self.peek(), Some(b'\n') | None) {
            self.pos += 1;
        }
        let text = self.s[start..self.pos].to_vec();
        if self.peek().is_some() {
            self.pos += 1;
        }
        text
    }

    fn filename(&mut self) -> PResult<Vec<u8>> {
        self.skip_spaces();
        let name = self.rest_of_line();
        if name.is_empty() {
            return Err(self.err("missing filename in r/R/w/W commands"));
        }
        Ok(name)
    }

    fn write_file(&mut self, name: Vec<u8>) -> usize {
        match self.write_files.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                self.write_files.push(name);
                self.write_files.len() - 1
            }
        }
    }

    /// The text of a/i/c: GNU's one-liner (`a text`) or the POSIX form (`a\` newline text),
    /// lines continued by a trailing backslash. Returned with its final newline.
    fn text(&mut self) -> PResult<Vec<u8>> {
        self.skip_spaces();
        if self.peek().is_none() {
            return Err(self.err("expected \\ after `a', `c' or `i'"));
        }
        if self.peek() == Some(b'\\') {
            self.pos += 1;
            if self.peek() == Some(b'\n') {
                self.pos += 1;
            }
        }
        let mut out = Vec::new();
        loop {
            match self.next() {
                None | Some(b'\n') => break,
                Some(b'\\') => match self.next() {
                    None => break,
                    Some(e) => match convert_escape(e) {
                        Some(b) if e != b'n' => out.push(b),
                        _ => out.push(e),
                    },
                },
                Some(c) => out.push(c),
            }
        }
        // `$a\` with no text appends nothing (the idiom that adds a missing final newline).
        if !out.is_empty() {
            out.push(b'\n');
        }
        Ok(out)
    }
}

/// sed's character escapes: `\n \t \a \f \v \r`.
pub(super) fn convert_escape(e: u8) -> Option<u8> {
    Some(match e {
        b'n' => b'\n',
        b't' => b'\t',
        b'a' => 7,
        b'f' => 12,
        b'v' => 11,
        b'r' => b'\r',
        _ => return None,
    })
}
