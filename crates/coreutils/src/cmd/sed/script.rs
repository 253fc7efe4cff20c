//! The sed script as data: addresses, commands and the `s` replacement, produced by
//! `parse.rs` and run by `exec.rs`.

use std::rc::Rc;

use common::regex::Regex;

/// A regex in an address or `s` command; None = the empty regex (reuse the last one used).
pub type SedRegex = Option<Rc<Regex>>;

#[derive(Clone)]
pub enum Addr {
    Line(u64),
    Last,
    Regex(SedRegex),
    /// first~step
    Step(u64, u64),
    /// `0` in `0,/re/`.
    Zero,
}

#[derive(Clone)]
pub enum Addr2 {
    Addr(Addr),
    /// addr1,+N
    Plus(u64),
    /// addr1,~N
    Tilde(u64),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CaseOp {
    Lower,
    Upper,
    LowerOne,
    UpperOne,
    End,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Piece {
    Literal(Vec<u8>),
    /// `&` (0) or `\1`–`\9`.
    Group(usize),
    Case(CaseOp),
}

pub struct Subst {
    pub regex: SedRegex,
    pub replacement: Vec<Piece>,
    pub global: bool,
    /// Replace starting at the Nth match (1 = first).
    pub occurrence: usize,
    pub print: bool,
    pub eval: bool,
    pub write: Option<usize>,
    /// The replacement uses groups or case conversion (needs captures, not just extents).
    pub needs_groups: bool,
}

pub enum Kind {
    /// `{`: index of the command after the matching `}`.
    Block(usize),
    EndBlock,
    LineNumber,
    Append(Vec<u8>),
    Insert(Vec<u8>),
    Change(Vec<u8>),
    /// b/t/T: target command index (script length = end of script).
    Branch(usize),
    BranchIfSub(usize),
    BranchIfNoSub(usize),
    Delete,
    DeleteFirst,
    Exec(Option<Vec<u8>>),
    FileName,
    Get,
    GetAppend,
    Hold,
    HoldAppend,
    List(Option<usize>),
    Next,
    NextAppend,
    Print,
    PrintFirst,
    Quit(i32),
    QuitSilent(i32),
    ReadFile(Vec<u8>),
    /// R: index into the script's line-reading files.
    ReadLine(usize),
    Subst(Box<Subst>),
    Write(usize),
    WriteFirst(usize),
    Exchange,
    /// y: (from, to) characters.
    Translate(Vec<(Vec<u8>, Vec<u8>)>),
    Zap,
    Nop,
}

pub struct Command {
    pub addr1: Option<Addr>,
    pub addr2: Option<Addr2>,
    pub negate: bool,
    pub kind: Kind,
}

/// A parsed script: commands plus the files `w`/`R` name (opened once, before input).
pub struct Script {
    pub commands: Vec<Command>,
    pub write_files: Vec<Vec<u8>>,
    pub read_files: Vec<Vec<u8>>,
    /// `#n` on the first line.
    pub quiet: bool,
}
