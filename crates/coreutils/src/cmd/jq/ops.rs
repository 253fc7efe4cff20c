//! The value operations behind jq's syntax: indexing, slicing, arithmetic and comparison,
//! with jq 1.6's results and error messages.

use std::cmp::Ordering;
use std::rc::Rc;

use super::ast::BinOp;
use super::interp::{err, Flow};
use super::value::{Map, Value};

fn index_error(v: &Value, k: &Value) -> Flow {
    match k {
        Value::String(s) => err(format!("Cannot index {} with string \"{}\"", v.kind(), s)),
        _ => err(format!("Cannot index {} with {}", v.kind(), k.kind())),
    }
}

/// `.name`.
pub fn index_field(v: &Value, name: &Rc<str>) -> Result<Value, Flow> {
    match v {
        Value::Object(o) => Ok(o.get(name).cloned().unwrap_or(Value::Null)),
        Value::Null => Ok(Value::Null),
        _ => Err(index_error(v, &Value::String(name.clone()))),
    }
}

/// An array index as jq takes it: integral numbers only, negative from the end.
fn array_position(len: usize, n: f64) -> Option<usize> {
    if n.fract() != 0.0 || n.is_nan() {
        return None;
    }
    let i = if n < 0.0 { len as f64 + n } else { n };
    if i < 0.0 || i >= len as f64 {
        None
    } else {
        Some(i as usize)
    }
}

/// `.[k]`.
pub fn index(v: &Value, k: &Value) -> Result<Value, Flow> {
    match (v, k) {
        (Value::Object(o), Value::String(s)) => Ok(o.get(s).cloned().unwrap_or(Value::Null)),
        (Value::Array(a), Value::Number(n)) => Ok(array_position(a.len(), *n).map(|i| a[i].clone()).unwrap_or(Value::Null)),
        (Value::Null, Value::String(_)) | (Value::Null, Value::Number(_)) | (Value::Null, Value::Object(_)) => Ok(Value::Null),
        (Value::Array(_), Value::Object(o)) | (Value::String(_), Value::Object(o)) => slice(v, o.get("start").unwrap_or(&Value::Null), o.get("end").unwrap_or(&Value::Null)),
        (Value::Array(a), Value::Array(b)) => Ok(Value::array(array_indices(a, b))),
        _ => Err(index_error(v, k)),
    }
}

/// Positions where `needle` occurs as a sub-array of `hay`.
pub fn array_indices(hay: &[Value], needle: &[Value]) -> Vec<Value> {
    if needle.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for i in 0..hay.len() {
        if i + needle.len() <= hay.len() && hay[i..i + needle.len()].iter().zip(needle).all(|(a, b)| a.equals(b)) {
            out.push(Value::Number(i as f64));
        }
    }
    out
}

/// Clamped slice bounds for a length (jq rounds the start down and the end up).
pub fn slice_bounds(len: usize, from: &Value, to: &Value) -> Result<(usize, usize), Flow> {
    let bound = |v: &Value, default: f64, up: bool| -> Result<f64, Flow> {
        match v {
            Value::Null => Ok(default),
            Value::Number(n) => {
                let n = if *n < 0.0 { len as f64 + n } else { *n };
                Ok(if up { n.ceil() } else { n.floor() })
            }
            _ => Err(err("Start and end indices of an array slice must be numbers")),
        }
    };
    let start = bound(from, 0.0, false)?.clamp(0.0, len as f64) as usize;
    let end = bound(to, len as f64, true)?.clamp(0.0, len as f64) as usize;
    Ok((start, end.max(start)))
}

/// `.[from:to]` on arrays, strings (by codepoint) and null.
pub fn slice(v: &Value, from: &Value, to: &Value) -> Result<Value, Flow> {
    match v {
        Value::Null => Ok(Value::Null),
        Value::Array(a) => {
            let (s, e) = slice_bounds(a.len(), from, to)?;
            Ok(Value::array(a[s..e].to_vec()))
        }
        Value::String(text) => {
            let count = text.chars().count();
            let (s, e) = slice_bounds(count, from, to)?;
            Ok(Value::string(text.chars().skip(s).take(e - s).collect()))
        }
        _ => Err(err(format!("Cannot index {} with object", v.kind()))),
    }
}

fn type_error(a: &Value, b: &Value, what: &str) -> Flow {
    err(format!("{} ({}) and {} ({}) cannot be {}", a.kind(), a.dump_trunc(), b.kind(), b.dump_trunc(), what))
}

pub fn add(a: &Value, b: &Value) -> Result<Value, Flow> {
    Ok(match (a, b) {
        (Value::Null, x) | (x, Value::Null) => x.clone(),
        (Value::Number(x), Value::Number(y)) => Value::Number(x + y),
        (Value::String(x), Value::String(y)) => {
            let mut s = String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Value::string(s)
        }
        (Value::Array(x), Value::Array(y)) => {
            let mut v = Vec::with_capacity(x.len() + y.len());
            v.extend(x.iter().cloned());
            v.extend(y.iter().cloned());
            Value::array(v)
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut m = (**x).clone();
            for (k, v) in y.iter() {
                m.insert(k.clone(), v.clone());
            }
            Value::object(m)
        }
        _ => return Err(type_error(a, b, "added")),
    })
}

/// `*` on objects: recursive merge.
fn deep_merge(x: &Map, y: &Map) -> Map {
    let mut m = x.clone();
    for (k, v) in y.iter() {
        let merged = match (m.get(k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => Value::object(deep_merge(a, b)),
            _ => v.clone(),
        };
        m.insert(k.clone(), merged);
    }
    m
}

fn repeat_string(s: &str, n: f64) -> Value {
    if n <= 0.0 {
        return Value::Null;
    }
    let extra = if n - 1.0 > 0.0 { (n - 1.0) as usize } else { 0 };
    Value::string(s.repeat(1 + extra))
}

pub fn binop(op: BinOp, a: &Value, b: &Value) -> Result<Value, Flow> {
    Ok(match op {
        BinOp::Add => return add(a, b),
        BinOp::Sub => match (a, b) {
            (Value::Number(x), Value::Number(y)) => Value::Number(x - y),
            (Value::Array(x), Value::Array(y)) => Value::array(x.iter().filter(|e| !y.iter().any(|f| f.equals(e))).cloned().collect()),
            _ => return Err(type_error(a, b, "subtracted")),
        },
        BinOp::Mul => match (a, b) {
            (Value::Number(x), Value::Number(y)) => Value::Number(x * y),
            (Value::String(s), Value::Number(n)) | (Value::Number(n), Value::String(s)) => repeat_string(s, *n),
            (Value::Object(x), Value::Object(y)) => Value::object(deep_merge(x, y)),
            _ => return Err(type_error(a, b, "multiplied")),
        },
        BinOp::Div => match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                if *y == 0.0 {
                    return Err(err(format!("{} ({}) and {} ({}) cannot be divided because the divisor is zero", a.kind(), a.dump_trunc(), b.kind(), b.dump_trunc())));
                }
                Value::Number(x / y)
            }
            (Value::String(x), Value::String(y)) => split_string(x, y),
            _ => return Err(type_error(a, b, "divided")),
        },
        BinOp::Mod => match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                let (xi, yi) = (*x as i64, *y as i64);
                if yi == 0 {
                    return Err(err(format!("{} ({}) and {} ({}) cannot be divided because the divisor is zero", a.kind(), a.dump_trunc(), b.kind(), b.dump_trunc())));
                }
                Value::Number(xi.wrapping_rem(yi) as f64)
            }
            _ => return Err(type_error(a, b, "divided")),
        },
        BinOp::Eq => Value::Bool(a.equals(b)),
        BinOp::Ne => Value::Bool(!a.equals(b)),
        BinOp::Lt => Value::Bool(a.compare(b) == Ordering::Less),
        BinOp::Le => Value::Bool(a.compare(b) != Ordering::Greater),
        BinOp::Gt => Value::Bool(a.compare(b) == Ordering::Greater),
        BinOp::Ge => Value::Bool(a.compare(b) != Ordering::Less),
    })
}

/// `split/1` and string division.
pub fn split_string(s: &str, sep: &str) -> Value {
    if s.is_empty() {
        return Value::array(Vec::new());
    }
    if sep.is_empty() {
        return Value::array(s.chars().map(|c| Value::string(c.to_string())).collect());
    }
    Value::array(s.split(sep).map(Value::from_str).collect())
}

/// `contains`: substring for strings, recursively for arrays and objects; values of
/// different kinds are an error at the top only (inside they just do not match).
pub fn contains(a: &Value, b: &Value) -> Result<bool, Flow> {
    if a.kind() != b.kind() {
        return Err(err(format!("{} ({}) and {} ({}) cannot have their containment checked", a.kind(), a.dump_trunc(), b.kind(), b.dump_trunc())));
    }
    Ok(contains_inner(a, b))
}

fn contains_inner(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => y.iter().all(|(k, v)| x.get(k).map_or(false, |w| contains_inner(w, v))),
        (Value::Array(x), Value::Array(y)) => y.iter().all(|v| x.iter().any(|w| contains_inner(w, v))),
        (Value::String(x), Value::String(y)) => x.contains(&**y),
        _ if a.kind() == b.kind() => a.equals(b),
        _ => false,
    }
}
