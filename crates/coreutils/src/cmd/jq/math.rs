//! jq's libm builtins: one-argument functions on `.`, two- and three-argument ones on
//! their arguments (`pow(a; b)`), and the few that return pairs (frexp, modf, lgamma_r).

use super::ast::Ast;
use super::builtins::Native;
use super::interp::{err, Env, Interp, Res};
use super::value::Value;

type F1 = fn(f64) -> f64;
type F2 = fn(f64, f64) -> f64;

// Where std has the function, use it: natively that is the C library jq uses.
fn exp10(x: f64) -> f64 {
    libm::exp10(x)
}
fn floor(x: f64) -> f64 {
    x.floor()
}
fn sqrt(x: f64) -> f64 {
    x.sqrt()
}
fn acos(x: f64) -> f64 {
    x.acos()
}
fn acosh(x: f64) -> f64 {
    libm::acosh(x)
}
fn asin(x: f64) -> f64 {
    x.asin()
}
fn asinh(x: f64) -> f64 {
    libm::asinh(x)
}
fn atan(x: f64) -> f64 {
    x.atan()
}
fn atanh(x: f64) -> f64 {
    libm::atanh(x)
}
fn cbrt(x: f64) -> f64 {
    x.cbrt()
}
fn cos(x: f64) -> f64 {
    x.cos()
}
fn cosh(x: f64) -> f64 {
    (x.exp() + (-x).exp()) / 2.0
}
fn exp(x: f64) -> f64 {
    x.exp()
}
fn exp2(x: f64) -> f64 {
    x.exp2()
}
fn log(x: f64) -> f64 {
    x.ln()
}
fn log10(x: f64) -> f64 {
    x.log10()
}
fn log2(x: f64) -> f64 {
    x.log2()
}
fn sin(x: f64) -> f64 {
    x.sin()
}
fn sinh(x: f64) -> f64 {
    x.sinh()
}
fn tan(x: f64) -> f64 {
    x.tan()
}
fn tanh(x: f64) -> f64 {
    x.tanh()
}
fn ceil(x: f64) -> f64 {
    x.ceil()
}
fn expm1(x: f64) -> f64 {
    x.exp_m1()
}
fn fabs(x: f64) -> f64 {
    x.abs()
}
fn log1p(x: f64) -> f64 {
    x.ln_1p()
}
fn round(x: f64) -> f64 {
    x.round()
}
fn trunc(x: f64) -> f64 {
    x.trunc()
}
fn pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}
fn atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}
fn hypot(x: f64, y: f64) -> f64 {
    x.hypot(y)
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
fn drem(x: f64, y: f64) -> f64 {
    libm::remainder(x, y)
}
fn nexttoward(x: f64, y: f64) -> f64 {
    libm::nextafter(x, y)
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
fn gamma(x: f64) -> f64 {
    libm::lgamma(x)
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

const ONE: &[(&str, F1)] = &[
    ("floor", floor), ("sqrt", sqrt), ("acos", acos), ("acosh", acosh), ("asin", asin),
    ("asinh", asinh), ("atan", atan), ("atanh", atanh), ("cbrt", cbrt), ("cos", cos),
    ("cosh", cosh), ("exp", exp), ("exp2", exp2), ("log", log), ("log10", log10),
    ("log2", log2), ("sin", sin), ("sinh", sinh), ("tan", tan), ("tanh", tanh),
    ("tgamma", libm::tgamma), ("y0", libm::y0), ("y1", libm::y1), ("j0", libm::j0), ("j1", libm::j1),
    ("ceil", ceil), ("erf", libm::erf), ("erfc", libm::erfc), ("exp10", exp10), ("expm1", expm1),
    ("fabs", fabs), ("gamma", gamma), ("lgamma", libm::lgamma), ("log1p", log1p), ("logb", logb),
    ("nearbyint", rint), ("rint", rint), ("round", round), ("significand", significand), ("trunc", trunc),
];

const TWO: &[(&str, F2)] = &[
    ("pow", pow), ("atan2", atan2), ("fmod", libm::fmod), ("hypot", hypot), ("copysign", libm::copysign),
    ("drem", drem), ("fdim", libm::fdim), ("fmax", libm::fmax), ("fmin", libm::fmin), ("ldexp", ldexp),
    ("nextafter", libm::nextafter), ("nexttoward", nexttoward), ("remainder", libm::remainder), ("scalb", ldexp),
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
