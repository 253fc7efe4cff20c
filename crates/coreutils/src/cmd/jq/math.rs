//! jq's libm builtins: one-argument functions on `.`, two- and three-argument ones on
//! their arguments (`pow(a; b)`), and the few that return pairs (frexp, modf, lgamma_r).

use super::ast::Ast;
use super::builtins::Native;
use super::interp::{err, Env, Interp, Res};
use super::value::Value;

type F1 = fn(f64) -> f64;
type F2 = fn(f64, f64) -> f64;

fn cosh(x: f64) -> f64 {
    (x.exp() + (-x).exp()) / 2.0
}
fn significand(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let (m, _) = libm::frexp(x);
    m * 2.0
}
fn logb(x: f64) -> f64 {
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if !x.is_finite() {
        return x.abs();
    }
    libm::ilogb(x) as f64
}
fn ldexp(x: f64, e: f64) -> f64 {
    libm::ldexp(x, e as i32)
}
fn jn(n: f64, x: f64) -> f64 {
    libm::jn(n as i32, x)
}
fn yn(n: f64, x: f64) -> f64 {
    libm::yn(n as i32, x)
}
/// Round to nearest, ties to even (the default rounding mode).
fn rint(x: f64) -> f64 {
    let f = x.floor();
    let d = x - f;
    if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
        f + 1.0
    } else {
        f
    }
}

// Where std has the function, use it: natively that is the C library jq uses.
const ONE: &[(&str, F1)] = &[
    ("floor", f64::floor), ("sqrt", f64::sqrt), ("acos", f64::acos), ("acosh", libm::acosh), ("asin", f64::asin),
    ("asinh", libm::asinh), ("atan", f64::atan), ("atanh", libm::atanh), ("cbrt", f64::cbrt), ("cos", f64::cos),
    ("cosh", cosh), ("exp", f64::exp), ("exp2", f64::exp2), ("log", f64::ln), ("log10", f64::log10),
    ("log2", f64::log2), ("sin", f64::sin), ("sinh", f64::sinh), ("tan", f64::tan), ("tanh", f64::tanh),
    ("tgamma", libm::tgamma), ("y0", libm::y0), ("y1", libm::y1), ("j0", libm::j0), ("j1", libm::j1),
    ("ceil", f64::ceil), ("erf", libm::erf), ("erfc", libm::erfc), ("exp10", libm::exp10), ("expm1", f64::exp_m1),
    ("fabs", f64::abs), ("gamma", libm::lgamma), ("lgamma", libm::lgamma), ("log1p", f64::ln_1p), ("logb", logb),
    ("nearbyint", rint), ("rint", rint), ("round", f64::round), ("significand", significand), ("trunc", f64::trunc),
];

const TWO: &[(&str, F2)] = &[
    ("pow", f64::powf), ("atan2", f64::atan2), ("fmod", libm::fmod), ("hypot", f64::hypot), ("copysign", libm::copysign),
    ("drem", libm::remainder), ("fdim", libm::fdim), ("fmax", libm::fmax), ("fmin", libm::fmin), ("ldexp", ldexp),
    ("nextafter", libm::nextafter), ("nexttoward", libm::nextafter), ("remainder", libm::remainder), ("scalb", ldexp),
    ("scalbln", ldexp), ("jn", jn), ("yn", yn),
];

/// Functions that return arrays: index into this list for Math3 with arity 0.
const PAIRS: &[&str] = &["frexp", "modf", "lgamma_r"];

pub fn lookup(name: &str, arity: usize) -> Option<Native> {
    match arity {
        0 => ONE.iter().position(|(n, _)| *n == name).map(Native::Math1).or_else(|| PAIRS.iter().position(|n| *n == name).map(Native::Math3)),
        2 => TWO.iter().position(|(n, _)| *n == name).map(Native::Math2),
        3 if name == "fma" => Some(Native::Math3(usize::MAX)),
        _ => None,
    }
}

pub fn names() -> Vec<String> {
    let mut out: Vec<String> = ONE.iter().map(|(n, _)| format!("{}/0", n)).collect();
    out.extend(TWO.iter().map(|(n, _)| format!("{}/2", n)));
    out.extend(PAIRS.iter().map(|n| format!("{}/0", n)));
    out.push("fma/3".to_string());
    out
}

fn num(v: &Value, name: &str) -> Result<f64, super::interp::Flow> {
    match v {
        Value::Number(n) => Ok(*n),
        _ => Err(err(format!("{} ({}) number required", v.kind(), v.dump_trunc()))).map_err(|e| {
            let _ = name;
            e
        }),
    }
}

pub fn call<'p>(ip: &Interp<'p, '_>, native: Native, args: &'p [Ast], env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    match native {
        Native::Math1(i) => {
            let (name, f) = ONE[i];
            cb(Value::Number(f(num(&input, name)?)))
        }
        Native::Math2(i) => {
            let (name, f) = TWO[i];
            ip.eval(&args[1], env, input.clone(), &mut |b| ip.eval(&args[0], env, input.clone(), &mut |a| cb(Value::Number(f(num(&a, name)?, num(&b, name)?)))))
        }
        Native::Math3(usize::MAX) => ip.eval(&args[2], env, input.clone(), &mut |c| {
            ip.eval(&args[1], env, input.clone(), &mut |b| ip.eval(&args[0], env, input.clone(), &mut |a| cb(Value::Number(libm::fma(num(&a, "fma")?, num(&b, "fma")?, num(&c, "fma")?)))))
        }),
        Native::Math3(i) => {
            let x = num(&input, PAIRS[i])?;
            let pair = match PAIRS[i] {
                "frexp" => {
                    let (m, e) = libm::frexp(x);
                    vec![Value::Number(m), Value::Number(e as f64)]
                }
                "modf" => {
                    let (f, int) = libm::modf(x);
                    vec![Value::Number(f), Value::Number(int)]
                }
                _ => {
                    let (v, sign) = libm::lgamma_r(x);
                    vec![Value::Number(v), Value::Number(sign as f64)]
                }
            };
            cb(Value::array(pair))
        }
        _ => Err(err("unknown math builtin")),
    }
}
