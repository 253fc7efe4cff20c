//! Path expressions: evaluating a filter to the paths it selects (`path(f)`, `del`,
//! `paths`, assignments), and getpath/setpath/delpaths on values. Containers are updated in
//! place when nothing else shares them (Rc::make_mut).

use std::rc::Rc;

use super::ast::{AssignOp, Ast};
use super::builtins::Native;
use super::interp::{err, iterate, Env, Flow, Interp, Res, Slot};
use super::ops;
use super::value::{Map, Value};

pub type PathCb<'c> = &'c mut dyn FnMut(Vec<Value>, Value) -> Res;

fn extend(path: &[Value], key: Value) -> Vec<Value> {
    let mut p = Vec::with_capacity(path.len() + 1);
    p.extend_from_slice(path);
    p.push(key);
    p
}

fn invalid(v: &Value) -> Flow {
    err(format!("Invalid path expression with result {}", v.dump_trunc()))
}

impl<'p, 'h> Interp<'p, 'h> {
    /// Calls `cb` with (path, value) for every output of `ast` as a path expression.
    pub fn paths(&self, ast: &'p Ast, env: &Env<'p>, path: &[Value], input: Value, cb: PathCb) -> Res {
        match ast {
            Ast::Identity => cb(path.to_vec(), input),
            Ast::RecurseAll => recurse_paths(path.to_vec(), input, cb),
            Ast::Field(term, name) => self.paths(term, env, path, input, &mut |p, v| {
                let child = ops::index_field(&v, name)?;
                let mut p = p;
                p.push(Value::String(name.clone()));
                cb(p, child)
            }),
            Ast::Index(term, key) => self.eval(key, env, input.clone(), &mut |k| {
                self.paths(term, env, path, input.clone(), &mut |p, v| {
                    let child = ops::index(&v, &k)?;
                    let mut p = p;
                    p.push(k.clone());
                    cb(p, child)
                })
            }),
            Ast::Slice(term, from, to) => {
                let bound = |b: &'p Option<Box<Ast>>| -> Result<Vec<Value>, Flow> {
                    match b {
                        Some(e) => self.collect(e, env, input.clone()),
                        None => Ok(vec![Value::Null]),
                    }
                };
                for to_value in bound(to)? {
                    for from_value in bound(from)? {
                        self.paths(term, env, path, input.clone(), &mut |p, v| {
                            let child = ops::slice(&v, &from_value, &to_value)?;
                            let mut key = Map::new();
                            key.insert(Rc::from("start"), from_value.clone());
                            key.insert(Rc::from("end"), to_value.clone());
                            let mut p = p;
                            p.push(Value::object(key));
                            cb(p, child)
                        })?;
                    }
                }
                Ok(())
            }
            Ast::Iterate(term) => self.paths(term, env, path, input, &mut |p, v| match &v {
                Value::Array(a) => {
                    for (i, item) in a.iter().enumerate() {
                        cb(extend(&p, Value::Number(i as f64)), item.clone())?;
                    }
                    Ok(())
                }
                Value::Object(o) => {
                    for (k, item) in o.iter() {
                        cb(extend(&p, Value::String(k.clone())), item.clone())?;
                    }
                    Ok(())
                }
                _ => iterate(v.clone(), &mut |_| Ok(())),
            }),
            Ast::Try(body, handler) => match self.paths(body, env, path, input, cb) {
                Err(Flow::Err(e)) => match handler {
                    Some(h) => self.paths(h, env, path, e, cb),
                    None => Ok(()),
                },
                other => other,
            },
            Ast::Pipe(left, right) => self.paths(left, env, path, input, &mut |p, v| self.paths(right, env, &p, v, cb)),
            Ast::Comma(left, right) => {
                self.paths(left, env, path, input.clone(), cb)?;
                self.paths(right, env, path, input, cb)
            }
            Ast::If(cond, then, otherwise) => self.eval(cond, env, input.clone(), &mut |c| {
                let branch = if c.truthy() { then } else { otherwise };
                self.paths(branch, env, path, input.clone(), cb)
            }),
            Ast::Alt(left, right) => {
                let mut any = false;
                self.paths(left, env, path, input.clone(), &mut |p, v| {
                    if v.truthy() {
                        any = true;
                        cb(p, v)
                    } else {
                        Ok(())
                    }
                })?;
                if any {
                    return Ok(());
                }
                self.paths(right, env, path, input, cb)
            }
            Ast::Bind { source, pattern, body } => self.eval(source, env, input.clone(), &mut |v| self.destructure(pattern, v, env, &mut |bound| self.paths(body, &bound, path, input.clone(), cb))),
            Ast::Label(body) => {
                let id = self.fresh_label();
                let inner = env.push(Slot::Label(id));
                match self.paths(body, &inner, path, input, cb) {
                    Err(Flow::Break(b)) if b == id => Ok(()),
                    other => other,
                }
            }
            Ast::Break(_) => self.eval(ast, env, input, &mut |_| Ok(())),
            Ast::CallUser { func, hops, args } => {
                let def = &self.funcs[*func];
                let mut inner = env.up(*hops);
                for a in args.iter() {
                    inner = inner.push(Slot::Closure(a, env.clone()));
                }
                let values: Vec<&'p Ast> = args.iter().zip(def.params.iter()).filter(|(_, v)| **v).map(|(a, _)| a).collect();
                self.bind_paths(&values, inner, env, path, &input, &def.body, cb)
            }
            Ast::CallParam(hops) => match env.slot(*hops) {
                Some(Slot::Closure(body, cenv)) => self.paths(body, cenv, path, input, cb),
                _ => Ok(()),
            },
            Ast::CallNative(native, args) => self.native_paths(*native, args, env, path, input, cb),
            _ => self.eval(ast, env, input, &mut |v| Err(invalid(&v))),
        }
    }

    fn bind_paths(&self, params: &[&'p Ast], env: Env<'p>, caller: &Env<'p>, path: &[Value], input: &Value, body: &'p Ast, cb: PathCb) -> Res {
        match params.split_first() {
            None => self.paths(body, &env, path, input.clone(), cb),
            Some((first, rest)) => self.eval(first, caller, input.clone(), &mut |v| self.bind_paths(rest, env.push(Slot::Val(v)), caller, path, input, body, cb)),
        }
    }

    /// The builtins that are path expressions themselves.
    fn native_paths(&self, native: Native, args: &'p [Ast], env: &Env<'p>, path: &[Value], input: Value, cb: PathCb) -> Res {
        match native {
            Native::Empty => Ok(()),
            Native::Select => self.eval(&args[0], env, input.clone(), &mut |c| if c.truthy() { cb(path.to_vec(), input.clone()) } else { Ok(()) }),
            Native::Recurse1 => self.recurse_paths_with(&args[0], None, env, path.to_vec(), input, cb),
            Native::Recurse2 => self.recurse_paths_with(&args[0], Some(&args[1]), env, path.to_vec(), input, cb),
            Native::Recurse0 => recurse_paths(path.to_vec(), input, cb),
            Native::GetPath => self.eval(&args[0], env, input.clone(), &mut |p| match &p {
                Value::Array(parts) => {
                    let v = getpath(&input, parts).unwrap_or(Value::Null);
                    let mut full = path.to_vec();
                    full.extend(parts.iter().cloned());
                    cb(full, v)
                }
                _ => Err(err("Path must be specified as an array")),
            }),
            Native::First1 => {
                let id = self.fresh_label();
                match self.paths(&args[0], env, path, input, &mut |p, v| {
                    cb(p, v)?;
                    Err(Flow::Break(id))
                }) {
                    Err(Flow::Break(b)) if b == id => Ok(()),
                    other => other,
                }
            }
            Native::Limit => self.eval(&args[0], env, input.clone(), &mut |n| {
                let n = match n {
                    Value::Number(n) => n,
                    _ => return Err(err("Invalid limit")),
                };
                if n < 0.0 {
                    return self.paths(&args[1], env, path, input.clone(), cb);
                }
                self.limit(n, |counted| {
                    self.paths(&args[1], env, path, input.clone(), &mut |p, v| {
                        cb(p, v)?;
                        counted()
                    })
                })
            }),
            Native::Error0 | Native::Error1 => super::builtins::call(self, native, args, env, input, &mut |_| Ok(())),
            _ => super::builtins::call(self, native, args, env, input, &mut |v| Err(invalid(&v))),
        }
    }

    fn recurse_paths_with(&self, f: &'p Ast, cond: Option<&'p Ast>, env: &Env<'p>, path: Vec<Value>, input: Value, cb: PathCb) -> Res {
        cb(path.clone(), input.clone())?;
        self.paths(f, env, &path, input, &mut |p, v| {
            if let Some(c) = cond {
                let mut keep = false;
                self.eval(c, env, v.clone(), &mut |t| {
                    keep = t.truthy();
                    Ok(())
                })?;
                if !keep {
                    return Ok(());
                }
            }
            self.recurse_paths_with(f, cond, env, p, v, cb)
        })
    }

    /// All paths of a path expression on `input`.
    pub fn collect_paths(&self, ast: &'p Ast, env: &Env<'p>, input: Value) -> Result<Vec<Vec<Value>>, Flow> {
        let mut out = Vec::new();
        self.paths(ast, env, &[], input, &mut |p, _| {
            out.push(p);
            Ok(())
        })?;
        Ok(out)
    }
}

/// `path(..)`: depth first, the value before its children.
fn recurse_paths(path: Vec<Value>, v: Value, cb: PathCb) -> Res {
    cb(path.clone(), v.clone())?;
    match &v {
        Value::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                recurse_paths(extend(&path, Value::Number(i as f64)), item.clone(), cb)?;
            }
            Ok(())
        }
        Value::Object(o) => {
            for (k, item) in o.iter() {
                recurse_paths(extend(&path, Value::String(k.clone())), item.clone(), cb)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

pub fn getpath(root: &Value, path: &[Value]) -> Result<Value, Flow> {
    let mut cur = root.clone();
    for k in path {
        if let Value::Null = cur {
            return Ok(Value::Null);
        }
        cur = ops::index(&cur, k)?;
    }
    Ok(cur)
}

/// jv_setpath: creates objects and arrays along the way, pads arrays with nulls.
pub fn setpath(root: Value, path: &[Value], v: Value) -> Result<Value, Flow> {
    let (key, rest) = match path.split_first() {
        None => return Ok(v),
        Some(x) => x,
    };
    match (root, key) {
        (Value::Object(mut o), Value::String(k)) => {
            let map = Rc::make_mut(&mut o);
            let child = map.get_mut(k).map(|c| std::mem::replace(c, Value::Null)).unwrap_or(Value::Null);
            let new = setpath(child, rest, v)?;
            map.insert(k.clone(), new);
            Ok(Value::Object(o))
        }
        (Value::Null, Value::String(k)) => {
            let mut map = Map::new();
            map.insert(k.clone(), setpath(Value::Null, rest, v)?);
            Ok(Value::object(map))
        }
        (Value::Array(mut a), Value::Number(n)) => {
            let len = a.len() as f64;
            let index = if *n < 0.0 { len + n.floor() } else { n.floor() };
            if index < 0.0 {
                return Err(err("Out of bounds negative array index"));
            }
            let index = index as usize;
            let items = Rc::make_mut(&mut a);
            if index >= items.len() {
                items.resize(index + 1, Value::Null);
            }
            let child = std::mem::replace(&mut items[index], Value::Null);
            items[index] = setpath(child, rest, v)?;
            Ok(Value::Array(a))
        }
        (Value::Null, Value::Number(n)) => {
            if *n < 0.0 {
                return Err(err("Out of bounds negative array index"));
            }
            setpath(Value::array(Vec::new()), path, v)
        }
        (root @ Value::Array(_), Value::Object(o)) | (root @ Value::Null, Value::Object(o)) => {
            let root = if let Value::Null = root { Value::array(Vec::new()) } else { root };
            let items = match &root {
                Value::Array(a) => a.clone(),
                _ => Rc::new(Vec::new()),
            };
            let (s, e) = ops::slice_bounds(items.len(), o.get("start").unwrap_or(&Value::Null), o.get("end").unwrap_or(&Value::Null))?;
            let current = Value::array(items[s..e].to_vec());
            match setpath(current, rest, v)? {
                Value::Array(replacement) => {
                    let mut out = Vec::with_capacity(items.len() - (e - s) + replacement.len());
                    out.extend_from_slice(&items[..s]);
                    out.extend(replacement.iter().cloned());
                    out.extend_from_slice(&items[e..]);
                    Ok(Value::array(out))
                }
                _ => Err(err("A slice of an array can only be assigned another array")),
            }
        }
        (root, key) => {
            ops::index(&root, key)?;
            Err(err(format!("Cannot update field at object index of {}", root.kind())))
        }
    }
}

/// Deletes several paths: the longest and last first, so earlier indices stay valid.
pub fn delpaths(root: Value, paths: &[Value]) -> Result<Value, Flow> {
    let mut sorted: Vec<&Value> = paths.iter().collect();
    sorted.sort_by(|a, b| b.compare(a));
    let mut root = root;
    for p in sorted {
        match p {
            Value::Array(parts) => root = delpath(root, parts)?,
            _ => return Err(err("Path must be specified as an array")),
        }
    }
    Ok(root)
}

fn delpath(root: Value, path: &[Value]) -> Result<Value, Flow> {
    let (key, rest) = match path.split_first() {
        None => return Ok(Value::Null),
        Some(x) => x,
    };
    if let Value::Null = root {
        return Ok(Value::Null);
    }
    if rest.is_empty() {
        return match (root, key) {
            (Value::Object(mut o), Value::String(k)) => {
                Rc::make_mut(&mut o).remove(k);
                Ok(Value::Object(o))
            }
            (Value::Array(mut a), Value::Number(n)) => {
                let len = a.len() as f64;
                let i = if *n < 0.0 { len + n } else { *n };
                if i >= 0.0 && i < len {
                    Rc::make_mut(&mut a).remove(i as usize);
                } else if i < 0.0 {
                    return Err(err("Out of bounds negative array index"));
                }
                Ok(Value::Array(a))
            }
            (Value::Array(a), Value::Object(o)) => {
                let (s, e) = ops::slice_bounds(a.len(), o.get("start").unwrap_or(&Value::Null), o.get("end").unwrap_or(&Value::Null))?;
                let mut items = (*a).clone();
                items.drain(s..e);
                Ok(Value::array(items))
            }
            (root, key) => {
                ops::index(&root, key)?;
                Err(err(format!("Cannot delete field at index of {}", root.kind())))
            }
        };
    }
    let child = ops::index(&root, key)?;
    if let Value::Null = child {
        return Ok(root);
    }
    let new_child = delpath(child, rest)?;
    setpath(root, std::slice::from_ref(key), new_child)
}

/// `=`, `|=`, `+=` …, `//=`.
pub fn assign<'p>(ip: &Interp<'p, '_>, op: AssignOp, lhs: &'p Ast, rhs: &'p Ast, env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    match op {
        AssignOp::Update => {
            let paths = ip.collect_paths(lhs, env, input.clone())?;
            let mut result = input;
            for p in paths {
                let old = getpath(&result, &p)?;
                result = match ip.first(rhs, env, old)? {
                    Some(new) => setpath(result, &p, new)?,
                    None => delpaths(result, &[Value::array(p)])?,
                };
            }
            cb(result)
        }
        _ => {
            let values = ip.collect(rhs, env, input.clone())?;
            let paths = ip.collect_paths(lhs, env, input.clone())?;
            let count = values.len();
            let mut input = Some(input);
            for (i, v) in values.into_iter().enumerate() {
                let mut result = if i + 1 == count { input.take().unwrap_or(Value::Null) } else { input.clone().unwrap_or(Value::Null) };
                for p in &paths {
                    let new = match op {
                        AssignOp::Set => v.clone(),
                        AssignOp::Arith(b) => ops::binop(b, &getpath(&result, p)?, &v)?,
                        _ => {
                            let old = getpath(&result, p)?;
                            if old.truthy() {
                                old
                            } else {
                                v.clone()
                            }
                        }
                    };
                    result = setpath(result, p, new)?;
                }
                cb(result)?;
            }
            Ok(())
        }
    }
}
