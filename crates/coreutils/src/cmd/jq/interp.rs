//! Evaluating a jq program: every filter is run with a callback that receives its outputs
//! one at a time (continuation-passing), so generators need no buffering and `limit`,
//! `first` and `label`/`break` stop them by returning early. Errors travel back through
//! the callbacks; that is also why an error raised after a `try` body has produced output
//! is caught by that `try`, exactly as in jq 1.6.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::ast::{Ast, BinOp, FuncDef, ObjKey, Pattern, StrPiece};
use super::builtins;
use super::ops;
use super::value::{Map, Value};

/// Why evaluation stopped early.
#[derive(Debug)]
pub enum Flow {
    /// A jq error with its message value.
    Err(Value),
    /// `break` to the label with this id.
    Break(u64),
    /// `halt`/`halt_error`: exit status and what to print on stderr.
    Halt(i32, Option<Vec<u8>>),
}

pub type Res = Result<(), Flow>;

/// An error with a string message.
pub fn err(message: impl Into<String>) -> Flow {
    Flow::Err(Value::string(message.into()))
}

pub enum Slot<'p> {
    Val(Value),
    Closure(&'p Ast, Env<'p>),
    Label(u64),
}

pub struct Node<'p> {
    slot: Slot<'p>,
    up: Env<'p>,
}

/// The runtime environment: a persistent list of slots, innermost first.
#[derive(Clone, Default)]
pub struct Env<'p>(Option<Rc<Node<'p>>>);

impl<'p> Env<'p> {
    pub fn push(&self, slot: Slot<'p>) -> Env<'p> {
        Env(Some(Rc::new(Node { slot, up: self.clone() })))
    }

    fn node(&self, hops: usize) -> Option<&Node<'p>> {
        let mut cur = self.0.as_deref()?;
        for _ in 0..hops {
            cur = cur.up.0.as_deref()?;
        }
        Some(cur)
    }

    pub fn slot(&self, hops: usize) -> Option<&Slot<'p>> {
        self.node(hops).map(|n| &n.slot)
    }

    /// The environment `hops` slots up.
    pub fn up(&self, hops: usize) -> Env<'p> {
        if hops == 0 {
            return self.clone();
        }
        match self.node(hops - 1) {
            Some(n) => n.up.clone(),
            None => Env(None),
        }
    }
}

/// What the program can ask of the command around it.
pub trait Host {
    fn next_input(&mut self) -> Option<Result<Value, String>>;
    fn stderr(&mut self, bytes: &[u8]);
    fn input_filename(&self) -> Value;
    fn input_line_number(&self) -> usize;
    /// Where the current input came from, for error messages (`<stdin>:3`).
    fn location(&self) -> String;
    /// Whether an input file could not be opened.
    fn open_failed(&self) -> bool {
        false
    }
}

pub struct Interp<'p, 'h> {
    pub funcs: &'p [FuncDef],
    pub host: RefCell<&'h mut dyn Host>,
    next_label: Cell<u64>,
    pub named_args: Value,
    pub positional_args: Value,
}

impl<'p, 'h> Interp<'p, 'h> {
    pub fn new(funcs: &'p [FuncDef], host: &'h mut dyn Host) -> Interp<'p, 'h> {
        Interp { funcs, host: RefCell::new(host), next_label: Cell::new(1), named_args: Value::object(Map::new()), positional_args: Value::array(Vec::new()) }
    }

    pub fn fresh_label(&self) -> u64 {
        let id = self.next_label.get();
        self.next_label.set(id + 1);
        id
    }

    /// `limit(n; f)` for values and for paths: `run` calls `counted` after each output it
    /// passes on, which stops it (a break to a fresh label) at the n-th.
    pub fn limit(&self, n: f64, run: impl FnOnce(&mut dyn FnMut() -> Res) -> Res) -> Res {
        let id = self.fresh_label();
        let mut count = 0.0;
        match run(&mut || {
            count += 1.0;
            if count >= n {
                Err(Flow::Break(id))
            } else {
                Ok(())
            }
        }) {
            Err(Flow::Break(b)) if b == id => Ok(()),
            other => other,
        }
    }

    /// All outputs of a filter.
    pub fn collect(&self, ast: &'p Ast, env: &Env<'p>, input: Value) -> Result<Vec<Value>, Flow> {
        let mut out = Vec::new();
        self.eval(ast, env, input, &mut |v| {
            out.push(v);
            Ok(())
        })?;
        Ok(out)
    }

    /// Runs `f` with only the first output of a filter (None when it has none).
    pub fn first(&self, ast: &'p Ast, env: &Env<'p>, input: Value) -> Result<Option<Value>, Flow> {
        let id = self.fresh_label();
        let mut found = None;
        match self.eval(ast, env, input, &mut |v| {
            found = Some(v);
            Err(Flow::Break(id))
        }) {
            Ok(()) => Ok(found),
            Err(Flow::Break(b)) if b == id => Ok(found),
            Err(e) => Err(e),
        }
    }

    pub fn eval(&self, ast: &'p Ast, env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        match ast {
            Ast::Identity => cb(input),
            Ast::RecurseAll => recurse_all(input, cb),
            Ast::Field(term, name) => {
                if let Ast::Identity = **term {
                    return cb(ops::index_field(&input, name)?);
                }
                self.eval(term, env, input, &mut |t| cb(ops::index_field(&t, name)?))
            }
            Ast::Index(term, key) => self.eval(key, env, input.clone(), &mut |k| self.eval(term, env, input.clone(), &mut |t| cb(ops::index(&t, &k)?))),
            Ast::Slice(term, from, to) => {
                let to_values = match to {
                    Some(t) => self.collect(t, env, input.clone())?,
                    None => vec![Value::Null],
                };
                for to_value in to_values {
                    let from_values = match from {
                        Some(f) => self.collect(f, env, input.clone())?,
                        None => vec![Value::Null],
                    };
                    for from_value in from_values {
                        self.eval(term, env, input.clone(), &mut |t| cb(ops::slice(&t, &from_value, &to_value)?))?;
                    }
                }
                Ok(())
            }
            Ast::Iterate(term) => self.eval(term, env, input, &mut |t| iterate(t, cb)),
            Ast::Try(body, handler) => match self.eval(body, env, input, cb) {
                Err(Flow::Err(e)) => match handler {
                    Some(h) => self.eval(h, env, e, cb),
                    None => Ok(()),
                },
                other => other,
            },
            Ast::Literal(v) => cb(v.clone()),
            Ast::Interp(pieces, format) => self.interpolate(pieces, format.as_deref(), env, &input, String::new(), cb),
            Ast::Format(name) => cb(Value::String(Rc::from(builtins::apply_format(name, &input)?))),
            Ast::Array(inner) => match inner {
                None => cb(Value::array(Vec::new())),
                Some(inner) => {
                    let items = self.collect(inner, env, input)?;
                    cb(Value::array(items))
                }
            },
            Ast::Object(entries) => self.object(entries, 0, env, &input, Map::with_capacity(entries.len()), cb),
            Ast::Neg(inner) => self.eval(inner, env, input, &mut |v| match v {
                Value::Number(n) => cb(Value::Number(-n)),
                other => Err(err(format!("{} ({}) cannot be negated", other.kind(), other.dump_trunc()))),
            }),
            Ast::Pipe(left, right) => self.eval(left, env, input, &mut |v| self.eval(right, env, v, cb)),
            Ast::Comma(left, right) => {
                self.eval(left, env, input.clone(), cb)?;
                self.eval(right, env, input, cb)
            }
            Ast::Binop(op, left, right) => self.binop(*op, left, right, env, input, cb),
            Ast::And(left, right) => self.eval(left, env, input.clone(), &mut |a| {
                if !a.truthy() {
                    return cb(Value::Bool(false));
                }
                self.eval(right, env, input.clone(), &mut |b| cb(Value::Bool(b.truthy())))
            }),
            Ast::Or(left, right) => self.eval(left, env, input.clone(), &mut |a| {
                if a.truthy() {
                    return cb(Value::Bool(true));
                }
                self.eval(right, env, input.clone(), &mut |b| cb(Value::Bool(b.truthy())))
            }),
            Ast::Alt(left, right) => {
                let mut any = false;
                self.eval(left, env, input.clone(), &mut |v| {
                    if v.truthy() {
                        any = true;
                        cb(v)
                    } else {
                        Ok(())
                    }
                })?;
                if any {
                    return Ok(());
                }
                self.eval(right, env, input, cb)
            }
            Ast::Assign(op, lhs, rhs) => super::paths::assign(self, *op, lhs, rhs, env, input, cb),
            Ast::If(cond, then, otherwise) => self.eval(cond, env, input.clone(), &mut |c| {
                if c.truthy() {
                    self.eval(then, env, input.clone(), cb)
                } else {
                    self.eval(otherwise, env, input.clone(), cb)
                }
            }),
            Ast::Reduce { source, pattern, init, update } => self.reduce(source, pattern, init, update, env, input, cb),
            Ast::Foreach { source, pattern, init, update, extract } => self.foreach(source, pattern, init, update, extract.as_deref(), env, input, cb),
            Ast::Bind { source, pattern, body } => self.eval(source, env, input.clone(), &mut |v| self.destructure(pattern, v, env, &mut |bound| self.eval(body, &bound, input.clone(), cb))),
            Ast::Label(body) => {
                let id = self.fresh_label();
                let inner = env.push(Slot::Label(id));
                match self.eval(body, &inner, input, cb) {
                    Err(Flow::Break(b)) if b == id => Ok(()),
                    other => other,
                }
            }
            Ast::Break(hops) => match env.slot(*hops) {
                Some(Slot::Label(id)) => Err(Flow::Break(*id)),
                _ => Err(err("break")),
            },
            Ast::Var(hops) => match env.slot(*hops) {
                Some(Slot::Val(v)) => cb(v.clone()),
                _ => cb(Value::Null),
            },
            Ast::Loc(line) => {
                let mut m = Map::new();
                m.insert(Rc::from("file"), Value::from_str("<top-level>"));
                m.insert(Rc::from("line"), Value::Number(*line as f64));
                cb(Value::object(m))
            }
            Ast::CallUser { func, hops, args } => {
                let def = &self.funcs[*func];
                let base = env.up(*hops);
                self.call_user(def, 0, base, args, env, input, cb)
            }
            Ast::CallParam(hops) => match env.slot(*hops) {
                Some(Slot::Closure(body, cenv)) => self.eval(body, cenv, input, cb),
                _ => Ok(()),
            },
            Ast::CallNative(native, args) => builtins::call(self, *native, args, env, input, cb),
        }
    }

    /// `reduce SOURCE as PATTERN (INIT; UPDATE)`: the last UPDATE output is the next state.
    #[allow(clippy::too_many_arguments)]
    fn reduce(&self, source: &'p Ast, pattern: &'p Pattern, init: &'p Ast, update: &'p Ast, env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        self.eval(init, env, input.clone(), &mut |start| {
            let mut state = start;
            self.eval(source, env, input.clone(), &mut |item| {
                self.destructure(pattern, item, env, &mut |bound| {
                    let current = std::mem::replace(&mut state, Value::Null);
                    let mut last = Value::Null;
                    self.eval(update, &bound, current, &mut |v| {
                        last = v;
                        Ok(())
                    })?;
                    state = last;
                    Ok(())
                })
            })?;
            cb(std::mem::replace(&mut state, Value::Null))
        })
    }

    /// `foreach SOURCE as PATTERN (INIT; UPDATE; EXTRACT)`: each UPDATE output is emitted
    /// (through EXTRACT) and becomes the state.
    #[allow(clippy::too_many_arguments)]
    fn foreach(&self, source: &'p Ast, pattern: &'p Pattern, init: &'p Ast, update: &'p Ast, extract: Option<&'p Ast>, env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        self.eval(init, env, input.clone(), &mut |start| {
            let mut state = start;
            self.eval(source, env, input.clone(), &mut |item| {
                self.destructure(pattern, item, env, &mut |bound| {
                    let current = std::mem::replace(&mut state, Value::Null);
                    self.eval(update, &bound, current, &mut |v| {
                        state = v.clone();
                        match extract {
                            Some(x) => self.eval(x, &bound, v, cb),
                            None => cb(v),
                        }
                    })
                })
            })
        })
    }

    /// Binds a user function's parameters (all as closures, then `$` ones as values too,
    /// one output at a time) and runs its body.
    fn call_user(&self, def: &'p FuncDef, _from: usize, base: Env<'p>, args: &'p [Ast], caller: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        let mut inner = base;
        for a in args {
            inner = inner.push(Slot::Closure(a, caller.clone()));
        }
        let value_params: Vec<&'p Ast> = args.iter().zip(def.params.iter()).filter(|(_, v)| **v).map(|(a, _)| a).collect();
        self.bind_values(&value_params, inner, caller, &input, &def.body, cb)
    }

    fn bind_values(&self, params: &[&'p Ast], env: Env<'p>, caller: &Env<'p>, input: &Value, body: &'p Ast, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        match params.split_first() {
            None => self.eval(body, &env, input.clone(), cb),
            Some((first, rest)) => self.eval(first, caller, input.clone(), &mut |v| self.bind_values(rest, env.push(Slot::Val(v)), caller, input, body, cb)),
        }
    }

    fn binop(&self, op: BinOp, left: &'p Ast, right: &'p Ast, env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        // jq evaluates the right operand in the outer loop.
        if let Ast::Literal(r) = right {
            return self.eval(left, env, input, &mut |l| cb(ops::binop(op, &l, r)?));
        }
        self.eval(right, env, input.clone(), &mut |r| self.eval(left, env, input.clone(), &mut |l| cb(ops::binop(op, &l, &r)?)))
    }

    fn interpolate(&self, pieces: &'p [StrPiece], format: Option<&str>, env: &Env<'p>, input: &Value, suffix: String, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        // The last piece is the outermost loop, as in jq (strings are built by `+`).
        match pieces.split_last() {
            None => cb(Value::string(suffix)),
            Some((StrPiece::Lit(s), rest)) => {
                let mut text = String::with_capacity(s.len() + suffix.len());
                text.push_str(s);
                text.push_str(&suffix);
                self.interpolate(rest, format, env, input, text, cb)
            }
            Some((StrPiece::Expr(e), rest)) => self.eval(e, env, input.clone(), &mut |v| {
                let piece = match format {
                    None => v.to_text().to_string(),
                    Some(f) => builtins::apply_format(f, &v)?,
                };
                let mut text = piece;
                text.push_str(&suffix);
                self.interpolate(rest, format, env, input, text, cb)
            }),
        }
    }

    fn object(&self, entries: &'p [(ObjKey, Ast)], i: usize, env: &Env<'p>, input: &Value, acc: Map, cb: &mut dyn FnMut(Value) -> Res) -> Res {
        let (key, value) = match entries.get(i) {
            None => return cb(Value::object(acc)),
            Some(e) => e,
        };
        let mut with_key = |k: Value| -> Res {
            let k = match k {
                Value::String(s) => s,
                other => return Err(err(format!("Cannot use {} ({}) as object key", other.kind(), other.dump_trunc()))),
            };
            self.eval(value, env, input.clone(), &mut |v| {
                let mut next = acc.clone();
                next.insert(k.clone(), v);
                self.object(entries, i + 1, env, input, next, cb)
            })
        };
        match key {
            ObjKey::Literal(s) => with_key(Value::String(s.clone())),
            ObjKey::Expr(e) => self.eval(e, env, input.clone(), &mut with_key),
        }
    }

    /// Binds a pattern against a value: calls `cb` with the extended environment for each
    /// way of binding (object keys computed by expressions may have several outputs).
    pub fn destructure(&self, pattern: &'p Pattern, value: Value, env: &Env<'p>, cb: &mut dyn FnMut(Env<'p>) -> Res) -> Res {
        match pattern {
            Pattern::Var => cb(env.push(Slot::Val(value))),
            Pattern::Array(items) => self.destructure_array(items, 0, &value, env.clone(), cb),
            Pattern::Object(entries) => self.destructure_object(entries, 0, &value, env.clone(), cb),
        }
    }

    fn destructure_array(&self, items: &'p [Pattern], i: usize, value: &Value, env: Env<'p>, cb: &mut dyn FnMut(Env<'p>) -> Res) -> Res {
        match items.get(i) {
            None => cb(env),
            Some(p) => {
                let element = ops::index(value, &Value::Number(i as f64))?;
                self.destructure(p, element, &env, &mut |e| self.destructure_array(items, i + 1, value, e, cb))
            }
        }
    }

    fn destructure_object(&self, entries: &'p [(ObjKey, bool, Option<Pattern>)], i: usize, value: &Value, env: Env<'p>, cb: &mut dyn FnMut(Env<'p>) -> Res) -> Res {
        let (key, own, sub) = match entries.get(i) {
            None => return cb(env),
            Some(e) => e,
        };
        let mut with_key = |k: Value| -> Res {
            if !matches!(k, Value::String(_)) {
                return Err(err(format!("Cannot index {} with {}", value.kind(), k.kind())));
            }
            let field = ops::index(value, &k)?;
            let env = if *own { env.push(Slot::Val(field.clone())) } else { env.clone() };
            match sub {
                Some(p) => self.destructure(p, field, &env, &mut |e| self.destructure_object(entries, i + 1, value, e, cb)),
                None => self.destructure_object(entries, i + 1, value, env, cb),
            }
        };
        match key {
            ObjKey::Literal(s) => with_key(Value::String(s.clone())),
            ObjKey::Expr(e) => self.eval(e, &env, value.clone(), &mut with_key),
        }
    }
}

/// `.[]`.
pub fn iterate(v: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    match v {
        Value::Array(a) => {
            for item in a.iter() {
                cb(item.clone())?;
            }
            Ok(())
        }
        Value::Object(o) => {
            for item in o.values() {
                cb(item.clone())?;
            }
            Ok(())
        }
        other => Err(err(format!("Cannot iterate over {} ({})", other.kind(), other.dump_trunc()))),
    }
}

/// `..`: the value, then everything inside it, depth first.
pub fn recurse_all(v: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    cb(v.clone())?;
    match &v {
        Value::Array(a) => a.iter().try_for_each(|x| recurse_all(x.clone(), cb)),
        Value::Object(o) => o.values().try_for_each(|x| recurse_all(x.clone(), cb)),
        _ => Ok(()),
    }
}
