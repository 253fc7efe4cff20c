//! Sorted traversal (`PROCINFO["sorted_in"]`) and asort()/asorti(), with gawk's
//! comparison orders (`@ind_str_asc`, `@val_num_desc`, … or a user function) and its
//! tie-breaks, so equal keys come out in the same order.

use std::cmp::Ordering;

use super::array::{Key, OwnedKey};
use super::ast::Arg;
use super::interp::{fatal, Abort, Cell, Interp, R};
use super::value::{str_to_num, Value};

/// gawk's cmp_strings: the empty string first, then bytes (case-folded first with
/// IGNORECASE).
fn cmp_strings(a: &[u8], b: &[u8], icase: bool) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    if icase {
        let folded = a.iter().map(|c| c.to_ascii_lowercase()).cmp(b.iter().map(|c| c.to_ascii_lowercase()));
        if folded != Ordering::Equal {
            return folded;
        }
    }
    a.cmp(b)
}

fn cmp_numbers(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Order {
    IndStr,
    IndNum,
    ValStr,
    ValNum,
    ValType,
}

struct Item {
    index: Vec<u8>,
    value: Value,
}

impl<'a, 'io> Interp<'a, 'io> {
    fn compare_items(&self, order: Order, a: &Item, b: &Item) -> Ordering {
        let icase = self.icase;
        let by_index = || cmp_strings(&a.index, &b.index, icase);
        match order {
            Order::IndStr => by_index(),
            Order::IndNum => cmp_numbers(str_to_num(&a.index), str_to_num(&b.index)).then_with(by_index),
            Order::ValStr => {
                let (sa, sb) = (a.value.to_str(&self.convfmt), b.value.to_str(&self.convfmt));
                cmp_strings(&sa, &sb, icase).then_with(by_index)
            }
            Order::ValNum => {
                let (sa, sb) = (a.value.to_str(&self.convfmt), b.value.to_str(&self.convfmt));
                cmp_numbers(a.value.to_num(), b.value.to_num()).then_with(|| cmp_strings(&sa, &sb, icase)).then_with(by_index)
            }
            Order::ValType => {
                let rank = |v: &Value| match v {
                    Value::Uninit => 0,
                    v if v.is_numeric() => 1,
                    _ => 2,
                };
                let (ra, rb) = (rank(&a.value), rank(&b.value));
                let by_type = if ra != rb {
                    ra.cmp(&rb)
                } else if ra == 1 {
                    cmp_numbers(a.value.to_num(), b.value.to_num())
                } else if ra == 2 {
                    cmp_strings(&a.value.to_str(&self.convfmt), &b.value.to_str(&self.convfmt), icase)
                } else {
                    Ordering::Equal
                };
                by_type.then_with(by_index)
            }
        }
    }

    /// Sorts the items in place by `how` (an @-order or a function name).
    fn sort_items(&mut self, items: &mut Vec<Item>, how: &[u8]) -> R<()> {
        let (order, descending) = match how {
            b"@ind_str_asc" => (Order::IndStr, false),
            b"@ind_str_desc" => (Order::IndStr, true),
            b"@ind_num_asc" => (Order::IndNum, false),
            b"@ind_num_desc" => (Order::IndNum, true),
            b"@val_str_asc" => (Order::ValStr, false),
            b"@val_str_desc" => (Order::ValStr, true),
            b"@val_num_asc" => (Order::ValNum, false),
            b"@val_num_desc" => (Order::ValNum, true),
            b"@val_type_asc" => (Order::ValType, false),
            b"@val_type_desc" => (Order::ValType, true),
            _ => return self.sort_with_function(items, how),
        };
        let this: &Interp = self;
        items.sort_by(|a, b| {
            let o = this.compare_items(order, a, b);
            if descending {
                o.reverse()
            } else {
                o
            }
        });
        Ok(())
    }

    fn sort_with_function(&mut self, items: &mut Vec<Item>, name: &[u8]) -> R<()> {
        let text = String::from_utf8_lossy(name).into_owned();
        if text.is_empty() || text.contains(char::is_whitespace) {
            return fatal(format!("`{}' is invalid as a function name", text));
        }
        let f = match self.prog.functions.iter().position(|f| f.name == text) {
            Some(f) => f,
            None => return fatal(format!("sort comparison function `{}' is not defined", text)),
        };
        let mut error: Option<Abort> = None;
        let mut taken = std::mem::take(items);
        taken.sort_by(|a, b| {
            if error.is_some() {
                return Ordering::Equal;
            }
            let cells = vec![
                Cell::Val(Value::Str(a.index.as_slice().into())),
                Cell::Val(a.value.clone()),
                Cell::Val(Value::Str(b.index.as_slice().into())),
                Cell::Val(b.value.clone()),
            ];
            match self.invoke(f, cells) {
                Ok(v) => {
                    let n = v.to_num();
                    if n < 0.0 {
                        Ordering::Less
                    } else if n > 0.0 {
                        Ordering::Greater
                    } else {
                        Ordering::Equal
                    }
                }
                Err(e) => {
                    error = Some(e);
                    Ordering::Equal
                }
            }
        });
        *items = taken;
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn items_of(&self, id: usize, keys: Vec<OwnedKey>) -> Vec<Item> {
        let array = &self.arrays[id];
        keys.into_iter()
            .map(|k| {
                let value = array.get(k.as_key()).cloned().unwrap_or(Value::Uninit);
                Item { index: k.to_bytes(), value }
            })
            .collect()
    }

    /// `for (k in a)` under PROCINFO["sorted_in"].
    pub fn sort_keys(&mut self, id: usize, keys: Vec<OwnedKey>, how: &[u8]) -> R<Vec<OwnedKey>> {
        let mut items = self.items_of(id, keys);
        self.sort_items(&mut items, how)?;
        Ok(items.into_iter().map(|i| OwnedKey::Str(i.index.into())).collect())
    }

    /// asort(src [, dest [, how]]) and asorti(): returns the element count.
    pub fn asort(&mut self, by_index: bool, args: &[Arg]) -> R<usize> {
        let source = match args.get(0) {
            Some(Arg::Array(v)) => self.array_of(*v)?,
            _ => return fatal("asort: first argument is not an array"),
        };
        let dest = match args.get(1) {
            Some(Arg::Array(v)) => Some(self.array_of(*v)?),
            _ => None,
        };
        let how = match args.get(2) {
            Some(Arg::Expr(e)) => {
                let mut buf = Vec::new();
                self.eval_str_into(e, &mut buf)?;
                buf
            }
            _ => Vec::new(),
        };
        let how: &[u8] = if !how.is_empty() {
            &how
        } else if by_index {
            b"@ind_str_asc"
        } else {
            b"@val_type_asc"
        };
        let keys = self.arrays[source].keys();
        let mut items = self.items_of(source, keys);
        self.sort_items(&mut items, how)?;
        let n = items.len();
        let target = dest.unwrap_or(source);
        let array = &mut self.arrays[target];
        array.clear();
        for (i, item) in items.into_iter().enumerate() {
            let value = if by_index { Value::Str(item.index.into()) } else { item.value };
            array.set(Key::Int(i as i32 + 1), value);
        }
        Ok(n)
    }
}
