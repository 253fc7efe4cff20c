//! The three hash layouts behind awk arrays, as gawk builds them (see `array.rs`): the
//! string table, the integer table and the "cint" table of power-of-two leaves. Each keeps
//! gawk's chaining and growth rules so that listing its keys gives gawk's order.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::array::OwnedKey;
use super::value::Value;

pub(super) const PRIMES: [usize; 21] = [
    13, 127, 1021, 8191, 16381, 32749, 65497, 131101, 262147, 524309, 1048583, 2097169, 4194319, 8388617, 16777259, 33554467, 67108879,
    134217757, 268435459, 536870923, 1073741827,
];

pub(super) fn next_prime(size: usize) -> usize {
    PRIMES.iter().copied().find(|p| *p > size).unwrap_or(size)
}

/// gawk's string hash (sdbm, bytes as signed chars, 32 bits).
pub(super) fn str_hash(s: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in s {
        h = (c as i8 as i32 as u32).wrapping_add(h.wrapping_mul(65599));
    }
    h
}

pub(super) fn int_hash(k: i32) -> u32 {
    let mut k = k as u32;
    k ^= k << 3;
    k = k.wrapping_add(k >> 5);
    k ^= k << 4;
    k = k.wrapping_add(k >> 17);
    k ^= k << 25;
    k = k.wrapping_add(k >> 6);
    k
}

pub(super) const NIL: u32 = u32::MAX;

pub(super) struct StrEntry {
    pub(super) key: Box<[u8]>,
    pub(super) code: u32,
    pub(super) next: u32,
    pub(super) value: Value,
}

/// gawk's str_array: chained hash, new entries at the head of their chain.
#[derive(Default)]
pub(super) struct StrTable {
    pub(super) heads: Vec<u32>,
    pub(super) entries: Vec<StrEntry>,
    pub(super) free: Vec<u32>,
    pub(super) count: usize,
}

impl StrTable {
    pub(super) fn find(&self, key: &[u8]) -> Option<u32> {
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

    pub(super) fn grow(&mut self) {
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

    pub(super) fn insert(&mut self, key: &[u8]) -> u32 {
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

    pub(super) fn remove(&mut self, key: &[u8]) -> bool {
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

    pub(super) fn list(&self, out: &mut Vec<OwnedKey>) {
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
pub(super) struct IntTable {
    pub(super) slots: Vec<Vec<(i32, Value)>>,
    pub(super) count: usize,
}

impl IntTable {
    pub(super) fn slot_of(&self, k: i32) -> usize {
        int_hash(k) as usize % self.slots.len()
    }

    pub(super) fn find(&self, k: i32) -> Option<(usize, usize)> {
        if self.count == 0 {
            return None;
        }
        let s = self.slot_of(k);
        self.slots[s].iter().position(|e| e.0 == k).map(|p| (s, p))
    }

    pub(super) fn place(slots: &mut [Vec<(i32, Value)>], k: i32, value: Value) -> (usize, usize) {
        let s = int_hash(k) as usize % slots.len();
        let v = &mut slots[s];
        // An odd count means the head bucket has room: the entry goes second.
        let p = if v.len() % 2 == 1 { 1 } else { 0 };
        v.insert(p, (k, value));
        (s, p)
    }

    pub(super) fn insert(&mut self, k: i32) -> (usize, usize) {
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

    pub(super) fn remove(&mut self, k: i32) -> bool {
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

    pub(super) fn list(&self, out: &mut Vec<OwnedKey>) {
        for slot in &self.slots {
            out.extend(slot.iter().map(|e| OwnedKey::Int(e.0)));
        }
    }
}

#[derive(Default)]
pub(super) struct FastHasher(u64);

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

pub(super) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

pub(super) const NHAT: u32 = 10;
pub(super) const THRESHOLD: i64 = 1 << (NHAT + 1);

pub(super) struct Leaf {
    pub(super) values: Vec<Option<Value>>,
    pub(super) count: usize,
}

/// gawk's cint_array for keys >= 0: leaves (of power-of-two sizes) in a map by base.
#[derive(Default)]
pub(super) struct Cint {
    pub(super) leaves: FastMap<u64, Leaf>,
    pub(super) count: usize,
    pub(super) capacity: i64,
}

/// The group (1 + floor(log2 k), at least NHAT) gawk files a key under.
pub(super) fn cint_group(k: u32) -> u32 {
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
pub(super) fn cint_leaf(k: u32) -> (u64, u64) {
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
    pub(super) fn get(&self, k: u32) -> Option<&Value> {
        let (base, _) = cint_leaf(k);
        self.leaves.get(&base).and_then(|leaf| leaf.values[(k as u64 - base) as usize].as_ref())
    }

    /// Whether gawk would store a new key `k` here rather than in the secondary array.
    pub(super) fn accepts(&self, k: u32) -> bool {
        let m = cint_group(k) - 1;
        let mut li = m.max(NHAT);
        while li >= NHAT {
            li = (li + 1) / 2;
        }
        let capacity = self.capacity + (1i64 << li);
        capacity - self.count as i64 <= THRESHOLD
    }

    pub(super) fn insert(&mut self, k: u32) -> &mut Value {
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

    pub(super) fn remove(&mut self, k: u32) -> bool {
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

    pub(super) fn list(&self, out: &mut Vec<OwnedKey>) {
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
