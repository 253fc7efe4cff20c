//! Reading and assigning variables through the shell: dynamic variables, attributes
//! (`-i` evaluates, `-l`/`-u` change case, `-r` refuses), `set -a`, arrays.

use std::collections::BTreeMap;

use super::{attr, Assoc, Value, VarError};
use crate::options::Opt;
use crate::shell::Shell;

/// Why an assignment failed; the message is bash's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignError {
    Readonly(String),
    /// An `-i` variable's value did not evaluate (message already worded).
    Arith(String),
    BadSubscript(String),
    Other(String),
}

impl AssignError {
    pub fn message(&self) -> String {
        match self {
            AssignError::Readonly(name) => format!("{}: readonly variable", name),
            AssignError::Arith(message) | AssignError::Other(message) => message.clone(),
            AssignError::BadSubscript(sub) => format!("{}: bad array subscript", sub),
        }
    }
}

impl From<VarError> for AssignError {
    fn from(error: VarError) -> AssignError {
        match error {
            VarError::Readonly(name) => AssignError::Readonly(name),
            VarError::NamerefLoop(name) => AssignError::Other(format!("{}: circular name reference", name)),
        }
    }
}

/// A subscript after evaluation: a number for indexed arrays, a key for associative ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Index(i64),
    Name(String),
}

impl Shell {
    /// `$name`: the scalar (or element 0 / key "0" of an array); `None` when unset.
    pub fn get_scalar(&mut self, name: &str) -> Option<String> {
        let var = self.vars.get(name)?;
        if var.has(attr::DYNAMIC) {
            let name = self.vars.resolve_name(name).to_string();
            return self.dynamic_scalar(&name);
        }
        var.value.first().map(str::to_string)
    }

    /// The whole value (for `${a[@]}`, `declare -p`), computing dynamic ones.
    pub fn get_value(&mut self, name: &str) -> Option<Value> {
        let var = self.vars.get(name)?;
        if var.has(attr::DYNAMIC) {
            let name = self.vars.resolve_name(name).to_string();
            if let Some(array) = self.dynamic_array(&name) {
                return Some(array);
            }
            return self.dynamic_scalar(&name).map(Value::Scalar);
        }
        Some(var.value.clone())
    }

    /// The element a name reference designates (`declare -n r='a[1]'`), if it does.
    pub(crate) fn nameref_element(&self, name: &str) -> Option<String> {
        if !self.vars.get_raw(name)?.has(attr::NAMEREF) {
            return None;
        }
        let target = self.vars.resolve_name(name);
        if target.ends_with(']') && target.contains('[') {
            Some(target.to_string())
        } else {
            None
        }
    }

    /// Whether `name` refers to an associative array.
    pub fn is_assoc(&self, name: &str) -> bool {
        matches!(self.vars.get(name).map(|v| &v.value), Some(Value::Assoc(_)))
    }

    /// One element: `${a[i]}` / `${m[k]}`.
    pub fn get_element(&mut self, name: &str, key: &Key) -> Option<String> {
        let var = self.vars.get(name)?;
        if var.has(attr::DYNAMIC) {
            let name = self.vars.resolve_name(name).to_string();
            let value = self.dynamic_array(&name)?;
            return element_of(&value, key);
        }
        element_of(&var.value, key)
    }

    fn check_writable(&self, name: &str) -> Result<(), AssignError> {
        match self.vars.get(name) {
            Some(var) if var.has(attr::READONLY) => Err(AssignError::Readonly(self.vars.resolve_name(name).to_string())),
            _ => Ok(()),
        }
    }

    /// Applies `-i`, `-l`, `-u` to a value being stored (`old` for `+=` on integers).
    fn apply_attrs(&mut self, attrs: u16, value: String, append_to: Option<&str>) -> Result<String, AssignError> {
        if attrs & attr::INTEGER != 0 {
            let number = self.eval_arith_text(&value).map_err(AssignError::Arith)?;
            let base = match append_to {
                Some(old) => self.eval_arith_text(old).map_err(AssignError::Arith)?,
                None => 0,
            };
            return Ok(base.wrapping_add(number).to_string());
        }
        let combined = match append_to {
            Some(old) => format!("{}{}", old, value),
            None => value,
        };
        Ok(if attrs & attr::LOWER != 0 {
            combined.to_lowercase()
        } else if attrs & attr::UPPER != 0 {
            combined.to_uppercase()
        } else {
            combined
        })
    }

    /// `name=value` / `name+=value`.
    pub fn assign_scalar(&mut self, name: &str, value: String, append: bool) -> Result<(), AssignError> {
        if name == "PATH" {
            // As in bash, a new PATH forgets the hashed programs.
            self.hash.clear();
        }
        // The common case in one lookup: a plain variable without attributes.
        if !append && !self.options.get(Opt::Allexport) {
            const SPECIAL: u16 = attr::READONLY | attr::INTEGER | attr::LOWER | attr::UPPER | attr::DYNAMIC | attr::NAMEREF;
            if let Some(var) = self.vars.get_mut(name) {
                if var.attrs & SPECIAL == 0 {
                    if let Value::Scalar(old) = &mut var.value {
                        *old = value;
                        return Ok(());
                    }
                }
            }
        }
        if let Some(target) = self.nameref_element(name) {
            // A name reference to an array element assigns the element.
            return self.assign_named(&target, value);
        }
        self.check_writable(name)?;
        let attrs = self.vars.get(name).map_or(0, |v| v.attrs);
        if attrs & attr::DYNAMIC != 0 && self.assign_dynamic(name, &value) {
            return Ok(());
        }
        let old = if append { self.vars.get(name).and_then(|v| v.value.first().map(str::to_string)) } else { None };
        let stored = self.apply_attrs(attrs, value, if append { Some(old.as_deref().unwrap_or("")) } else { None })?;
        let allexport = self.options.get(Opt::Allexport);
        let var = self.vars.lookup_or_create(name)?;
        var.attrs &= !(attr::DYNAMIC | attr::NO_VALUE);
        match &mut var.value {
            Value::Indexed(map) => {
                map.insert(0, stored);
            }
            Value::Assoc(assoc) => assoc.insert("0".to_string(), stored),
            value => *value = Value::Scalar(stored),
        }
        if allexport {
            var.attrs |= attr::EXPORT;
        }
        Ok(())
    }

    /// `name[key]=value` / `+=`.
    pub fn assign_element(&mut self, name: &str, key: Key, value: String, append: bool) -> Result<(), AssignError> {
        self.check_writable(name)?;
        let attrs = self.vars.get(name).map_or(0, |v| v.attrs);
        let old = if append { self.get_element(name, &key) } else { None };
        let stored = self.apply_attrs(attrs, value, if append { Some(old.as_deref().unwrap_or("")) } else { None })?;
        let allexport = self.options.get(Opt::Allexport);
        let var = self.vars.lookup_or_create(name)?;
        var.attrs &= !(attr::DYNAMIC | attr::NO_VALUE);
        match (&mut var.value, key) {
            (Value::Assoc(assoc), Key::Name(k)) => assoc.insert(k, stored),
            (Value::Assoc(assoc), Key::Index(i)) => assoc.insert(i.to_string(), stored),
            (Value::Indexed(map), Key::Index(i)) => {
                let index = resolve_index(map, i).ok_or_else(|| AssignError::BadSubscript(format!("{}[{}]", name, i)))?;
                map.insert(index, stored);
            }
            (value, Key::Index(i)) => {
                let mut map = BTreeMap::new();
                if let Value::Scalar(s) = value {
                    map.insert(0, std::mem::take(s));
                }
                let index = resolve_index(&map, i).ok_or_else(|| AssignError::BadSubscript(format!("{}[{}]", name, i)))?;
                map.insert(index, stored);
                *value = Value::Indexed(map);
            }
            (_, Key::Name(k)) => return Err(AssignError::BadSubscript(k)),
        }
        if allexport {
            var.attrs |= attr::EXPORT;
        }
        Ok(())
    }

    /// Replaces (or with `append`, extends) a whole array.
    pub fn assign_array(&mut self, name: &str, value: Value, append: bool) -> Result<(), AssignError> {
        self.check_writable(name)?;
        let attrs = self.vars.get(name).map_or(0, |v| v.attrs);
        let value = self.transform_array(attrs, value)?;
        let var = self.vars.lookup_or_create(name)?;
        var.attrs &= !(attr::DYNAMIC | attr::NO_VALUE);
        if !append {
            var.value = value;
            return Ok(());
        }
        match (&mut var.value, value) {
            (Value::Indexed(map), Value::Indexed(new)) => {
                let mut next = map.keys().next_back().map_or(0, |k| k + 1);
                for (_, v) in new {
                    map.insert(next, v);
                    next += 1;
                }
            }
            (Value::Assoc(assoc), Value::Assoc(new)) => {
                for (k, v) in new.pairs_in_order().into_iter().rev() {
                    assoc.insert(k, v);
                }
            }
            (old @ Value::Scalar(_), Value::Indexed(new)) => {
                let mut map = BTreeMap::new();
                if let Value::Scalar(s) = old {
                    map.insert(0, std::mem::take(s));
                }
                let mut next = 1;
                for (_, v) in new {
                    map.insert(next, v);
                    next += 1;
                }
                *old = Value::Indexed(map);
            }
            (old, new) => *old = new,
        }
        Ok(())
    }

    fn transform_array(&mut self, attrs: u16, value: Value) -> Result<Value, AssignError> {
        if attrs & (attr::INTEGER | attr::LOWER | attr::UPPER) == 0 {
            return Ok(value);
        }
        Ok(match value {
            Value::Indexed(map) => {
                let mut out = BTreeMap::new();
                for (k, v) in map {
                    out.insert(k, self.apply_attrs(attrs, v, None)?);
                }
                Value::Indexed(out)
            }
            Value::Assoc(assoc) => {
                let mut pairs = Vec::new();
                for (k, v) in assoc.pairs_in_order() {
                    pairs.push((k, self.apply_attrs(attrs, v, None)?));
                }
                Value::Assoc(Assoc::from_ordered_pairs(pairs))
            }
            other => other,
        })
    }

    /// Assigns to `name` or `name[subscript]` given as text (`printf -v`, `read`).
    pub fn assign_named(&mut self, target: &str, value: String) -> Result<(), AssignError> {
        if let Some(open) = target.find('[') {
            if target.ends_with(']') && open > 0 {
                let name = &target[..open];
                let inner = &target[open + 1..target.len() - 1];
                let key = if self.is_assoc(name) {
                    Key::Name(inner.to_string())
                } else {
                    Key::Index(self.eval_arith_text(inner).map_err(AssignError::Arith)?)
                };
                return self.assign_element(name, key, value, false);
            }
        }
        if !shell_parser::is_name(target) {
            return Err(AssignError::Other(format!("`{}': not a valid identifier", target)));
        }
        self.assign_scalar(target, value, false)
    }

    /// Sets a variable from the shell's own code (no attribute checks beyond readonly).
    pub fn set_var(&mut self, name: &str, value: &str) {
        let _ = self.assign_scalar(name, value.to_string(), false);
    }

    /// Sets an indexed array from a list (BASH_REMATCH, `read -a`, `mapfile`).
    pub fn set_array_list(&mut self, name: &str, items: Vec<String>) -> Result<(), AssignError> {
        let map = items.into_iter().enumerate().map(|(i, v)| (i as i64, v)).collect();
        self.assign_array(name, Value::Indexed(map), false)
    }

    /// `unset name[key]`.
    pub fn unset_element(&mut self, name: &str, key: &Key) -> Result<(), AssignError> {
        self.check_writable(name)?;
        if let Some(var) = self.vars.get_mut(name) {
            match (&mut var.value, key) {
                (Value::Indexed(map), Key::Index(i)) => {
                    if let Some(index) = resolve_index(map, *i) {
                        map.remove(&index);
                    }
                }
                (Value::Assoc(assoc), Key::Name(k)) => {
                    assoc.remove(k);
                }
                (Value::Assoc(assoc), Key::Index(i)) => {
                    assoc.remove(&i.to_string());
                }
                (value @ Value::Scalar(_), Key::Index(0)) => *value = Value::Unset,
                _ => {}
            }
        }
        Ok(())
    }
}

/// A negative index counts back from one past the highest index.
pub fn resolve_index(map: &BTreeMap<i64, String>, index: i64) -> Option<i64> {
    if index >= 0 {
        return Some(index);
    }
    let top = map.keys().next_back().map_or(0, |k| k + 1);
    let resolved = top + index;
    if resolved < 0 {
        None
    } else {
        Some(resolved)
    }
}

fn element_of(value: &Value, key: &Key) -> Option<String> {
    match (value, key) {
        (Value::Indexed(map), Key::Index(i)) => resolve_index(map, *i).and_then(|i| map.get(&i)).cloned(),
        (Value::Assoc(assoc), Key::Name(k)) => assoc.get(k).map(str::to_string),
        (Value::Assoc(assoc), Key::Index(i)) => assoc.get(&i.to_string()).map(str::to_string),
        (Value::Scalar(s), Key::Index(0)) | (Value::Scalar(s), Key::Index(-1)) => Some(s.clone()),
        _ => None,
    }
}
