//! A variable's value and attributes.

use std::collections::BTreeMap;

use super::assoc::Assoc;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Declared but without a value (`local x`, `declare -i n`).
    Unset,
    Scalar(String),
    /// A sparse indexed array.
    Indexed(BTreeMap<i64, String>),
    Assoc(Assoc),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub value: Value,
    pub attrs: u16,
}

impl Var {
    pub fn unset() -> Var {
        Var { value: Value::Unset, attrs: 0 }
    }

    pub fn scalar(text: &str) -> Var {
        Var { value: Value::Scalar(text.to_string()), attrs: 0 }
    }

    pub fn has(&self, attr: u16) -> bool {
        self.attrs & attr != 0
    }

    pub fn is_set(&self) -> bool {
        !matches!(self.value, Value::Unset)
    }
}

impl Value {
    pub fn as_scalar(&self) -> Option<&str> {
        match self {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The value `$name` shows: a scalar, or element 0 / key "0" of an array.
    pub fn first(&self) -> Option<&str> {
        match self {
            Value::Unset => None,
            Value::Scalar(s) => Some(s),
            Value::Indexed(map) => map.get(&0).map(String::as_str),
            Value::Assoc(assoc) => assoc.get("0"),
        }
    }

    /// Values in order (`${a[@]}`): array elements, or the scalar alone.
    pub fn values(&self) -> Vec<String> {
        match self {
            Value::Unset => Vec::new(),
            Value::Scalar(s) => vec![s.clone()],
            Value::Indexed(map) => map.values().cloned().collect(),
            Value::Assoc(assoc) => assoc.values_in_order(),
        }
    }

    /// Keys in order (`${!a[@]}`).
    pub fn keys(&self) -> Vec<String> {
        match self {
            Value::Unset => Vec::new(),
            Value::Scalar(_) => vec!["0".to_string()],
            Value::Indexed(map) => map.keys().map(|k| k.to_string()).collect(),
            Value::Assoc(assoc) => assoc.keys_in_order(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Value::Unset => 0,
            Value::Scalar(_) => 1,
            Value::Indexed(map) => map.len(),
            Value::Assoc(assoc) => assoc.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Indexed(_) | Value::Assoc(_))
    }
}
