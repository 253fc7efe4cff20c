//! Built-in functions. String positions and lengths count characters (UTF-8, an invalid
//! byte counting as one), as gawk does in a UTF-8 locale.

use super::array::Key;
use super::ast::*;
use super::format::count_chars;
use super::interp::{fatal, Cell, Interp, R};
use super::lexer::char_at;
use super::value::{looks_numeric, str_to_num, Value};
use super::vars;

/// Byte offset of character `n` (0-based) in `s`.
pub fn char_offset(s: &[u8], n: usize) -> usize {
    if s.is_ascii() {
        return n.min(s.len());
    }
    let mut i = 0;
    let mut k = 0;
    while i < s.len() && k < n {
        i += char_at(s, i).1.max(1);
        k += 1;
    }
    i
}

fn case_map(s: &[u8], upper: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let (c, len) = char_at(s, i);
        match c {
            Some(c) if c.is_ascii() => out.push(if upper { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() } as u8),
            Some(c) => {
                // towupper/towlower map one character to one character.
                let mapped: Vec<char> = if upper { c.to_uppercase().collect() } else { c.to_lowercase().collect() };
                let c = if mapped.len() == 1 { mapped[0] } else { c };
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            None => out.push(s[i]),
        }
        i += len.max(1);
    }
    out
}

/// gawk's bit operations work on unsigned integers; negative arguments are fatal.
fn bit_arg(name: &str, position: usize, v: f64) -> R<u64> {
    if v < 0.0 {
        return fatal(format!("{}: argument {} negative value {} is not allowed", name, position, v));
    }
    Ok(v.trunc().min(u64::MAX as f64) as u64)
}

/// strtonum(): 0x hex and leading-0 octal as in program text, else decimal.
fn strtonum(s: &[u8]) -> f64 {
    let t: Vec<u8> = s.iter().copied().skip_while(|c| c.is_ascii_whitespace()).collect();
    let (neg, body) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, &t[..]),
    };
    let value = if body.len() > 1 && body[0] == b'0' && (body[1] | 0x20) == b'x' {
        body[2..].iter().take_while(|c| c.is_ascii_hexdigit()).fold(0f64, |acc, c| acc * 16.0 + (*c as char).to_digit(16).unwrap_or(0) as f64)
    } else if body.len() > 1 && body[0] == b'0' && body[1..].iter().take_while(|c| c.is_ascii_digit()).all(|c| *c < b'8') && !body.contains(&b'.') {
        body.iter().take_while(|c| c.is_ascii_digit()).fold(0f64, |acc, c| acc * 8.0 + (c - b'0') as f64)
    } else {
        return str_to_num(s);
    };
    if neg {
        -value
    } else {
        value
    }
}

impl<'a, 'io> Interp<'a, 'io> {
    pub fn arg_expr<'e>(&self, args: &'e [Arg], i: usize) -> Option<&'e Expr> {
        match args.get(i) {
            Some(Arg::Expr(e)) => Some(e),
            _ => None,
        }
    }

    pub fn arg_str(&mut self, args: &[Arg], i: usize) -> R<Vec<u8>> {
        let mut buf = Vec::new();
        match args.get(i) {
            Some(Arg::Expr(e)) => self.eval_str_into(e, &mut buf)?,
            Some(Arg::LValue(lv)) => {
                let place = self.place(lv)?;
                let v = self.place_get(&place)?;
                v.append_str(&mut buf, &self.convfmt);
            }
            _ => {}
        }
        Ok(buf)
    }

    pub fn arg_num(&mut self, args: &[Arg], i: usize) -> R<f64> {
        match self.arg_expr(args, i) {
            Some(e) => self.eval_num(e),
            None => Ok(0.0),
        }
    }

    pub fn arg_array(&mut self, args: &[Arg], i: usize) -> R<usize> {
        match args.get(i) {
            Some(Arg::Array(v)) => self.array_of(*v),
            _ => fatal("expected an array argument"),
        }
    }

    pub fn builtin(&mut self, b: Builtin, args: &[Arg]) -> R<Value> {
        use Builtin::*;
        Ok(match b {
            Length => {
                if args.is_empty() {
                    return Ok(Value::Num(count_chars(self.rec.text()) as f64));
                }
                if let Some(Expr::Var(v)) = self.arg_expr(args, 0) {
                    if let Cell::Arr(id) = self.cell(*v) {
                        return Ok(Value::Num(self.arrays[*id].len() as f64));
                    }
                }
                let s = self.arg_str(args, 0)?;
                Value::Num(count_chars(&s) as f64)
            }
            Substr => {
                let s = self.arg_str(args, 0)?;
                let mut start = self.arg_num(args, 1)?;
                let length = if args.len() > 2 { Some(self.arg_num(args, 2)?) } else { None };
                if let Some(l) = length {
                    if !(l >= 1.0) {
                        return Ok(Value::from_str(b""));
                    }
                }
                if !(start >= 1.0) {
                    start = 1.0;
                }
                let total = count_chars(&s);
                let index = if start > total as f64 { total } else { start as usize - 1 };
                let from = char_offset(&s, index);
                let to = match length {
                    Some(l) if l < (total - index) as f64 => from + char_offset(&s[from..], l as usize),
                    _ => s.len(),
                };
                Value::Str(s[from..to].into())
            }
            Index => {
                let s = self.arg_str(args, 0)?;
                let t = self.arg_str(args, 1)?;
                let pos = if self.icase {
                    let ls = s.to_ascii_lowercase();
                    memchr::memmem::find(&ls, &t.to_ascii_lowercase())
                } else {
                    memchr::memmem::find(&s, &t)
                };
                Value::Num(match pos {
                    Some(p) => (count_chars(&s[..p]) + 1) as f64,
                    None => 0.0,
                })
            }
            Split | PatSplit => Value::Num(self.split(b == PatSplit, args)? as f64),
            Sub | Gsub => Value::Num(self.substitute(b == Gsub, args)? as f64),
            Gensub => self.gensub(args)?,
            Match => self.match_fn(args)?,
            Sprintf => {
                let mut values = Vec::with_capacity(args.len());
                for i in 0..args.len() {
                    if let Some(e) = self.arg_expr(args, i) {
                        values.push(self.eval(e)?);
                    }
                }
                let fmt = values[0].to_str(&self.convfmt);
                let mut out = Vec::new();
                if let Err(message) = super::format::sprintf(&mut out, &fmt, &values[1..], &self.convfmt) {
                    return fatal(message.trim_start_matches("fatal: ").to_string());
                }
                Value::Str(out.into())
            }
            Sin | Cos | Atan2 | Exp | Log | Sqrt | Int | Rand | Srand | And | Or | Xor | Compl | Lshift | Rshift => self.numeric_builtin(b, args)?,
            Tolower | Toupper => {
                let s = self.arg_str(args, 0)?;
                Value::Str(case_map(&s, b == Toupper).into())
            }
            System | Close | Fflush => self.stream_builtin(b, args)?,
            Strftime => {
                let mut values = Vec::new();
                for i in 0..args.len() {
                    if let Some(e) = self.arg_expr(args, i) {
                        values.push(self.eval(e)?);
                    }
                }
                let procinfo_format = match self.globals[vars::PROCINFO as usize] {
                    Cell::Arr(p) => self.arrays[p].get(Key::Str(b"strftime")).map(|v| v.to_str(&self.convfmt).to_vec()),
                    Cell::Val(_) => None,
                };
                Value::Str(super::time::strftime_builtin(&values, procinfo_format, &self.convfmt).into())
            }
            Systime => Value::Num(super::time::now_seconds() as f64),
            Mktime => {
                let spec = self.arg_str(args, 0)?;
                let utc = if args.len() > 1 { self.eval_arg_bool(args, 1)? } else { false };
                Value::Num(super::time::mktime(&spec, utc))
            }
            Asort | Asorti => Value::Num(self.asort(b == Asorti, args)? as f64),
            Strtonum => {
                let e = self.arg_expr(args, 0);
                match e {
                    Some(e) => match self.eval(e)? {
                        Value::Num(n) => Value::Num(n),
                        other => Value::Num(strtonum(&other.to_str(&self.convfmt))),
                    },
                    None => Value::Num(0.0),
                }
            }
            Isarray => {
                let is = matches!(self.arg_expr(args, 0), Some(Expr::Var(v)) if matches!(self.cell(*v), Cell::Arr(_)));
                Value::Num(is as i32 as f64)
            }
            Typeof => Value::Str(self.type_of(args)?.as_bytes().into()),
        })
    }

    /// The arithmetic and bitwise builtins.
    fn numeric_builtin(&mut self, b: Builtin, args: &[Arg]) -> R<Value> {
        use Builtin::*;
        Ok(match b {
            Sin => Value::Num(self.arg_num(args, 0)?.sin()),
            Cos => Value::Num(self.arg_num(args, 0)?.cos()),
            Atan2 => {
                let y = self.arg_num(args, 0)?;
                let x = self.arg_num(args, 1)?;
                Value::Num(y.atan2(x))
            }
            Exp => Value::Num(self.arg_num(args, 0)?.exp()),
            Log => self.real_only(args, "log: received", f64::ln)?,
            Sqrt => self.real_only(args, "sqrt: called with", f64::sqrt)?,
            Int => Value::Num(self.arg_num(args, 0)?.trunc()),
            Rand => Value::Num(self.rng.rand()),
            Srand => {
                let previous = self.rng.seed();
                let seed = if args.is_empty() { super::time::now_seconds() as f64 } else { self.arg_num(args, 0)? };
                self.rng.srand(seed);
                Value::Num(previous)
            }
            And | Or | Xor => {
                let mut acc = bit_arg(b.name(), 1, self.arg_num(args, 0)?)?;
                for i in 1..args.len() {
                    let v = bit_arg(b.name(), i + 1, self.arg_num(args, i)?)?;
                    acc = match b {
                        And => acc & v,
                        Or => acc | v,
                        _ => acc ^ v,
                    };
                }
                Value::Num(acc as f64)
            }
            Compl => Value::Num((!bit_arg("compl", 1, self.arg_num(args, 0)?)? & ((1u64 << 53) - 1)) as f64),
            Lshift | Rshift => {
                let v = bit_arg(b.name(), 1, self.arg_num(args, 0)?)?;
                let n = bit_arg(b.name(), 2, self.arg_num(args, 1)?)?.min(63) as u32;
                Value::Num(if b == Lshift { v.wrapping_shl(n) } else { v >> n } as f64)
            }
            _ => return fatal("not a numeric builtin"),
        })
    }

    /// log() and sqrt(): of a negative argument, gawk's warning (`WHAT negative argument`)
    /// and glibc's -nan.
    fn real_only(&mut self, args: &[Arg], what: &str, f: fn(f64) -> f64) -> R<Value> {
        let x = self.arg_num(args, 0)?;
        if x < 0.0 {
            let _ = writeln!(self.io.stderr, "{}: cmd. line:{}: warning: {} negative argument {}", self.io.name, self.line, what, x);
            return Ok(Value::Num(-f64::NAN));
        }
        Ok(Value::Num(f(x)))
    }

    /// `system`, `close` and `fflush`: the builtins that act on streams and processes.
    fn stream_builtin(&mut self, b: Builtin, args: &[Arg]) -> R<Value> {
        use Builtin::*;
        Ok(match b {
            System => {
                if self.sandboxed {
                    return fatal("'system' function not allowed in sandbox mode");
                }
                let cmd = self.arg_str(args, 0)?;
                {
                    let Interp { streams, io, .. } = self;
                    streams.flush_all(io.stdout, io.stderr);
                }
                let env = self.child_env();
                match common::shellcmd::run(&cmd, Some(&env)) {
                    Ok(status) => Value::Num(status as f64),
                    Err(_) => Value::Num(127.0),
                }
            }
            Close => {
                let name = self.arg_str(args, 0)?;
                let Interp { streams, io, .. } = self;
                Value::Num(streams.close(&name, io.stdout) as f64)
            }
            Fflush => {
                let Interp { streams, io, .. } = self;
                if args.is_empty() {
                    streams.flush_all(io.stdout, io.stderr);
                    return Ok(Value::Num(0.0));
                }
                let name = self.arg_str(args, 0)?;
                let Interp { streams, io, .. } = self;
                Value::Num(streams.flush(&name, io.stdout, io.stderr) as f64)
            }
            _ => return fatal("not a stream builtin"),
        })
    }

    pub fn eval_arg_bool(&mut self, args: &[Arg], i: usize) -> R<bool> {
        match self.arg_expr(args, i) {
            Some(e) => self.eval_bool(e),
            None => Ok(false),
        }
    }

    fn type_of(&mut self, args: &[Arg]) -> R<&'static str> {
        let e = match self.arg_expr(args, 0) {
            Some(e) => e,
            None => return Ok("untyped"),
        };
        match e {
            Expr::Var(v) if !matches!(v, Var::Global(g) if *g < vars::SPECIAL) => match self.cell(*v) {
                Cell::Arr(_) => return Ok("array"),
                Cell::Val(Value::Uninit) => return Ok("untyped"),
                _ => {}
            },
            Expr::Regex(_) => return Ok("number"),
            Expr::Index(v, subs) => {
                let id = self.array_of(*v)?;
                let t = self.with_key(id, subs, |array, key| match array.get(key) {
                    None | Some(Value::Uninit) => Some("untyped"),
                    _ => None,
                })?;
                if let Some(t) = t {
                    return Ok(t);
                }
            }
            _ => {}
        }
        Ok(match self.eval(e)? {
            Value::Uninit => "unassigned",
            Value::Num(_) => "number",
            Value::Str(_) => "string",
            Value::StrNum(s) => {
                if looks_numeric(&s).is_some() {
                    "strnum"
                } else {
                    "string"
                }
            }
        })
    }
}
