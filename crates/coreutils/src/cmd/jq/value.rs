//! jq's values: JSON with numbers as f64, strings shared (`Rc<str>`), and objects that keep
//! insertion order like jq 1.6. Values are cheap to clone (reference counted) and copied on
//! write. Ordering and equality follow jq's `jv_cmp`.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(Rc<str>),
    Array(Rc<Vec<Value>>),
    Object(Rc<Map>),
}

/// An insertion-ordered map; a hash index is added once it grows past a few keys.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Rc<str>, Value)>,
    index: Option<HashMap<Rc<str>, usize>>,
}

const INDEX_FROM: usize = 12;

impl Map {
    pub fn new() -> Map {
        Map::default()
    }

    pub fn with_capacity(n: usize) -> Map {
        Map { entries: Vec::with_capacity(n), index: None }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| &**k == key),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match self.position(key) {
            Some(i) => Some(&mut self.entries[i].1),
            None => None,
        }
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key`, keeping its place when it exists, appending otherwise.
    pub fn insert(&mut self, key: Rc<str>, value: Value) {
        match self.position(&key) {
            Some(i) => self.entries[i].1 = value,
            None => {
                if let Some(index) = self.index.as_mut() {
                    index.insert(key.clone(), self.entries.len());
                }
                self.entries.push((key, value));
                if self.index.is_none() && self.entries.len() > INDEX_FROM {
                    self.rebuild_index();
                }
            }
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.position(key)?;
        let (_, v) = self.entries.remove(i);
        if self.index.is_some() {
            self.rebuild_index();
        }
        Some(v)
    }

    fn rebuild_index(&mut self) {
        self.index = Some(self.entries.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect());
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Rc<str>, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Rc<str>> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Keys in jq's sorted order (by bytes).
    pub fn sorted_keys(&self) -> Vec<Rc<str>> {
        let mut keys: Vec<Rc<str>> = self.keys().cloned().collect();
        keys.sort();
        keys
    }
}

impl Value {
    pub fn from_str(s: &str) -> Value {
        Value::String(Rc::from(s))
    }

    pub fn string(s: String) -> Value {
        Value::String(Rc::from(s))
    }

    pub fn array(v: Vec<Value>) -> Value {
        Value::Array(Rc::new(v))
    }

    pub fn object(m: Map) -> Value {
        Value::Object(Rc::new(m))
    }

    /// jq's truthiness: everything but null and false.
    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Null | Value::Bool(false))
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(false) => 1,
            Value::Bool(true) => 2,
            Value::Number(_) => 3,
            Value::String(_) => 4,
            Value::Array(_) => 5,
            Value::Object(_) => 6,
        }
    }

    /// jq's total order: null < false < true < numbers < strings < arrays < objects.
    pub fn compare(&self, other: &Value) -> Ordering {
        let (a, b) = (self.rank(), other.rank());
        if a != b {
            return a.cmp(&b);
        }
        match (self, other) {
            (Value::Number(x), Value::Number(y)) => compare_numbers(*x, *y),
            (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
            (Value::Array(x), Value::Array(y)) => {
                for (p, q) in x.iter().zip(y.iter()) {
                    let o = p.compare(q);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                x.len().cmp(&y.len())
            }
            (Value::Object(x), Value::Object(y)) => {
                let (kx, ky) = (x.sorted_keys(), y.sorted_keys());
                let o = kx.cmp(&ky);
                if o != Ordering::Equal {
                    return o;
                }
                for k in &kx {
                    let o = x.get(k).unwrap_or(&Value::Null).compare(y.get(k).unwrap_or(&Value::Null));
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            }
            _ => Ordering::Equal,
        }
    }

    pub fn equals(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Number(x), Value::Number(y)) => x == y,
            (Value::String(x), Value::String(y)) => x == y,
            (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| p.equals(q)),
            (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).map_or(false, |w| v.equals(w))),
            _ => self.compare(other) == Ordering::Equal,
        }
    }

    /// `length`.
    pub fn length(&self) -> Result<Value, String> {
        Ok(Value::Number(match self {
            Value::Null => 0.0,
            Value::Bool(_) => return Err(format!("{} ({}) has no length", self.kind(), self.dump_trunc())),
            Value::Number(n) => n.abs(),
            Value::String(s) => s.chars().count() as f64,
            Value::Array(a) => a.len() as f64,
            Value::Object(o) => o.len() as f64,
        }))
    }

    /// The compact JSON text, cut to 11 bytes plus `...` as jq does in error messages.
    pub fn dump_trunc(&self) -> String {
        let mut text = Vec::new();
        super::print::write_value(&mut text, self, &super::print::Style::compact());
        if text.len() > 14 {
            text.truncate(11);
            text.extend_from_slice(b"...");
        }
        String::from_utf8_lossy(&text).into_owned()
    }

    /// `tostring`: strings as they are, everything else as compact JSON.
    pub fn to_text(&self) -> Rc<str> {
        match self {
            Value::String(s) => s.clone(),
            _ => Rc::from(self.to_json()),
        }
    }

    pub fn to_json(&self) -> String {
        let mut text = Vec::new();
        super::print::write_value(&mut text, self, &super::print::Style::compact());
        String::from_utf8_lossy(&text).into_owned()
    }
}

/// jq 1.6 compares numbers so that a NaN on the left is smaller than anything and a NaN
/// on the right is smaller than any non-NaN left side.
pub fn compare_numbers(x: f64, y: f64) -> Ordering {
    if x.is_nan() {
        Ordering::Less
    } else if y.is_nan() {
        Ordering::Greater
    } else if x < y {
        Ordering::Less
    } else if x == y {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

/// Formats a number as jq 1.6 does: shortest round-trip digits, exponent form when the
/// decimal point is far away (`1e+17`, `1e-05`), NaN as null, infinities clamped to DBL_MAX.
pub fn format_number(d: f64, out: &mut Vec<u8>) {
    if d.is_nan() {
        out.extend_from_slice(b"null");
        return;
    }
    let d = d.clamp(-f64::MAX, f64::MAX);
    if d == 0.0 {
        out.extend_from_slice(if d.is_sign_negative() { b"-0" } else { b"0" });
        return;
    }
    if d.fract() == 0.0 && d.abs() < 1e16 {
        out.extend_from_slice((d as i64).to_string().as_bytes());
        return;
    }
    if d < 0.0 {
        out.push(b'-');
    }
    let sci = format!("{:e}", d.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(|b| *b != b'.').collect();
    let ndigits = digits.len() as i32;
    let decpt = exponent + 1;
    if decpt <= -4 || decpt > ndigits + 15 {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        let e = decpt - 1;
        out.push(if e < 0 { b'-' } else { b'+' });
        out.extend_from_slice(format!("{:02}", e.abs()).as_bytes());
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat(b'0').take((-decpt) as usize));
        out.extend_from_slice(&digits);
    } else if decpt >= ndigits {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat(b'0').take((decpt - ndigits) as usize));
    } else {
        out.extend_from_slice(&digits[..decpt as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[decpt as usize..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(d: f64) -> String {
        let mut v = Vec::new();
        format_number(d, &mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn numbers_like_jq_16() {
        assert_eq!(fmt(1.0), "1");
        assert_eq!(fmt(1.5), "1.5");
        assert_eq!(fmt(1e17), "1e+17");
        assert_eq!(fmt(1e16), "1e+16");
        assert_eq!(fmt(1.25e16), "12500000000000000");
        assert_eq!(fmt(1e15), "1000000000000000");
        assert_eq!(fmt(0.00001), "1e-05");
        assert_eq!(fmt(0.0001), "0.0001");
        assert_eq!(fmt(f64::INFINITY), "1.7976931348623157e+308");
        assert_eq!(fmt(18446744073709551616.0), "18446744073709552000");
        assert_eq!(fmt(-0.0), "-0");
        assert_eq!(fmt(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(fmt(1e-320), "1e-320");
        assert_eq!(fmt(-1.5e-7), "-1.5e-07");
    }

    #[test]
    fn order_and_equality() {
        let a = Value::array(vec![Value::Null, Value::Bool(true), Value::Number(1.0)]);
        let b = Value::array(vec![Value::Null, Value::Bool(true), Value::Number(2.0)]);
        assert_eq!(a.compare(&b), Ordering::Less);
        assert!(Value::Number(1.0).equals(&Value::Number(1.0)));
        assert!(!Value::Number(f64::NAN).equals(&Value::Number(f64::NAN)));
    }
}
