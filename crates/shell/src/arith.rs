//! Arithmetic evaluation (`$(( ))`, `(( ))`, `let`, `declare -i`, subscripts): 64-bit
//! wrapping integers, variables evaluated as expressions, C operators.

use shell_parser::arith::{parse_arith, ArithError};
use shell_parser::ast::{Arith, BinaryOp, UnaryOp};

use crate::options::Opt;
use crate::shell::Shell;
use crate::vars::Key;

/// Bounds `x=y; y=x; $((x))` style recursion through variable values.
const MAX_VALUE_DEPTH: u32 = 64;

/// An evaluation error: bash's message, and whether it ends the shell (`set -u`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArithFailure {
    pub message: String,
    pub fatal: bool,
}

impl ArithFailure {
    fn new(expression: &str, message: &str, token: &str) -> ArithFailure {
        ArithFailure { message: format!("{}: {} (error token is \"{}\")", expression, message, token), fatal: false }
    }

    fn from_parse(text: &str, error: ArithError) -> ArithFailure {
        let shown = if error.message.starts_with("value too great") || error.message.starts_with("invalid") { text.trim() } else { text.trim_start() };
        ArithFailure::new(shown, &error.message, &error.token)
    }
}

/// The value of text that needs no parsing: blank (0) or a plain decimal number (one
/// with a leading 0 is octal, so it is parsed).
fn plain_value(text: &str) -> Option<i64> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Some(0);
    }
    trimmed.parse::<i64>().ok().filter(|_| !trimmed.starts_with('0') || trimmed == "0")
}

impl Shell {
    /// Evaluates an expression from its text (a variable's value, `let` argument).
    pub fn eval_arith_text(&mut self, text: &str) -> Result<i64, String> {
        self.eval_text_depth(text, 0).map_err(|f| f.message)
    }

    /// [`Shell::eval_arith_text`], keeping whether the failure is fatal (`set -u`).
    pub fn eval_arith_checked(&mut self, text: &str) -> Result<i64, ArithFailure> {
        self.eval_text_depth(text, 0)
    }

    fn eval_text_depth(&mut self, text: &str, depth: u32) -> Result<i64, ArithFailure> {
        if let Some(n) = plain_value(text) {
            return Ok(n);
        }
        let expr = parse_arith(text).map_err(|e| ArithFailure::from_parse(text, e))?;
        self.eval_depth(&expr, depth, text)
    }

    /// Evaluates a parsed expression; errors carry bash's message.
    pub fn eval_arith(&mut self, expr: &Arith) -> Result<i64, ArithFailure> {
        self.eval_arith_source(expr, "")
    }

    /// Like [`Shell::eval_arith`], with the expression's source text for messages.
    pub fn eval_arith_source(&mut self, expr: &Arith, source: &str) -> Result<i64, ArithFailure> {
        match expr {
            Arith::Dynamic(word) => {
                let text = self.expand_arith_word(word).map_err(|_| ArithFailure { message: String::new(), fatal: true })?;
                self.eval_text_depth(&text, 0)
            }
            _ => self.eval_depth(expr, 0, source),
        }
    }

    fn eval_depth(&mut self, expr: &Arith, depth: u32, text: &str) -> Result<i64, ArithFailure> {
        let show = |e: &Arith| if text.is_empty() { crate::printer_arith(e) } else { text.trim_start().to_string() };
        Ok(match expr {
            Arith::Number(n) => *n,
            Arith::Var(name) => self.arith_var(name, depth)?,
            Arith::Element(name, index, raw) => {
                let key = self.arith_key(name, index, raw, depth)?;
                match self.get_element(name, &key) {
                    Some(value) => self.eval_value(&value, depth)?,
                    None => self.unbound_in_arith(&format!("{}[{}]", name, raw))?,
                }
            }
            Arith::Unary(op, inner) => {
                let v = self.eval_depth(inner, depth, text)?;
                match op {
                    UnaryOp::Plus => v,
                    UnaryOp::Minus => v.wrapping_neg(),
                    UnaryOp::Not => (v == 0) as i64,
                    UnaryOp::BitNot => !v,
                }
            }
            Arith::Binary(BinaryOp::And, a, b) => {
                let left = self.eval_depth(a, depth, text)?;
                if left == 0 {
                    0
                } else {
                    (self.eval_depth(b, depth, text)? != 0) as i64
                }
            }
            Arith::Binary(BinaryOp::Or, a, b) => {
                let left = self.eval_depth(a, depth, text)?;
                if left != 0 {
                    1
                } else {
                    (self.eval_depth(b, depth, text)? != 0) as i64
                }
            }
            Arith::Binary(op, a, b) => {
                let left = self.eval_depth(a, depth, text)?;
                let right = self.eval_depth(b, depth, text)?;
                binary(*op, left, right).map_err(|message| ArithFailure::new(&show(expr), message, &crate::printer_arith(b)))?
            }
            Arith::Assign(op, target, value) => {
                let right = self.eval_depth(value, depth, text)?;
                let result = match op {
                    None => right,
                    Some(op) => {
                        let left = self.eval_depth(target, depth, text)?;
                        binary(*op, left, right).map_err(|message| ArithFailure::new(&show(expr), message, &crate::printer_arith(value)))?
                    }
                };
                self.arith_store(target, result, depth)?;
                result
            }
            Arith::IncDec { target, increment, prefix } => {
                let old = self.eval_depth(target, depth, text)?;
                let new = if *increment { old.wrapping_add(1) } else { old.wrapping_sub(1) };
                self.arith_store(target, new, depth)?;
                if *prefix {
                    new
                } else {
                    old
                }
            }
            Arith::Conditional(cond, then, otherwise) => {
                if self.eval_depth(cond, depth, text)? != 0 {
                    self.eval_depth(then, depth, text)?
                } else {
                    self.eval_depth(otherwise, depth, text)?
                }
            }
            Arith::Comma(a, b) => {
                self.eval_depth(a, depth, text)?;
                self.eval_depth(b, depth, text)?
            }
            Arith::Dynamic(_) => self.eval_arith(expr)?,
        })
    }

    fn unbound_in_arith(&mut self, name: &str) -> Result<i64, ArithFailure> {
        if self.options.get(Opt::Nounset) {
            return Err(ArithFailure { message: format!("{}: unbound variable", name), fatal: true });
        }
        Ok(0)
    }

    fn arith_var(&mut self, name: &str, depth: u32) -> Result<i64, ArithFailure> {
        if let Some(var) = self.vars.get(name) {
            if var.attrs & crate::vars::attr::DYNAMIC == 0 {
                if let Some(text) = var.value.first() {
                    if let Some(n) = plain_integer(text) {
                        return Ok(n);
                    }
                }
            }
        }
        match self.get_scalar(name) {
            Some(value) => self.eval_value(&value, depth),
            None => self.unbound_in_arith(name),
        }
    }

    /// A variable's value used as a number: itself an expression.
    fn eval_value(&mut self, value: &str, depth: u32) -> Result<i64, ArithFailure> {
        if let Some(n) = plain_value(value) {
            return Ok(n);
        }
        let trimmed = value.trim();
        if depth >= MAX_VALUE_DEPTH {
            return Err(ArithFailure::new(trimmed, "expression recursion level exceeded", trimmed));
        }
        self.eval_text_depth(value, depth + 1)
    }

    fn arith_key(&mut self, name: &str, index: &Arith, raw: &str, depth: u32) -> Result<Key, ArithFailure> {
        if self.is_assoc(name) {
            return Ok(Key::Name(raw.to_string()));
        }
        Ok(Key::Index(self.eval_depth(index, depth, "")?))
    }

    fn arith_store(&mut self, target: &Arith, value: i64, depth: u32) -> Result<(), ArithFailure> {
        let result = match target {
            Arith::Var(name) => self.assign_scalar(name, value.to_string(), false),
            Arith::Element(name, index, raw) => {
                let key = self.arith_key(name, index, raw, depth)?;
                self.assign_element(name, key, value.to_string(), false)
            }
            _ => return Err(ArithFailure::new(&crate::printer_arith(target), "attempted assignment to non-variable", "")),
        };
        result.map_err(|e| ArithFailure { message: e.message(), fatal: false })
    }
}

/// A decimal integer without leading zeros or signs (the fast path for variable values).
fn plain_integer(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 18 || (bytes[0] == b'0' && bytes.len() > 1) {
        return None;
    }
    let (negative, digits) = if bytes[0] == b'-' { (true, &bytes[1..]) } else { (false, bytes) };
    if digits.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        value = value * 10 + (c - b'0') as i64;
    }
    Some(if negative { -value } else { value })
}

fn binary(op: BinaryOp, a: i64, b: i64) -> Result<i64, &'static str> {
    Ok(match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div => {
            if b == 0 {
                return Err("division by 0");
            }
            a.wrapping_div(b)
        }
        BinaryOp::Rem => {
            if b == 0 {
                return Err("division by 0");
            }
            a.wrapping_rem(b)
        }
        BinaryOp::Pow => {
            if b < 0 {
                return Err("exponent less than 0");
            }
            let mut result: i64 = 1;
            let mut base = a;
            let mut exp = b as u64;
            while exp > 0 {
                if exp & 1 == 1 {
                    result = result.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                exp >>= 1;
            }
            result
        }
        BinaryOp::Shl => a.wrapping_shl(b as u32),
        BinaryOp::Shr => a.wrapping_shr(b as u32),
        BinaryOp::Lt => (a < b) as i64,
        BinaryOp::Le => (a <= b) as i64,
        BinaryOp::Gt => (a > b) as i64,
        BinaryOp::Ge => (a >= b) as i64,
        BinaryOp::Eq => (a == b) as i64,
        BinaryOp::Ne => (a != b) as i64,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::BitOr => a | b,
        BinaryOp::And => (a != 0 && b != 0) as i64,
        BinaryOp::Or => (a != 0 || b != 0) as i64,
    })
}
