//! awk associative arrays that list their keys in the same order as gawk 5, so that
//! `for (k in a)` prints what gawk prints. gawk picks a layout from the first subscript
//! and keeps a secondary array for keys that do not fit:
//! - "cint": non-negative integers in power-of-two groups, listed in ascending order;
//!   keys that would waste too much capacity go to the secondary array;
//! - "int": a hash table of integers (two per bucket, chains prepended);
//! - "str": a hash table of strings (sdbm hash, chains prepended, prime sizes).
//! The secondary array's keys are listed first. Only the observable order is reproduced;
//! the storage itself is ordinary Rust collections.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::value::{Str, Value};

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

const PRIMES: [usize; 21] = [
    13, 127, 1021, 8191, 16381, 32749, 65497, 131101, 262147, 524309, 1048583, 2097169, 4194319, 8388617, 16777259, 33554467, 67108879,
    134217757, 268435459, 536870923, 1073741827,
];

fn next_prime(size: usize) -> usize {
    PRIMES.iter().copied().find(|p| *p > size).unwrap_or(size)
}

/// gawk's string hash (sdbm, bytes as signed chars, 32 bits).
fn str_hash(s: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in s {
        h = (c as i8 as i32 as u32).wrapping_add(h.wrapping_mul(65599));
    }
    h
}

fn int_hash(k: i32) -> u32 {
    let mut k = k as u32;
    k ^= k << 3;
    k = k.wrapping_add(k >> 5);
    k ^= k << 4;
    k = k.wrapping_add(k >> 17);
    k ^= k << 25;
    k = k.wrapping_add(k >> 6);
    k
}

const NIL: u32 = u32::MAX;

struct StrEntry {
    key: Box<[u8]>,
    code: u32,
    next: u32,
    value: Value,
}

/// gawk's str_array: chained hash, new entries at the head of their chain.
#[derive(Default)]
struct StrTable {
    heads: Vec<u32>,
    entries: Vec<StrEntry>,
    free: Vec<u32>,
    count: usize,
}

impl StrTable {
    fn find(&self, key: &[u8]) -> Option<u32> {
        if self.count == 0 {
            return None;
        }
        let code = str_hash(key);
        let mut e = self.heads[code as usize % self.heads.len()];
        while e != NIL {
            let entry = &self.entries[e as usize];
            if entry.code == code && &*entry.key == key {
                return Some(e);
            }
            e = entry.next;
        }
        None
    }

    fn grow(&mut self) {
        let new_size = next_prime(self.heads.len());
        if new_size == self.heads.len() {
            return;
        }
        let old = std::mem::replace(&mut self.heads, vec![NIL; new_size]);
        for head in old {
            let mut e = head;
            while e != NIL {
                let next = self.entries[e as usize].next;
                let slot = self.entries[e as usize].code as usize % new_size;
                self.entries[e as usize].next = self.heads[slot];
                self.heads[slot] = e;
                e = next;
            }
        }
    }

    fn insert(&mut self, key: &[u8]) -> u32 {
        if self.heads.is_empty() {
            self.heads = vec![NIL; PRIMES[0]];
        }
        self.count += 1;
        if self.count / self.heads.len() > 2 {
            self.grow();
        }
        let code = str_hash(key);
        let slot = code as usize % self.heads.len();
        let entry = StrEntry { key: key.into(), code, next: self.heads[slot], value: Value::Uninit };
        let index = match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = entry;
                i
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as u32
            }
        };
        self.heads[slot] = index;
        index
    }

    fn remove(&mut self, key: &[u8]) -> bool {
        let index = match self.find(key) {
            Some(i) => i,
            None => return false,
        };
        let slot = self.entries[index as usize].code as usize % self.heads.len();
        let next = self.entries[index as usize].next;
        if self.heads[slot] == index {
            self.heads[slot] = next;
        } else {
            let mut e = self.heads[slot];
            while self.entries[e as usize].next != index {
                e = self.entries[e as usize].next;
            }
            self.entries[e as usize].next = next;
        }
        self.entries[index as usize].value = Value::Uninit;
        self.entries[index as usize].key = Box::new([]);
        self.free.push(index);
        self.count -= 1;
        true
    }

    fn list(&self, out: &mut Vec<OwnedKey>) {
        for head in &self.heads {
            let mut e = *head;
            while e != NIL {
                let entry = &self.entries[e as usize];
                out.push(OwnedKey::Str(entry.key.as_ref().into()));
                e = entry.next;
            }
        }
    }
}

/// gawk's int_array: buckets of two, new buckets at the head of their chain. Each slot
/// holds its entries in listing order.
#[derive(Default)]
struct IntTable {
    slots: Vec<Vec<(i32, Value)>>,
    count: usize,
}

impl IntTable {
    fn slot_of(&self, k: i32) -> usize {
        int_hash(k) as usize % self.slots.len()
    }

    fn find(&self, k: i32) -> Option<(usize, usize)> {
        if self.count == 0 {
            return None;
        }
        let s = self.slot_of(k);
        self.slots[s].iter().position(|e| e.0 == k).map(|p| (s, p))
    }

    fn place(slots: &mut [Vec<(i32, Value)>], k: i32, value: Value) -> (usize, usize) {
        let s = int_hash(k) as usize % slots.len();
        let v = &mut slots[s];
        // An odd count means the head bucket has room: the entry goes second.
        let p = if v.len() % 2 == 1 { 1 } else { 0 };
        v.insert(p, (k, value));
        (s, p)
    }

    fn insert(&mut self, k: i32) -> (usize, usize) {
        if self.slots.is_empty() {
            self.slots = (0..PRIMES[0]).map(|_| Vec::new()).collect();
        }
        self.count += 1;
        if self.count / self.slots.len() > 10 {
            let new_size = next_prime(self.slots.len());
            if new_size != self.slots.len() {
                let old = std::mem::replace(&mut self.slots, (0..new_size).map(|_| Vec::new()).collect());
                for slot in old {
                    for (key, value) in slot {
                        IntTable::place(&mut self.slots, key, value);
                    }
                }
            }
        }
        IntTable::place(&mut self.slots, k, Value::Uninit)
    }

    fn remove(&mut self, k: i32) -> bool {
        let (s, p) = match self.find(k) {
            Some(found) => found,
            None => return false,
        };
        let v = &mut self.slots[s];
        let head = if v.len() % 2 == 1 { 1 } else { 2 };
        if p < head {
            v.remove(p);
        } else {
            // gawk refills the bucket with the head bucket's last entry.
            let b0 = head + (p - head) / 2 * 2;
            if p == b0 {
                v.swap(b0, b0 + 1);
            }
            v.swap(b0 + 1, head - 1);
            v.remove(head - 1);
        }
        self.count -= 1;
        true
    }

    fn list(&self, out: &mut Vec<OwnedKey>) {
        for slot in &self.slots {
            out.extend(slot.iter().map(|e| OwnedKey::Int(e.0)));
        }
    }
}

#[derive(Default)]
struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ *b as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

const NHAT: u32 = 10;
const THRESHOLD: i64 = 1 << (NHAT + 1);

struct Leaf {
    values: Vec<Option<Value>>,
    count: usize,
}

/// gawk's cint_array for keys >= 0: leaves (of power-of-two sizes) in a map by base.
#[derive(Default)]
struct Cint {
    leaves: FastMap<u64, Leaf>,
    count: usize,
    capacity: i64,
}

/// The group (1 + floor(log2 k), at least NHAT) gawk files a key under.
fn cint_group(k: u32) -> u32 {
    if k == 0 {
        return NHAT;
    }
    let r = 31 - k.leading_zeros();
    if r < NHAT {
        NHAT
    } else {
        1 + r
    }
}

/// The leaf holding `k`: (base, size).
fn cint_leaf(k: u32) -> (u64, u64) {
    let m = cint_group(k) - 1;
    let (mut m, mut base) = if m < NHAT { (NHAT, 0u64) } else { (m, 1u64 << m) };
    loop {
        let n = (m + 1) / 2;
        let size = 1u64 << n;
        let i = (k as u64 - base) / size;
        base += size * i;
        if n > NHAT {
            m = n;
        } else {
            return (base, size);
        }
    }
}

impl Cint {
    fn get(&self, k: u32) -> Option<&Value> {
        let (base, _) = cint_leaf(k);
        self.leaves.get(&base).and_then(|leaf| leaf.values[(k as u64 - base) as usize].as_ref())
    }

    /// Whether gawk would store a new key `k` here rather than in the secondary array.
    fn accepts(&self, k: u32) -> bool {
        let m = cint_group(k) - 1;
        let mut li = m.max(NHAT);
        while li >= NHAT {
            li = (li + 1) / 2;
        }
        let capacity = self.capacity + (1i64 << li);
        capacity - self.count as i64 <= THRESHOLD
    }

    fn insert(&mut self, k: u32) -> &mut Value {
        let (base, size) = cint_leaf(k);
        let capacity = &mut self.capacity;
        let leaf = self.leaves.entry(base).or_insert_with(|| {
            *capacity += size as i64;
            Leaf { values: (0..size).map(|_| None).collect(), count: 0 }
        });
        let slot = &mut leaf.values[(k as u64 - base) as usize];
        if slot.is_none() {
            leaf.count += 1;
            self.count += 1;
        }
        slot.get_or_insert(Value::Uninit)
    }

    fn remove(&mut self, k: u32) -> bool {
        let (base, size) = cint_leaf(k);
        let leaf = match self.leaves.get_mut(&base) {
            Some(leaf) => leaf,
            None => return false,
        };
        if leaf.values[(k as u64 - base) as usize].take().is_none() {
            return false;
        }
        leaf.count -= 1;
        self.count -= 1;
        if leaf.count == 0 {
            self.leaves.remove(&base);
            self.capacity -= size as i64;
        }
        true
    }

    fn list(&self, out: &mut Vec<OwnedKey>) {
        let mut bases: Vec<u64> = self.leaves.keys().copied().collect();
        bases.sort_unstable();
        for base in bases {
            if let Some(leaf) = self.leaves.get(&base) {
                for (i, v) in leaf.values.iter().enumerate() {
                    if v.is_some() {
                        out.push(OwnedKey::Int((base + i as u64) as i32));
                    }
                }
            }
        }
    }
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

fn int_text(k: i32, buf: &mut [u8; 12]) -> &[u8] {
    let mut i = buf.len();
    let negative = k < 0;
    let mut u = (k as i64).unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if negative {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
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
                let mut buf = [0u8; 12];
                t.find(int_text(k, &mut buf)).map(|i| &t.entries[i as usize].value)
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
                let mut buf = [0u8; 12];
                let text = int_text(k, &mut buf);
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
                let mut buf = [0u8; 12];
                t.remove(int_text(k, &mut buf))
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
