//! jq's builtins that drive a generator: `any`/`all` with a condition, `range`, `recurse(f)`,
//! `limit`, `first(f)`, `last(f)`, `nth(n; f)`, `until`, `while`, `repeat`, `isempty`. Those
//! that stop a generator early do it with a fresh label (`Flow::Break`), as jq 1.6 does.

use super::ast::Ast;
use super::builtins::{number, Native};
use super::interp::{err, iterate, Env, Flow, Interp, Res};
use super::value::Value;

pub fn call<'p>(ip: &Interp<'p, '_>, native: Native, args: &'p [Ast], env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let arg = |i: usize, input: &Value, f: &mut dyn FnMut(Value) -> Res| ip.eval(&args[i], env, input.clone(), f);
    match native {
        Native::Any1 | Native::All1 | Native::Any2 | Native::All2 => {
            let want_all = matches!(native, Native::All1 | Native::All2);
            let (generator, cond): (Option<&'p Ast>, &'p Ast) = if args.len() == 2 { (Some(&args[0]), &args[1]) } else { (None, &args[0]) };
            let id = ip.fresh_label();
            let mut result = want_all;
            let mut check = |x: Value| -> Res {
                let c = ip.first(cond, env, x)?.map_or(false, |v| v.truthy());
                if c != want_all {
                    result = !want_all;
                    return Err(Flow::Break(id));
                }
                Ok(())
            };
            let run = match generator {
                Some(g) => ip.eval(g, env, input.clone(), &mut check),
                None => iterate(input.clone(), &mut check),
            };
            match run {
                Ok(()) => {}
                Err(Flow::Break(b)) if b == id => {}
                Err(e) => return Err(e),
            }
            cb(Value::Bool(result))
        }
        Native::Range1 => arg(0, &input, &mut |n| range(0.0, number(&n, "Range bounds must be numeric").map_err(|_| err("Range bounds must be numeric"))?, 1.0, cb)),
        Native::Range2 => arg(0, &input, &mut |from| {
            arg(1, &input, &mut |to| match (&from, &to) {
                (Value::Number(a), Value::Number(b)) => range(*a, *b, 1.0, cb),
                _ => Err(err("Range bounds must be numeric")),
            })
        }),
        Native::Range3 => arg(0, &input, &mut |from| {
            arg(1, &input, &mut |to| {
                arg(2, &input, &mut |by| match (&from, &to, &by) {
                    (Value::Number(a), Value::Number(b), Value::Number(c)) => range(*a, *b, *c, cb),
                    _ => Err(err("Range bounds must be numeric")),
                })
            })
        }),
        Native::Recurse1 | Native::Recurse2 => recurse(ip, &args[0], args.get(1), env, input, cb),
        Native::Limit => arg(0, &input, &mut |n| {
            let n = number(&n, "Invalid limit").map_err(|_| err("Invalid limit"))?;
            if n < 0.0 {
                return ip.eval(&args[1], env, input.clone(), cb);
            }
            ip.limit(n, |counted| {
                ip.eval(&args[1], env, input.clone(), &mut |v| {
                    cb(v)?;
                    counted()
                })
            })
        }),
        Native::First1 => match ip.first(&args[0], env, input)? {
            Some(v) => cb(v),
            None => Ok(()),
        },
        Native::Last1 => {
            let mut last = Value::Null;
            ip.eval(&args[0], env, input, &mut |v| {
                last = v;
                Ok(())
            })?;
            cb(last)
        }
        Native::Nth2 => arg(0, &input, &mut |n| {
            let n = number(&n, "nth index must be a number")?;
            if n < 0.0 {
                return Err(err("nth doesn't support negative indices"));
            }
            let id = ip.fresh_label();
            let mut count = 0.0;
            let mut last = Value::Null;
            match ip.eval(&args[1], env, input.clone(), &mut |v| {
                count += 1.0;
                last = v;
                if count >= n + 1.0 {
                    Err(Flow::Break(id))
                } else {
                    Ok(())
                }
            }) {
                Err(Flow::Break(b)) if b == id => {}
                Err(e) => return Err(e),
                Ok(()) => {}
            }
            cb(last)
        }),
        Native::Until => until(ip, &args[0], &args[1], env, input, cb),
        Native::While => {
            let mut current = input;
            loop {
                let ok = ip.first(&args[0], env, current.clone())?.map_or(false, |c| c.truthy());
                if !ok {
                    return Ok(());
                }
                cb(current.clone())?;
                let next = ip.collect(&args[1], env, current)?;
                match next.len() {
                    0 => return Ok(()),
                    1 => current = next.into_iter().next().unwrap_or(Value::Null),
                    _ => {
                        for n in next {
                            call(ip, native, args, env, n, cb)?;
                        }
                        return Ok(());
                    }
                }
            }
        }
        Native::Repeat => loop {
            ip.eval(&args[0], env, input.clone(), cb)?;
        },
        Native::IsEmpty => cb(Value::Bool(ip.first(&args[0], env, input)?.is_none())),
        _ => Err(err("not a generator builtin")),
    }
}

fn range(from: f64, to: f64, by: f64, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    if by > 0.0 {
        let mut x = from;
        while x < to {
            cb(Value::Number(x))?;
            x += by;
        }
    } else if by < 0.0 {
        let mut x = from;
        while x > to {
            cb(Value::Number(x))?;
            x += by;
        }
    } else if from < to {
        // jq 1.6 emits the start forever when the step is 0.
        loop {
            cb(Value::Number(from))?;
        }
    }
    Ok(())
}

/// `recurse(f)` and `recurse(f; cond)`: depth first, without recursion on the Rust stack
/// for long chains.
fn recurse<'p>(ip: &Interp<'p, '_>, f: &'p Ast, cond: Option<&'p Ast>, env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let mut stack = vec![input];
    while let Some(v) = stack.pop() {
        cb(v.clone())?;
        let mut children = Vec::new();
        ip.eval(f, env, v, &mut |c| {
            if let Some(cond) = cond {
                if !ip.first(cond, env, c.clone())?.map_or(false, |t| t.truthy()) {
                    return Ok(());
                }
            }
            children.push(c);
            Ok(())
        })?;
        stack.extend(children.into_iter().rev());
    }
    Ok(())
}

fn until<'p>(ip: &Interp<'p, '_>, cond: &'p Ast, next: &'p Ast, env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    let mut current = input;
    loop {
        let done = ip.first(cond, env, current.clone())?.map_or(false, |c| c.truthy());
        if done {
            return cb(current);
        }
        let mut outs = ip.collect(next, env, current)?;
        match outs.len() {
            0 => return Ok(()),
            1 => current = outs.pop().unwrap_or(Value::Null),
            _ => {
                for o in outs {
                    until(ip, cond, next, env, o, cb)?;
                }
                return Ok(());
            }
        }
    }
}
