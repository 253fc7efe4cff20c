//! The typed syntax tree of a bash program. Everything the interpreter needs is decided
//! here, at parse time: words are sequences of typed parts, arithmetic and `[[ ]]` are
//! trees, here-document bodies are words. Nothing is kept as text to be re-parsed later,
//! except arithmetic whose text contains expansions (`$((1 $op 2))`), which bash itself
//! expands before parsing (see [`Arith::Dynamic`]).

use std::cell::RefCell;
use std::rc::Rc;

/// A sequence of and-or lists separated by `;`, `&` or newlines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct List {
    pub items: Vec<ListItem>,
}

/// One and-or list and whether it runs in the background (`&`).
#[derive(Debug, Clone, PartialEq)]
pub struct ListItem {
    pub and_or: AndOr,
    pub background: bool,
}

/// `first && second || third ...`
#[derive(Debug, Clone, PartialEq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(AndOrOp, Pipeline)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    And,
    Or,
}

/// `[time [-p]] [!] cmd1 | cmd2 |& cmd3`
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub negated: bool,
    pub timed: Option<TimeMode>,
    pub commands: Vec<Command>,
    /// `pipe_stderr[i]`: the pipe after `commands[i]` was written `|&`.
    pub pipe_stderr: Vec<bool>,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeMode {
    Bash,
    Posix,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Simple(SimpleCommand),
    Compound(Box<CompoundCommand>, Vec<Redirect>),
    Function(Rc<FunctionDef>),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimpleCommand {
    pub assignments: Vec<Assignment>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    pub name: String,
    pub body: CompoundCommand,
    pub redirects: Vec<Redirect>,
    /// Written with the `function` keyword (only matters for printing).
    pub keyword: bool,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CompoundCommand {
    Brace(List),
    Subshell(List),
    If(IfCommand),
    For(ForCommand),
    ArithFor(ArithForCommand),
    While(WhileCommand),
    Case(CaseCommand),
    Select(ForCommand),
    Arith(ArithCommand),
    Cond(CondCommand),
}

#[derive(Debug, Clone, PartialEq)]
pub struct IfCommand {
    /// `if c1; then b1; elif c2; then b2 ...`
    pub branches: Vec<(List, List)>,
    pub else_body: Option<List>,
    pub line: u32,
}

/// `for name [in words]; do body; done`; also `select`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForCommand {
    pub var: String,
    /// `None`: no `in` (iterates over `"$@"`).
    pub words: Option<Vec<Word>>,
    pub body: List,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ArithForCommand {
    /// The text between `((` and `))`, as written (for printing).
    pub text: String,
    pub init: Option<Arith>,
    pub cond: Option<Arith>,
    pub step: Option<Arith>,
    pub body: List,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WhileCommand {
    pub until: bool,
    pub cond: List,
    pub body: List,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseCommand {
    pub subject: Word,
    pub arms: Vec<CaseArm>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseArm {
    pub patterns: Vec<Word>,
    pub body: List,
    pub terminator: CaseTerminator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseTerminator {
    /// `;;`
    Break,
    /// `;&`
    FallThrough,
    /// `;;&`
    Continue,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ArithCommand {
    pub expr: Arith,
    /// The expression as written (for printing and error messages).
    pub text: String,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CondCommand {
    pub expr: CondExpr,
    pub line: u32,
}

/// The expression inside `[[ ]]`.
#[derive(Debug, Clone, PartialEq)]
pub enum CondExpr {
    /// `-f word`, `-z word`, ...
    Unary(String, Word),
    /// `word OP word` for the string, numeric and file operators (not `==`/`=~`).
    Binary(Word, String, Word),
    /// `word == pattern`, `word != pattern` (`=` too).
    Pattern { subject: Word, pattern: Word, negated: bool },
    /// `word =~ regex`
    Regex(Word, Word),
    /// A lone word: true when non-empty.
    Word(Word),
    Not(Box<CondExpr>),
    And(Box<CondExpr>, Box<CondExpr>),
    Or(Box<CondExpr>, Box<CondExpr>),
}

/// `name=value`, `name+=value`, `name[sub]=value`, `name=(a b [k]=v)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub name: String,
    pub subscript: Option<Word>,
    pub append: bool,
    pub value: AssignValue,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AssignValue {
    Scalar(Word),
    Array(Vec<ArrayElement>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ArrayElement {
    /// A word expanded like a command argument (split, globbed, brace-expanded).
    Plain(Word),
    /// `[key]=value` or `[key]+=value`.
    Keyed { key: Word, value: Word, append: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    pub fd: Option<RedirFd>,
    pub op: RedirOp,
    pub target: RedirTarget,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RedirFd {
    Number(u32),
    /// `{name}>file`: the shell picks a descriptor >= 10 and stores it in `name`.
    Var(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    Input,
    /// `>`
    Output,
    /// `>|`
    Clobber,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `<&`
    DupInput,
    /// `>&`
    DupOutput,
    /// `&>`
    OutputBoth,
    /// `&>>`
    AppendBoth,
    /// `<<` and `<<-`
    HereDoc,
    /// `<<<`
    HereString,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RedirTarget {
    Word(Word),
    HereDoc(Rc<HereDoc>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct HereDoc {
    /// The delimiter as written after quote removal.
    pub delimiter: String,
    /// Any part of the delimiter was quoted: the body is taken literally.
    pub quoted: bool,
    /// `<<-`: leading tabs were stripped from the body and the delimiter line.
    pub strip_tabs: bool,
    /// The body: literal text (quoted) or text with `$`, `` ` `` and `\` expansions.
    /// Filled in when the parser reaches the line after the command (bodies come after
    /// the command line that names them), never changed afterwards.
    pub body: RefCell<Word>,
}

/// A word: a sequence of parts, concatenated after expansion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Word {
    pub parts: Vec<WordPart>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum WordPart {
    /// Unquoted text: subject to globbing (but not to splitting).
    Literal(String),
    /// Quoted text (`'...'`, `\c`, `$'...'`, text inside `"..."`): taken as is.
    Quoted(String),
    /// `"..."`: its parts are not split or globbed; keeps an empty field.
    DoubleQuoted(Vec<WordPart>),
    /// `$'...'` after escape processing; quoted like single quotes.
    AnsiQuoted(String),
    /// `~` or `~user` at the start of a word (or after `=`/`:` in assignments).
    Tilde(String),
    Param(Box<ParamExpansion>),
    /// `$(...)` and `` `...` `` (`backquote` only matters for printing).
    CommandSubst { body: Rc<List>, backquote: bool },
    /// `$((...))` (and the obsolete `$[...]`), with the text as written.
    Arith(Box<Arith>, String),
    /// `<(...)` (`output` false) or `>(...)`.
    ProcessSubst { body: Rc<List>, output: bool },
    /// `{a,b}` or `{1..9..2}` in a word where brace expansion applies.
    Brace(Box<BraceExpr>),
    /// An assignment given as an argument to `declare`, `local`, `export`, `readonly` or
    /// `typeset` (not split or globbed; may be an array `a=(1 2)`). Always a whole word.
    Assign(Box<Assignment>),
    /// A `${...}` bash cannot make sense of; an error when expanded, as in bash.
    BadSubst(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum BraceExpr {
    /// `{a,b,c}`: each alternative is itself a word (may contain braces).
    Alternatives(Vec<Word>),
    /// `{1..10..2}`, `{a..e}`: kept as written, generated at expansion time.
    Sequence { start: String, end: String, step: Option<String> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParamExpansion {
    pub param: Param,
    pub op: ParamOp,
    /// `${!name}` (indirection) — for `${!prefix*}` and `${!a[@]}` see [`ParamOp`].
    pub indirect: bool,
    /// Written `$name` rather than `${name}` (only matters for printing).
    pub short: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// A variable, optionally subscripted: `name`, `name[expr]`, `name[@]`, `name[*]`.
    Var { name: String, index: Option<Subscript> },
    Positional(u32),
    /// `@ * # ? - $ ! 0`
    Special(char),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Subscript {
    /// `[@]`
    At,
    /// `[*]`
    Star,
    /// `[expr]`: arithmetic for indexed arrays, a string for associative ones.
    Index(Word),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceMode {
    First,
    All,
    Prefix,
    Suffix,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParamOp {
    None,
    /// `${#x}`
    Length,
    /// `${x-w}` / `${x:-w}`
    Default { colon: bool, word: Word },
    /// `${x=w}` / `${x:=w}`
    Assign { colon: bool, word: Word },
    /// `${x?w}` / `${x:?w}`
    Error { colon: bool, word: Word },
    /// `${x+w}` / `${x:+w}`
    Alternate { colon: bool, word: Word },
    /// `${x#p}` / `${x##p}`
    RemovePrefix { longest: bool, pattern: Word },
    /// `${x%p}` / `${x%%p}`
    RemoveSuffix { longest: bool, pattern: Word },
    /// `${x/p/r}`, `${x//p/r}`, `${x/#p/r}`, `${x/%p/r}`
    Replace { mode: ReplaceMode, pattern: Word, replacement: Option<Word> },
    /// `${x:offset}` / `${x:offset:length}`
    Substring { offset: Arith, length: Option<Arith> },
    /// `${x^p}` `${x^^p}` `${x,p}` `${x,,p}` (`~` toggles case)
    Case { mode: CaseMode, all: bool, pattern: Option<Word> },
    /// `${x@Q}` and the other transformations.
    Transform(char),
    /// `${!prefix*}` / `${!prefix@}`
    PrefixNames { star: bool },
    /// `${!a[@]}` / `${!a[*]}`
    Keys { star: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseMode {
    Upper,
    Lower,
    Toggle,
}

/// An arithmetic expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Arith {
    Number(i64),
    /// A variable (its value is itself evaluated as an expression).
    Var(String),
    /// `name[expr]`, with the subscript's text (the key of an associative array).
    Element(String, Box<Arith>, String),
    Unary(UnaryOp, Box<Arith>),
    Binary(BinaryOp, Box<Arith>, Box<Arith>),
    /// `lhs op= rhs` (`op` None: plain `=`).
    Assign(Option<BinaryOp>, Box<Arith>, Box<Arith>),
    /// `++x`, `--x`, `x++`, `x--`
    IncDec { target: Box<Arith>, increment: bool, prefix: bool },
    Conditional(Box<Arith>, Box<Arith>, Box<Arith>),
    Comma(Box<Arith>, Box<Arith>),
    /// Text with expansions in it: bash expands it first and then parses the result, so
    /// `$((1 $op 2))` works; so does text that did not parse (the error is a run-time one).
    Dynamic(Word),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Plus,
    Minus,
    Not,
    BitNot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl Word {
    pub fn literal(text: &str) -> Word {
        Word { parts: vec![WordPart::Literal(text.to_string())] }
    }

    /// The word's text when it is made only of literal and quoted text (no expansions).
    pub fn as_static(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            if !static_text(part, &mut out) {
                return None;
            }
        }
        Some(out)
    }

    /// The word is one unquoted literal (a candidate keyword, alias or assignment).
    pub fn as_unquoted_literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [WordPart::Literal(text)] => Some(text),
            _ => None,
        }
    }

    /// Whether any part is quoted (so `""` still makes a field, and here-doc delimiters
    /// are literal).
    pub fn has_quotes(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, WordPart::Quoted(_) | WordPart::DoubleQuoted(_) | WordPart::AnsiQuoted(_)))
    }
}

fn static_text(part: &WordPart, out: &mut String) -> bool {
    match part {
        WordPart::Literal(t) | WordPart::Quoted(t) | WordPart::AnsiQuoted(t) => {
            out.push_str(t);
            true
        }
        WordPart::DoubleQuoted(parts) => parts.iter().all(|p| static_text(p, out)),
        _ => false,
    }
}

impl BinaryOp {
    /// The operator as written, for printing and error messages.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Pow => "**",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}
