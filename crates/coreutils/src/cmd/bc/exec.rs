//! Runs parsed bc: global variables and arrays, functions with dynamic scoping (parameters
//! and autos shadow the globals while the call runs, as in bc), the special variables
//! `scale ibase obase last`, and output wrapped at `BC_LINE_LENGTH` (default 70: 68
//! characters and a backslash).

use std::collections::HashMap;
use std::rc::Rc;

use super::mathlib;
use super::num::Num;
use super::parse::{Arg, Expr, Func, LValue, PrintItem, Stmt};

/// Why execution stopped early.
pub enum Flow {
    Error(String),
    Break,
    Continue,
    Return(Num),
    Halt,
}

type R<T> = Result<T, Flow>;

fn error<T>(message: impl Into<String>) -> R<T> {
    Err(Flow::Error(message.into()))
}

pub struct Interp {
    vars: HashMap<String, Num>,
    arrays: HashMap<String, HashMap<u32, Num>>,
    funcs: HashMap<String, Rc<Func>>,
    pub scale: usize,
    ibase: u32,
    obase: u32,
    last: Num,
    pub mathlib: bool,
    pub out: Vec<u8>,
    col: usize,
    line_len: usize,
    depth: usize,
    /// Runtime warnings with the length of `out` when they occurred, printed by the caller.
    pub warnings: Vec<(usize, String)>,
}

const MAX_DEPTH: usize = 10_000;
const DIM_MAX: i64 = 16_777_215;

impl Interp {
    pub fn new(mathlib: bool, line_len: usize) -> Interp {
        Interp {
            vars: HashMap::new(),
            arrays: HashMap::new(),
            funcs: HashMap::new(),
            scale: if mathlib { 20 } else { 0 },
            ibase: 10,
            obase: 10,
            last: Num::zero(),
            mathlib,
            out: Vec::new(),
            col: 0,
            line_len,
            depth: 0,
            warnings: Vec::new(),
        }
    }

    pub fn define(&mut self, name: String, func: Func) {
        self.funcs.insert(name, Rc::new(func));
    }

    /// Writes one character, breaking long lines with a backslash as bc's out_char does.
    fn put(&mut self, c: u8) {
        if c == b'\n' {
            self.col = 0;
        } else {
            self.col += 1;
            if self.line_len > 1 && self.col == self.line_len - 1 {
                self.out.extend_from_slice(b"\\\n");
                self.col = 1;
            }
        }
        self.out.push(c);
    }

    fn put_all(&mut self, bytes: &[u8]) {
        for c in bytes {
            self.put(*c);
        }
    }

    fn put_string(&mut self, s: &[u8]) {
        let mut i = 0;
        while i < s.len() {
            let c = s[i];
            i += 1;
            if c != b'\\' || i >= s.len() {
                self.put(c);
                continue;
            }
            let e = s[i];
            i += 1;
            let mapped = match e {
                b'a' => Some(7),
                b'b' => Some(8),
                b'f' => Some(12),
                b'n' => Some(b'\n'),
                b'q' => Some(b'"'),
                b'r' => Some(b'\r'),
                b't' => Some(b'\t'),
                b'\\' => Some(b'\\'),
                _ => None,
            };
            if let Some(m) = mapped {
                self.put(m);
            }
        }
    }

    fn put_num(&mut self, n: &Num) {
        let text = n.to_text(self.obase);
        self.put_all(&text);
    }

    pub fn run(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Expr(e) => {
                if let Expr::Assign(..) = e {
                    self.eval(e)?;
                    return Ok(());
                }
                if let Expr::Call(name, _) = e {
                    if self.funcs.get(name).map_or(false, |f| f.void) {
                        self.eval(e)?;
                        return Ok(());
                    }
                }
                let v = self.eval(e)?;
                self.put_num(&v);
                self.put(b'\n');
                self.last = v;
            }
            Stmt::Str(s) => {
                let s = s.clone();
                self.put_all(&s);
            }
            Stmt::Print(items) => {
                for item in items {
                    match item {
                        PrintItem::Str(s) => self.put_string(s),
                        PrintItem::Value(e) => {
                            let v = self.eval(e)?;
                            self.put_num(&v);
                            self.last = v;
                        }
                    }
                }
            }
            Stmt::Block(b) => self.run(b)?,
            Stmt::If(c, then, otherwise) => {
                if !self.eval(c)?.is_zero() {
                    self.stmt(then)?;
                } else if let Some(o) = otherwise {
                    self.stmt(o)?;
                }
            }
            Stmt::While(c, body) => {
                while !self.eval(c)?.is_zero() {
                    match self.stmt(body) {
                        Err(Flow::Break) => break,
                        Err(Flow::Continue) | Ok(()) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            Stmt::For(init, cond, step, body) => {
                if let Some(i) = init {
                    self.eval(i)?;
                }
                loop {
                    if let Some(c) = cond {
                        if self.eval(c)?.is_zero() {
                            break;
                        }
                    }
                    match self.stmt(body) {
                        Err(Flow::Break) => break,
                        Err(Flow::Continue) | Ok(()) => {}
                        Err(e) => return Err(e),
                    }
                    if let Some(s) = step {
                        self.eval(s)?;
                    }
                }
            }
            Stmt::Break => return Err(Flow::Break),
            Stmt::Continue => return Err(Flow::Continue),
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Num::zero(),
                };
                return Err(Flow::Return(v));
            }
            Stmt::Halt => return Err(Flow::Halt),
            Stmt::Limits => {
                let text = "BC_BASE_MAX     = 2147483647\nBC_DIM_MAX      = 16777215\nBC_SCALE_MAX    = 2147483647\nBC_STRING_MAX   = 2147483647\nMAX Exponent    = 9223372036854775807\nNumber of vars  = 32767\n";
                self.put_all(text.as_bytes());
            }
        }
        Ok(())
    }

    fn index(&mut self, e: &Expr, name: &str) -> R<u32> {
        let i = self.eval(e)?.to_i64();
        if !(0..=DIM_MAX).contains(&i) {
            return error(format!("Array {} subscript out of bounds.", name));
        }
        Ok(i as u32)
    }

    fn load(&mut self, lv: &LValue) -> R<Num> {
        Ok(match lv {
            LValue::Var(n) => self.vars.get(n).cloned().unwrap_or_else(Num::zero),
            LValue::Elem(n, e) => {
                let i = self.index(e, n)?;
                self.arrays.get(n).and_then(|a| a.get(&i)).cloned().unwrap_or_else(Num::zero)
            }
            LValue::Scale => Num::int(self.scale as i64),
            LValue::Ibase => Num::int(self.ibase as i64),
            LValue::Obase => Num::int(self.obase as i64),
            LValue::Last => self.last.clone(),
        })
    }

    fn store(&mut self, lv: &LValue, v: Num) -> R<()> {
        match lv {
            LValue::Var(n) => {
                self.vars.insert(n.clone(), v);
            }
            LValue::Elem(n, e) => {
                let i = self.index(e, n)?;
                self.arrays.entry(n.clone()).or_default().insert(i, v);
            }
            LValue::Scale => {
                let s = v.to_i64();
                if s < 0 {
                    self.warn("negative scale, set to 0".into());
                }
                self.scale = s.clamp(0, i32::MAX as i64) as usize;
            }
            LValue::Ibase => self.ibase = self.base(v.to_i64(), "ibase", 36) as u32,
            LValue::Obase => self.obase = self.base(v.to_i64(), "obase", i32::MAX as i64) as u32,
            LValue::Last => self.last = v,
        }
        Ok(())
    }

    fn warn(&mut self, message: String) {
        self.warnings.push((self.out.len(), message));
    }

    fn base(&mut self, b: i64, what: &str, max: i64) -> i64 {
        if b < 2 {
            self.warn(format!("{} too small, set to 2", what));
            2
        } else if b > max {
            self.warn(format!("{} too large, set to {}", what, max));
            max
        } else {
            b
        }
    }

    fn binary(&mut self, op: &str, a: &Num, b: &Num) -> R<Num> {
        let s = self.scale;
        Ok(match op {
            "+" => a.add(b),
            "-" => a.sub(b),
            "*" => a.mul(b, s),
            "/" => match a.div(b, s) {
                Some(v) => v,
                None => return error("Divide by zero"),
            },
            "%" => match a.rem(b, s) {
                Some(v) => v,
                None => return error("Modulo by zero"),
            },
            "^" => {
                if b.scale > 0 && !b.with_scale(0).with_scale(b.scale).eq(b) {
                    self.warn("non-zero scale in exponent".into());
                }
                let e = b.to_i64();
                if e == i64::MAX || e == i64::MIN {
                    return error("exponent too large in raise");
                }
                match a.pow(e, s) {
                    Some(v) => v,
                    None => return error("divide by zero"),
                }
            }
            _ => {
                let c = a.cmp_num(b);
                use std::cmp::Ordering::*;
                let t = match op {
                    "<" => c == Less,
                    "<=" => c != Greater,
                    ">" => c == Greater,
                    ">=" => c != Less,
                    "==" => c == Equal,
                    _ => c != Equal,
                };
                Num::int(t as i64)
            }
        })
    }

    pub fn eval(&mut self, e: &Expr) -> R<Num> {
        match e {
            Expr::Num(text) => Ok(Num::parse(text, self.ibase)),
            Expr::Load(lv) => self.load(lv),
            Expr::Group(e) => self.eval(e),
            Expr::Assign(lv, op, value) => {
                let v = self.eval(value)?;
                let v = match op {
                    Some(op) => {
                        let old = self.load(lv)?;
                        self.binary(op, &old, &v)?
                    }
                    None => v,
                };
                self.store(lv, v.clone())?;
                self.load(lv).or(Ok(v))
            }
            Expr::Step(lv, delta, prefix) => {
                let old = self.load(lv)?;
                let new = old.add(&Num::int(*delta as i64));
                self.store(lv, new.clone())?;
                Ok(if *prefix { new } else { old })
            }
            Expr::Neg(e) => Ok(self.eval(e)?.neg()),
            Expr::Not(e) => Ok(Num::int(self.eval(e)?.is_zero() as i64)),
            Expr::Bin("&&", a, b) => {
                let t = !self.eval(a)?.is_zero() && !self.eval(b)?.is_zero();
                Ok(Num::int(t as i64))
            }
            Expr::Bin("||", a, b) => {
                let t = !self.eval(a)?.is_zero() || !self.eval(b)?.is_zero();
                Ok(Num::int(t as i64))
            }
            Expr::Bin(op, a, b) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                self.binary(op, &a, &b)
            }
            Expr::Length(e) => Ok(Num::int(self.eval(e)?.length() as i64)),
            Expr::ScaleOf(e) => Ok(Num::int(self.eval(e)?.scale as i64)),
            Expr::Sqrt(e) => match self.eval(e)?.sqrt(self.scale) {
                Some(v) => Ok(v),
                None => error("Square root of a negative number"),
            },
            Expr::Call(name, args) => self.call(name, args),
        }
    }

    fn call(&mut self, name: &str, args: &[Arg]) -> R<Num> {
        let func = match self.funcs.get(name) {
            Some(f) => f.clone(),
            None => {
                if self.mathlib {
                    if let Some(v) = self.library(name, args)? {
                        return Ok(v);
                    }
                }
                return error(format!("Function {} not defined.", name));
            }
        };
        if args.len() != func.params.len() {
            return error("Parameter number mismatch");
        }
        enum Value {
            Scalar(Num),
            Array(HashMap<u32, Num>),
        }
        let mut values = Vec::new();
        for (arg, (pname, is_array)) in args.iter().zip(&func.params) {
            match (arg, is_array) {
                (Arg::Array(a), true) => values.push(Value::Array(self.arrays.get(a).cloned().unwrap_or_default())),
                (Arg::Value(e), false) => values.push(Value::Scalar(self.eval(e)?)),
                _ => return error(format!("Parameter type mismatch parameter {}.", pname)),
            }
        }
        if self.depth >= MAX_DEPTH {
            return error("Function call nesting too deep");
        }
        // Shadow the globals: save them, bind parameters and autos, restore afterwards.
        let mut saved_vars = Vec::new();
        let mut saved_arrays = Vec::new();
        for ((pname, _), value) in func.params.iter().zip(values) {
            match value {
                Value::Scalar(v) => saved_vars.push((pname.clone(), self.vars.insert(pname.clone(), v))),
                Value::Array(a) => saved_arrays.push((pname.clone(), self.arrays.insert(pname.clone(), a))),
            }
        }
        for (aname, is_array) in &func.autos {
            if *is_array {
                saved_arrays.push((aname.clone(), self.arrays.insert(aname.clone(), HashMap::new())));
            } else {
                saved_vars.push((aname.clone(), self.vars.insert(aname.clone(), Num::zero())));
            }
        }
        self.depth += 1;
        let result = self.run(&func.body);
        self.depth -= 1;
        for (n, old) in saved_vars.into_iter().rev() {
            match old {
                Some(v) => self.vars.insert(n, v),
                None => self.vars.remove(&n),
            };
        }
        for (n, old) in saved_arrays.into_iter().rev() {
            match old {
                Some(v) => self.arrays.insert(n, v),
                None => self.arrays.remove(&n),
            };
        }
        match result {
            Ok(()) => Ok(Num::zero()),
            Err(Flow::Return(v)) => Ok(v),
            Err(Flow::Break) | Err(Flow::Continue) => Ok(Num::zero()),
            Err(e) => Err(e),
        }
    }

    /// The -l functions s c a l e j (a user definition of the same name wins).
    fn library(&mut self, name: &str, args: &[Arg]) -> R<Option<Num>> {
        let arity = match name {
            "s" | "c" | "a" | "l" | "e" => 1,
            "j" => 2,
            _ => return Ok(None),
        };
        if args.len() != arity {
            return error("Parameter number mismatch");
        }
        let mut values = Vec::new();
        for a in args {
            match a {
                Arg::Value(e) => values.push(self.eval(e)?),
                Arg::Array(_) => return error("Parameter type mismatch parameter x."),
            }
        }
        let z = self.scale;
        let x = values[0].clone();
        Ok(Some(match name {
            "s" => mathlib::sin(x, z),
            "c" => mathlib::cos(x, z),
            "a" => mathlib::atan(x, z),
            "l" => mathlib::ln(x, z),
            "e" => mathlib::exp(x, z),
            _ => mathlib::bessel(x, values[1].clone(), z),
        }))
    }
}
