//! awk associative arrays that list their keys in the same order as gawk 5, so that
//! `for (k in a)` prints what gawk prints. gawk picks a layout from the first subscript
//! and keeps a secondary array for keys that do not fit:
//! - "cint": non-negative integers in power-of-two groups, listed in ascending order;
//!   keys that would waste too much capacity go to the secondary array;
//! - "int": a hash table of integers (two per bucket, chains prepended);
//! - "str": a hash table of strings (sdbm hash, chains prepended, prime sizes).
//! The secondary array's keys are listed first. Only the observable order is reproduced;
//! the storage itself is ordinary Rust collections.

use super::array_tables::{Cint, IntTable, StrTable};
use super::value::{int_text, Str, Value};

/// A subscript: integers (a standard decimal in i32 range) are kept apart from strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key<'a> {
    Int(i32),
    Str(&'a [u8]),
}

/// A key as listed by `keys()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedKey {
    Int(i32),
    Str(Str),
}

impl OwnedKey {
    pub fn as_key(&self) -> Key<'_> {
        match self {
            OwnedKey::Int(i) => Key::Int(*i),
            OwnedKey::Str(s) => Key::Str(s),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            OwnedKey::Int(i) => i.to_string().into_bytes(),
            OwnedKey::Str(s) => s.to_vec(),
        }
    }
}

/// Classifies subscript text: "0" or -?[1-9][0-9]* within i32 is an integer key.
pub fn classify(bytes: &[u8]) -> Key<'_> {
    let digits = match bytes.first() {
        Some(b'-') => &bytes[1..],
        _ => bytes,
    };
    let standard = !digits.is_empty()
        && digits.len() <= 10
        && digits.iter().all(|c| c.is_ascii_digit())
        && (digits[0] != b'0' || (digits.len() == 1 && bytes.len() == 1));
    if standard {
        let mut v: i64 = 0;
        for d in digits {
            v = v * 10 + (d - b'0') as i64;
        }
        if bytes[0] == b'-' {
            v = -v;
        }
        if v >= i32::MIN as i64 && v <= i32::MAX as i64 {
            return Key::Int(v as i32);
        }
    }
    Key::Str(bytes)
}

enum Kind {
    Cint(Box<Cint>, Option<Box<AwkArray>>),
    Int(Box<IntTable>, Option<Box<AwkArray>>),
    Str(Box<StrTable>),
}

impl Kind {
    /// The layout gawk picks for an empty array from its first subscript.
    fn for_key(key: Key) -> Kind {
        match key {
            Key::Int(k) if k >= 0 => Kind::Cint(Box::default(), None),
            Key::Int(_) => Kind::Int(Box::default(), None),
            Key::Str(_) => Kind::Str(Box::default()),
        }
    }

    fn primary_len(&self) -> usize {
        match self {
            Kind::Cint(c, _) => c.count,
            Kind::Int(t, _) => t.count,
            Kind::Str(t) => t.count,
        }
    }
}

/// An awk array. `None` is gawk's "null array": empty, its layout not chosen yet.
#[derive(Default)]
pub struct AwkArray {
    kind: Option<Kind>,
}

impl AwkArray {
    pub fn new() -> AwkArray {
        AwkArray { kind: None }
    }

    pub fn len(&self) -> usize {
        match &self.kind {
            None => 0,
            Some(Kind::Cint(c, x)) => c.count + x.as_ref().map_or(0, |x| x.len()),
            Some(Kind::Int(t, x)) => t.count + x.as_ref().map_or(0, |x| x.len()),
            Some(Kind::Str(t)) => t.count,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, key: Key) -> Option<&Value> {
        let kind = self.kind.as_ref()?;
        match (kind, key) {
            (Kind::Cint(c, x), Key::Int(k)) if k >= 0 => c.get(k as u32).or_else(|| x.as_ref().and_then(|x| x.get(key))),
            (Kind::Cint(_, x), _) => x.as_ref().and_then(|x| x.get(key)),
            (Kind::Int(t, _), Key::Int(k)) => t.find(k).map(|(s, p)| &t.slots[s][p].1),
            (Kind::Int(_, x), Key::Str(_)) => x.as_ref().and_then(|x| x.get(key)),
            (Kind::Str(t), Key::Str(s)) => t.find(s).map(|i| &t.entries[i as usize].value),
            (Kind::Str(t), Key::Int(k)) => {
                let mut buf = [0u8; 20];
                t.find(int_text(k.into(), &mut buf)).map(|i| &t.entries[i as usize].value)
            }
        }
    }

    pub fn contains(&self, key: Key) -> bool {
        self.get(key).is_some()
    }

    /// The element, created (uninitialized) if missing: awk creates elements on reference.
    pub fn get_or_insert(&mut self, key: Key) -> &mut Value {
        let kind = self.kind.get_or_insert_with(|| Kind::for_key(key));
        match (kind, key) {
            (Kind::Cint(c, x), _) => match key {
                Key::Int(k) if k >= 0 => {
                    let in_secondary = x.as_ref().map_or(false, |x| x.contains(key));
                    if c.get(k as u32).is_some() || (!in_secondary && c.accepts(k as u32)) {
                        c.insert(k as u32)
                    } else {
                        secondary(x, key).get_or_insert(key)
                    }
                }
                _ => secondary(x, key).get_or_insert(key),
            },
            (Kind::Int(t, _), Key::Int(k)) => {
                let (s, p) = match t.find(k) {
                    Some(found) => found,
                    None => t.insert(k),
                };
                &mut t.slots[s][p].1
            }
            (Kind::Int(_, x), Key::Str(_)) => secondary(x, key).get_or_insert(key),
            (Kind::Str(t), Key::Str(s)) => {
                let i = match t.find(s) {
                    Some(i) => i,
                    None => t.insert(s),
                };
                &mut t.entries[i as usize].value
            }
            (Kind::Str(t), Key::Int(k)) => {
                let mut buf = [0u8; 20];
                let text = int_text(k.into(), &mut buf);
                let i = match t.find(text) {
                    Some(i) => i,
                    None => t.insert(text),
                };
                &mut t.entries[i as usize].value
            }
        }
    }

    pub fn set(&mut self, key: Key, value: Value) {
        *self.get_or_insert(key) = value;
    }

    pub fn remove(&mut self, key: Key) {
        let kind = match &mut self.kind {
            Some(kind) => kind,
            None => return,
        };
        let removed_primary = match (&mut *kind, key) {
            (Kind::Cint(c, x), Key::Int(k)) if k >= 0 => {
                if c.get(k as u32).is_some() {
                    c.remove(k as u32)
                } else {
                    remove_secondary(x, key);
                    false
                }
            }
            (Kind::Cint(_, x), _) | (Kind::Int(_, x), Key::Str(_)) => {
                remove_secondary(x, key);
                false
            }
            (Kind::Int(t, _), Key::Int(k)) => t.remove(k),
            (Kind::Str(t), Key::Str(s)) => t.remove(s),
            (Kind::Str(t), Key::Int(k)) => {
                let mut buf = [0u8; 20];
                t.remove(int_text(k.into(), &mut buf))
            }
        };
        // When the primary part empties, gawk promotes the secondary array (or resets).
        if removed_primary && kind.primary_len() == 0 {
            let secondary = match kind {
                Kind::Cint(_, x) | Kind::Int(_, x) => x.take(),
                Kind::Str(_) => None,
            };
            self.kind = secondary.and_then(|x| x.kind);
        } else if self.is_empty() {
            self.kind = None;
        }
    }

    pub fn clear(&mut self) {
        self.kind = None;
    }

    /// Every key, in gawk's `for (k in a)` order.
    pub fn keys(&self) -> Vec<OwnedKey> {
        let mut out = Vec::with_capacity(self.len());
        self.list(&mut out);
        out
    }

    fn list(&self, out: &mut Vec<OwnedKey>) {
        match &self.kind {
            None => {}
            Some(Kind::Cint(c, x)) => {
                if let Some(x) = x {
                    x.list(out);
                }
                c.list(out);
            }
            Some(Kind::Int(t, x)) => {
                if let Some(x) = x {
                    x.list(out);
                }
                t.list(out);
            }
            Some(Kind::Str(t)) => t.list(out),
        }
    }
}

/// The secondary array, created on first use: an int table if its first key is an
/// integer, else a string table (as gawk decides).
fn secondary<'x>(x: &'x mut Option<Box<AwkArray>>, key: Key) -> &'x mut AwkArray {
    let array = x.get_or_insert_with(|| Box::new(AwkArray::new()));
    if array.kind.is_none() {
        array.kind = Some(match key {
            Key::Int(_) => Kind::Int(Box::default(), None),
            Key::Str(_) => Kind::Str(Box::default()),
        });
    }
    array
}

fn remove_secondary(x: &mut Option<Box<AwkArray>>, key: Key) {
    if let Some(secondary) = x {
        secondary.remove(key);
        if secondary.is_empty() {
            *x = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_text(a: &AwkArray) -> String {
        a.keys().iter().map(|k| String::from_utf8(k.to_bytes()).unwrap()).collect::<Vec<_>>().join(" ")
    }

    fn add(a: &mut AwkArray, text: &str) {
        a.get_or_insert(classify(text.as_bytes()));
    }

    #[test]
    fn string_order_matches_gawk() {
        let mut a = AwkArray::new();
        for w in "apple banana cherry date elder fig grape".split(' ') {
            add(&mut a, w);
        }
        assert_eq!(keys_text(&a), "fig apple elder banana grape cherry date");
    }

    #[test]
    fn integer_and_mixed_order() {
        let mut a = AwkArray::new();
        for w in ["3", "1", "2", "x"] {
            add(&mut a, w);
        }
        assert_eq!(keys_text(&a), "x 1 2 3");
        a.remove(Key::Int(1));
        a.remove(Key::Int(2));
        a.remove(Key::Int(3));
        assert_eq!(keys_text(&a), "x");
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn classify_keys() {
        assert_eq!(classify(b"12"), Key::Int(12));
        assert_eq!(classify(b"-3"), Key::Int(-3));
        assert_eq!(classify(b"012"), Key::Str(b"012"));
        assert_eq!(classify(b"-0"), Key::Str(b"-0"));
        assert_eq!(classify(b"3000000000"), Key::Str(b"3000000000"));
        assert_eq!(classify(b"+1"), Key::Str(b"+1"));
    }
}
