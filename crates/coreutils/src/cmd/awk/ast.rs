//! The parsed program: a typed tree with every variable already resolved to a global slot
//! or a slot in the current function's frame, so the interpreter never looks names up.

/// A variable reference: a global slot, or a parameter/local of the running function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    Global(u32),
    Local(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// A regex operand: a literal compiled once at parse time, or any expression whose string
/// value is compiled (and cached) when evaluated.
#[derive(Debug, Clone)]
pub enum RegexArg {
    Static(usize),
    Dynamic(Box<Expr>),
}

#[derive(Debug, Clone)]
pub enum LValue {
    Var(Var),
    Field(Box<Expr>),
    Index(Var, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GetlineSource {
    /// `getline` from the main input (ARGV files or stdin).
    Main,
    /// `getline < file`.
    File,
    /// `cmd | getline`.
    Command,
}

#[derive(Debug, Clone)]
pub enum Expr {
    Num(f64),
    Str(super::value::Str),
    /// A regex literal used as a value: `$0 ~ /re/`.
    Regex(usize),
    Var(Var),
    Field(Box<Expr>),
    Index(Var, Vec<Expr>),
    Assign(Box<LValue>, Box<Expr>),
    /// `v = v rest` where `rest` cannot touch `v`: appends in place.
    Append(Var, Box<Expr>),
    AugAssign(BinOp, Box<LValue>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    Match(bool, Box<Expr>, RegexArg),
    In(Vec<Expr>, Var),
    PreIncr(Box<LValue>, f64),
    PostIncr(Box<LValue>, f64),
    Call(usize, Vec<Expr>),
    Builtin(Builtin, Vec<Arg>),
    Getline(GetlineSource, Option<Box<Expr>>, Option<Box<LValue>>),
    /// `(expr)`: kept so `print (a)(b) > f` and `(a, b) in arr` parse, and so a grouped
    /// regex literal still means `$0 ~ /re/`.
    Group(Box<Expr>),
}

/// A built-in function argument: most are plain expressions; some positions take an
/// array (split's target) or a regex (split's separator, match, sub).
#[derive(Debug, Clone)]
pub enum Arg {
    Expr(Expr),
    Regex(RegexArg),
    Array(Var),
    /// sub/gsub's optional target (default `$0`).
    LValue(LValue),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect {
    File,
    Append,
    Pipe,
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Expr(Expr),
    Print(Vec<Expr>, Option<(Redirect, Expr)>),
    Printf(Vec<Expr>, Option<(Redirect, Expr)>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    Do(Box<Stmt>, Expr),
    For(Option<Box<Stmt>>, Option<Expr>, Option<Box<Stmt>>, Box<Stmt>),
    ForIn(Var, Var, Box<Stmt>),
    Block(Vec<Stmt>),
    Switch(Expr, Vec<(Option<CaseLabel>, Vec<Stmt>)>),
    Next,
    NextFile,
    Exit(Option<Expr>),
    Return(Option<Expr>),
    Break,
    Continue,
    Delete(Var, Option<Vec<Expr>>),
    /// The following statements come from this program line (for error messages).
    At(u32),
}

#[derive(Debug, Clone)]
pub enum CaseLabel {
    Value(Expr),
    Regex(usize),
}

#[derive(Debug, Clone)]
pub enum Pattern {
    All,
    Begin,
    End,
    BeginFile,
    EndFile,
    Expr(Expr),
    /// `start, stop`: the index is the rule's slot for its in-range flag.
    Range(Expr, Expr, usize),
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub line: u32,
    pub pattern: Pattern,
    /// None: the default action, `print $0`.
    pub action: Option<Vec<Stmt>>,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub params: usize,
    pub param_names: Vec<String>,
    /// Which parameters the body (or a function it passes them to) uses as arrays.
    pub array_params: Vec<bool>,
    pub body: Vec<Stmt>,
    pub defined: bool,
}

pub struct Program {
    pub rules: Vec<Rule>,
    pub functions: Vec<Function>,
    pub globals: Vec<String>,
    pub regexes: Vec<Vec<u8>>,
    pub ranges: usize,
}

macro_rules! builtins {
    ($($variant:ident = $name:literal),* $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Builtin { $($variant),* }

        impl Builtin {
            pub fn from_name(name: &str) -> Option<Builtin> {
                match name {
                    $($name => Some(Builtin::$variant),)*
                    _ => None,
                }
            }

            pub fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => $name),*
                }
            }
        }
    };
}

builtins! {
    Length = "length",
    Substr = "substr",
    Index = "index",
    Split = "split",
    PatSplit = "patsplit",
    Sub = "sub",
    Gsub = "gsub",
    Gensub = "gensub",
    Match = "match",
    Sprintf = "sprintf",
    Sin = "sin",
    Cos = "cos",
    Atan2 = "atan2",
    Exp = "exp",
    Log = "log",
    Sqrt = "sqrt",
    Int = "int",
    Rand = "rand",
    Srand = "srand",
    Tolower = "tolower",
    Toupper = "toupper",
    System = "system",
    Close = "close",
    Fflush = "fflush",
    Strftime = "strftime",
    Systime = "systime",
    Mktime = "mktime",
    Asort = "asort",
    Asorti = "asorti",
    And = "and",
    Or = "or",
    Xor = "xor",
    Compl = "compl",
    Lshift = "lshift",
    Rshift = "rshift",
    Strtonum = "strtonum",
    Isarray = "isarray",
    Typeof = "typeof",
}
