//! Associative arrays that list their keys in the order bash does.
//!
//! Bash keeps them in a hash table of 1024 buckets (FNV-1 hash of the key), each bucket a
//! list with the newest key first, and lists keys bucket by bucket. Scripts print
//! `${!m[@]}` and users compare the order with bash's, so we reproduce it: keys are stored
//! with an insertion number and sorted by (bucket, newest first) when listed. (Bash grows
//! the table past 2048 keys, which changes its order; we do not follow that.)

use std::collections::HashMap;

const BUCKETS: u32 = 1024;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assoc {
    entries: HashMap<String, (u64, String)>,
    next: u64,
}

/// The bucket of `key` in one of bash's hash tables of `buckets` (a power of two) lists:
/// FNV-1 of its bytes, as bash's `hash_string` computes it. The program table (`hash`)
/// lists its entries in the same order.
pub fn bucket(key: &str, buckets: u32) -> u32 {
    let mut hash: u32 = 2_166_136_261;
    for &byte in crate::text::to_bytes(key).iter() {
        hash = hash.wrapping_mul(16_777_619);
        // Bash hashes `char`, which is signed on the platforms it mostly runs on.
        hash ^= byte as i8 as i32 as u32;
    }
    hash & (buckets - 1)
}

impl Assoc {
    pub fn new() -> Assoc {
        Assoc::default()
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(|(_, v)| v.as_str())
    }

    pub fn insert(&mut self, key: String, value: String) {
        if let Some(entry) = self.entries.get_mut(&key) {
            entry.1 = value;
            return;
        }
        self.next += 1;
        self.entries.insert(key, (self.next, value));
    }

    pub fn remove(&mut self, key: &str) -> Option<String> {
        self.entries.remove(key).map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn ordered(&self) -> Vec<(&String, &String)> {
        let mut items: Vec<(u32, u64, &String, &String)> =
            self.entries.iter().map(|(k, (seq, v))| (bucket(k, BUCKETS), *seq, k, v)).collect();
        items.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        items.into_iter().map(|(_, _, k, v)| (k, v)).collect()
    }

    /// The pairs in the order they were assigned (how `set -x` shows `declare -A m=(...)`).
    pub fn pairs_as_assigned(&self) -> Vec<(&String, &String)> {
        let mut items: Vec<(u64, &String, &String)> = self.entries.iter().map(|(k, (seq, v))| (*seq, k, v)).collect();
        items.sort_unstable_by_key(|item| item.0);
        items.into_iter().map(|(_, k, v)| (k, v)).collect()
    }

    pub fn keys_in_order(&self) -> Vec<String> {
        self.ordered().into_iter().map(|(k, _)| k.clone()).collect()
    }

    pub fn values_in_order(&self) -> Vec<String> {
        self.ordered().into_iter().map(|(_, v)| v.clone()).collect()
    }

    pub fn pairs_in_order(&self) -> Vec<(String, String)> {
        self.ordered().into_iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// Rebuilds from pairs listed in bash order (serialized state), keeping that order.
    pub fn from_ordered_pairs(pairs: Vec<(String, String)>) -> Assoc {
        let mut assoc = Assoc::new();
        for (key, value) in pairs.into_iter().rev() {
            assoc.insert(key, value);
        }
        assoc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keys_in_bash_order() {
        let mut assoc = Assoc::new();
        for (i, key) in ["a", "b", "c", "hello", "x"].iter().enumerate() {
            assoc.insert(key.to_string(), i.to_string());
        }
        // Recorded from bash 5.2: declare -A a=([a]=1 [b]=2 [c]=3 [hello]=4 [x]=5); echo ${!a[@]}
        assert_eq!(assoc.keys_in_order(), ["x", "hello", "c", "b", "a"]);
    }
}
