//! The table of remembered program paths (`hash`): what a name found on `PATH` resolved
//! to, and how often the shell looked it up since.
//!
//! Bash lists the table bucket by bucket (256 buckets, FNV-1 hash of the name, the newest
//! entry first in a bucket) and counts a hit on every lookup that finds an entry (running
//! it, `type`, `command -v`, `hash -t`); scripts print `hash`, so we follow both.

use std::collections::HashMap;

use crate::vars::bucket;

const BUCKETS: u32 = 256;

/// One remembered program.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub path: String,
    pub hits: u32,
    order: u64,
}

#[derive(Debug, Clone, Default)]
pub struct ProgramTable {
    entries: HashMap<String, Entry>,
    next: u64,
}

impl ProgramTable {
    /// The path remembered for `name`, counting a hit.
    pub fn lookup(&mut self, name: &str) -> Option<String> {
        let entry = self.entries.get_mut(name)?;
        entry.hits = entry.hits.saturating_add(1);
        Some(entry.path.clone())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// Remembers `name` (replacing what was there) with `hits` hits.
    pub fn insert(&mut self, name: &str, path: &str, hits: u32) {
        self.next += 1;
        self.entries.insert(name.to_string(), Entry { path: path.to_string(), hits, order: self.next });
    }

    pub fn remove(&mut self, name: &str) -> bool {
        self.entries.remove(name).is_some()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.get(name)
    }

    /// Entries in the order bash lists them.
    pub fn ordered(&self) -> Vec<(&String, &Entry)> {
        let mut items: Vec<(&String, &Entry)> = self.entries.iter().collect();
        items.sort_by(|a, b| bucket(a.0, BUCKETS).cmp(&bucket(b.0, BUCKETS)).then(b.1.order.cmp(&a.1.order)));
        items
    }

    /// `(name, path, hits)` oldest first, for the serialized state.
    pub fn to_triples(&self) -> Vec<(String, String, u32)> {
        let mut items: Vec<(&String, &Entry)> = self.entries.iter().collect();
        items.sort_by_key(|(_, entry)| entry.order);
        items.into_iter().map(|(name, entry)| (name.clone(), entry.path.clone(), entry.hits)).collect()
    }

    pub fn from_triples(triples: Vec<(String, String, u32)>) -> ProgramTable {
        let mut table = ProgramTable::default();
        for (name, path, hits) in triples {
            table.insert(&name, &path, hits);
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_in_bash_bucket_order_and_counts_hits() {
        let mut table = ProgramTable::default();
        table.insert("foo", "/bin/foo", 0);
        table.insert("cat", "/usr/bin/cat", 1);
        assert_eq!(table.lookup("cat").as_deref(), Some("/usr/bin/cat"));
        let names: Vec<&str> = table.ordered().iter().map(|(n, _)| n.as_str()).collect();
        // bash 5.2: `hash -p /bin/foo foo; cat </dev/null; hash` lists foo first.
        assert_eq!(names, ["foo", "cat"]);
        assert_eq!(table.get("cat").map(|e| e.hits), Some(2));
        let copy = ProgramTable::from_triples(table.to_triples());
        assert_eq!(copy.ordered().len(), 2);
    }
}
