//! The parsed and name-resolved jq program. Variables, labels and filter parameters live in
//! runtime environment slots; a reference says how many slots up the environment to go
//! (`hops`). Calls are resolved at parse time to a user function (with the number of hops
//! to its definition's environment), a filter parameter, or a native builtin.

use std::rc::Rc;

use super::builtins::Native;
use super::value::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`
    Set,
    /// `|=`
    Update,
    /// `+=` and friends
    Arith(BinOp),
    /// `//=`
    Alt,
}

#[derive(Debug)]
pub enum ObjKey {
    Literal(Rc<str>),
    Expr(Ast),
}

#[derive(Debug)]
pub enum StrPiece {
    Lit(Rc<str>),
    Expr(Ast),
}

/// A destructuring pattern; variables take consecutive slots in pattern order.
#[derive(Debug)]
pub enum Pattern {
    Var,
    Array(Vec<Pattern>),
    /// (key, binds the key's own `$name` slot first, sub-pattern)
    Object(Vec<(ObjKey, bool, Option<Pattern>)>),
}

#[derive(Debug)]
pub enum Ast {
    Identity,
    /// `..`
    RecurseAll,
    Field(Box<Ast>, Rc<str>),
    Index(Box<Ast>, Box<Ast>),
    Slice(Box<Ast>, Option<Box<Ast>>, Option<Box<Ast>>),
    Iterate(Box<Ast>),
    Try(Box<Ast>, Option<Box<Ast>>),
    Literal(Value),
    /// An interpolated string, with the `@format` applied to the interpolated values.
    Interp(Vec<StrPiece>, Option<Rc<str>>),
    /// `@format` on its own.
    Format(Rc<str>),
    Array(Option<Box<Ast>>),
    Object(Vec<(ObjKey, Ast)>),
    Neg(Box<Ast>),
    Pipe(Box<Ast>, Box<Ast>),
    Comma(Box<Ast>, Box<Ast>),
    Binop(BinOp, Box<Ast>, Box<Ast>),
    And(Box<Ast>, Box<Ast>),
    Or(Box<Ast>, Box<Ast>),
    Alt(Box<Ast>, Box<Ast>),
    Assign(AssignOp, Box<Ast>, Box<Ast>),
    If(Box<Ast>, Box<Ast>, Box<Ast>),
    Reduce { source: Box<Ast>, pattern: Pattern, init: Box<Ast>, update: Box<Ast> },
    Foreach { source: Box<Ast>, pattern: Pattern, init: Box<Ast>, update: Box<Ast>, extract: Option<Box<Ast>> },
    Bind { source: Box<Ast>, pattern: Pattern, body: Box<Ast> },
    /// Binds a fresh label in a new slot.
    Label(Box<Ast>),
    Break(usize),
    Var(usize),
    Loc(usize),
    CallUser { func: usize, hops: usize, args: Vec<Ast> },
    CallParam(usize),
    CallNative(Native, Vec<Ast>),
}

#[derive(Debug)]
pub struct FuncDef {
    pub name: Rc<str>,
    /// true for `$name` parameters (bound as a value as well as a filter).
    pub params: Vec<bool>,
    pub body: Ast,
}
