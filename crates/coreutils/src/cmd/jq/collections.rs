//! jq's builtins over arrays and objects: sorting and grouping (with `_by` keys), min/max,
//! entries, flatten, reverse, transpose and the streaming form (tostream/fromstream).

use std::rc::Rc;

use super::ast::Ast;
use super::builtins::{array, number, Native};
use super::interp::{err, Env, Flow, Interp, Res};
use super::value::{Map, Value};
use super::{ops, paths};

/// Keys for the `_by` builtins: each element with `[f]` of it.
fn keyed<'p>(ip: &Interp<'p, '_>, f: &'p Ast, env: &Env<'p>, items: &[Value]) -> Result<Vec<(Value, Value)>, Flow> {
    items.iter().map(|x| Ok((Value::array(ip.collect(f, env, x.clone())?), x.clone()))).collect()
}

fn sorted_keyed(mut pairs: Vec<(Value, Value)>) -> Vec<(Value, Value)> {
    pairs.sort_by(|a, b| a.0.compare(&b.0));
    pairs
}

fn groups(pairs: Vec<(Value, Value)>) -> Vec<Vec<Value>> {
    let mut out: Vec<(Value, Vec<Value>)> = Vec::new();
    for (k, v) in sorted_keyed(pairs) {
        match out.last_mut() {
            Some((last, group)) if last.equals(&k) => group.push(v),
            _ => out.push((k, vec![v])),
        }
    }
    out.into_iter().map(|(_, g)| g).collect()
}

fn entries(v: &Value) -> Result<Vec<Value>, Flow> {
    let pair = |k: Value, v: Value| {
        let mut m = Map::with_capacity(2);
        m.insert(Rc::from("key"), k);
        m.insert(Rc::from("value"), v);
        Value::object(m)
    };
    match v {
        Value::Object(o) => Ok(o.iter().map(|(k, x)| pair(Value::String(k.clone()), x.clone())).collect()),
        Value::Array(a) => Ok(a.iter().enumerate().map(|(i, x)| pair(Value::Number(i as f64), x.clone())).collect()),
        _ => Err(err(format!("{} ({}) has no keys", v.kind(), v.dump_trunc()))),
    }
}

fn from_entries(v: &Value) -> Result<Value, Flow> {
    let mut m = Map::new();
    let mut iterate_err = None;
    let items: Vec<Value> = match v {
        Value::Array(a) => a.to_vec(),
        Value::Object(o) => o.values().cloned().collect(),
        _ => {
            iterate_err = Some(err(format!("Cannot iterate over {} ({})", v.kind(), v.dump_trunc())));
            Vec::new()
        }
    };
    if let Some(e) = iterate_err {
        return Err(e);
    }
    for e in items {
        let field = |name: &str| ops::index(&e, &Value::from_str(name));
        let mut key = Value::Null;
        for name in ["key", "Key", "name", "Name"] {
            let k = field(name)?;
            if k.truthy() {
                key = k;
                break;
            }
        }
        let has_value = match &e {
            Value::Object(o) => o.contains_key("value"),
            _ => return Err(err(format!("Cannot check whether {} has a string key", e.kind()))),
        };
        let value = if has_value { field("value")? } else { field("Value")? };
        match key {
            Value::String(k) => m.insert(k, value),
            other => return Err(err(format!("Cannot use {} ({}) as object key", other.kind(), other.dump_trunc()))),
        }
    }
    Ok(Value::object(m))
}

fn flatten(items: &[Value], depth: f64, out: &mut Vec<Value>) {
    for x in items {
        match x {
            Value::Array(inner) if depth != 0.0 => flatten(inner, depth - 1.0, out),
            _ => out.push(x.clone()),
        }
    }
}

/// `tostream`: leaves as [path, value], then [path] after each non-empty container.
fn to_stream(path: &mut Vec<Value>, v: &Value, top: bool, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let children: Vec<(Value, Value)> = match v {
        Value::Array(a) if !a.is_empty() => a.iter().enumerate().map(|(i, x)| (Value::Number(i as f64), x.clone())).collect(),
        Value::Object(o) if !o.is_empty() => o.sorted_keys().into_iter().map(|k| (Value::String(k.clone()), o.get(&k).cloned().unwrap_or(Value::Null))).collect(),
        _ => return cb(Value::array(vec![Value::array(path.clone()), v.clone()])),
    };
    let last = children.last().map(|(k, _)| k.clone()).unwrap_or(Value::Null);
    for (k, child) in children {
        path.push(k);
        to_stream(path, &child, false, cb)?;
        path.pop();
    }
    let _ = top;
    path.push(last);
    let closing = Value::array(vec![Value::array(path.clone())]);
    path.pop();
    cb(closing)
}

/// The `tostream` events of a value (also `--stream`).
pub fn stream_events(v: &Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    to_stream(&mut Vec::new(), v, true, cb)
}

pub fn call<'p>(ip: &Interp<'p, '_>, native: Native, args: &'p [Ast], env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let arg = |i: usize, input: &Value, f: &mut dyn FnMut(Value) -> Res| ip.eval(&args[i], env, input.clone(), f);
    match native {
        Native::Min | Native::Max => {
            let items = array(&input, "cannot be iterated over")?;
            let best = items.iter().fold(None::<&Value>, |best, x| match best {
                None => Some(x),
                Some(b) => {
                    let o = x.compare(b);
                    if (native == Native::Min && o == std::cmp::Ordering::Less) || (native == Native::Max && o != std::cmp::Ordering::Less) {
                        Some(x)
                    } else {
                        Some(b)
                    }
                }
            });
            cb(best.cloned().unwrap_or(Value::Null))
        }
        Native::MinBy | Native::MaxBy => {
            let items = array(&input, "cannot be iterated over")?;
            let pairs = keyed(ip, &args[0], env, items)?;
            let mut best: Option<(Value, Value)> = None;
            for (k, v) in pairs {
                let replace = match &best {
                    None => true,
                    Some((bk, _)) => {
                        let o = k.compare(bk);
                        (native == Native::MinBy && o == std::cmp::Ordering::Less) || (native == Native::MaxBy && o != std::cmp::Ordering::Less)
                    }
                };
                if replace {
                    best = Some((k, v));
                }
            }
            cb(best.map(|(_, v)| v).unwrap_or(Value::Null))
        }
        Native::Sort => {
            let items = array(&input, "cannot be sorted, as it is not an array")?;
            let mut v = items.to_vec();
            v.sort_by(|a, b| a.compare(b));
            cb(Value::array(v))
        }
        Native::SortBy => {
            let items = array(&input, "cannot be sorted, as it is not an array")?;
            cb(Value::array(sorted_keyed(keyed(ip, &args[0], env, items)?).into_iter().map(|(_, v)| v).collect()))
        }
        Native::GroupBy => {
            let items = array(&input, "cannot be grouped, as it is not an array")?;
            cb(Value::array(groups(keyed(ip, &args[0], env, items)?).into_iter().map(Value::array).collect()))
        }
        Native::Unique => {
            let items = array(&input, "cannot be sorted, as it is not an array")?;
            let mut v = items.to_vec();
            v.sort_by(|a, b| a.compare(b));
            v.dedup_by(|a, b| a.equals(b));
            cb(Value::array(v))
        }
        Native::UniqueBy => {
            let items = array(&input, "cannot be grouped, as it is not an array")?;
            cb(Value::array(groups(keyed(ip, &args[0], env, items)?).into_iter().filter_map(|g| g.into_iter().next()).collect()))
        }
        Native::Reverse => match &input {
            Value::Array(a) => cb(Value::array(a.iter().rev().cloned().collect())),
            Value::Null => cb(Value::array(Vec::new())),
            Value::Object(o) if o.is_empty() => cb(Value::array(Vec::new())),
            Value::String(s) if s.is_empty() => cb(Value::array(Vec::new())),
            Value::Number(n) if *n == 0.0 => cb(Value::array(Vec::new())),
            _ => Err(err(format!("Cannot index {} with number", input.kind()))),
        },
        Native::Flatten0 | Native::Flatten1 => {
            let mut go = |depth: f64| -> Res {
                if depth < 0.0 {
                    return Err(err("flatten depth must not be negative"));
                }
                let items = match &input {
                    Value::Array(a) => a.to_vec(),
                    Value::Object(o) => o.values().cloned().collect(),
                    _ => return Err(err(format!("Cannot iterate over {} ({})", input.kind(), input.dump_trunc()))),
                };
                let mut out = Vec::new();
                flatten(&items, depth, &mut out);
                cb(Value::array(out))
            };
            if native == Native::Flatten0 {
                go(1e18)
            } else {
                arg(0, &input, &mut |d| go(number(&d, "flatten depth must not be negative").map_err(|_| err("flatten depth must not be negative"))?))
            }
        }
        Native::ToEntries => cb(Value::array(entries(&input)?)),
        Native::FromEntries => cb(from_entries(&input)?),
        Native::WithEntries => {
            let mut mapped = Vec::new();
            for e in entries(&input)? {
                ip.eval(&args[0], env, e, &mut |x| {
                    mapped.push(x);
                    Ok(())
                })?;
            }
            cb(from_entries(&Value::array(mapped))?)
        }
        Native::ToStream => to_stream(&mut Vec::new(), &input, true, cb),
        Native::FromStream => {
            let mut acc: Option<Value> = None;
            ip.eval(&args[0], env, input, &mut |e| {
                let parts = match &e {
                    Value::Array(p) => p.clone(),
                    _ => return Err(err("Invalid stream event")),
                };
                let path = match parts.first() {
                    Some(Value::Array(p)) => p.clone(),
                    _ => return Err(err("Invalid path")),
                };
                if parts.len() >= 2 {
                    if path.is_empty() {
                        acc = None;
                        return cb(parts[1].clone());
                    }
                    acc = Some(paths::setpath(acc.take().unwrap_or(Value::Null), &path, parts[1].clone())?);
                    Ok(())
                } else if path.len() == 1 {
                    match acc.take() {
                        Some(v) => cb(v),
                        None => Ok(()),
                    }
                } else {
                    Ok(())
                }
            })
        }
        Native::Transpose => {
            let rows = array(&input, "cannot be transposed")?;
            let width = rows.iter().map(|r| r.length().ok().and_then(|l| if let Value::Number(n) = l { Some(n as usize) } else { None }).unwrap_or(0)).max().unwrap_or(0);
            let mut out = Vec::with_capacity(width);
            for j in 0..width {
                let mut column = Vec::with_capacity(rows.len());
                for r in rows.iter() {
                    column.push(ops::index(r, &Value::Number(j as f64))?);
                }
                out.push(Value::array(column));
            }
            cb(Value::array(out))
        }
        _ => Err(err("unknown builtin")),
    }
}
