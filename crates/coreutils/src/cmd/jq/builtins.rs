//! jq's builtins: the ones written in Rust (`Native`, dispatched here; string, regex,
//! format, math and time ones live in their own files) and the rest written in jq itself
//! (`PRELUDE`), compiled before the program. Semantics are jq 1.6's, quirks included
//! (`limit(0; f)` yields one output, `repeat(f)` applies f to the same input, …).

use std::rc::Rc;

use super::ast::Ast;
use super::interp::{err, iterate, Env, Flow, Interp, Res};
use super::value::{Map, Value};
use super::{collections, control, math, ops, paths, strings, time};

macro_rules! natives {
    ($($variant:ident = $name:literal / $arity:literal),* $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Native { $($variant),* , Math1(usize), Math2(usize), Math3(usize) }
        const TABLE: &[(&str, usize, Native)] = &[$(($name, $arity, Native::$variant)),*];
    };
}

natives! {
    Empty = "empty"/0, Error0 = "error"/0, Error1 = "error"/1, Not = "not"/0, Length = "length"/0,
    Utf8ByteLength = "utf8bytelength"/0, Type = "type"/0, Keys = "keys"/0, KeysUnsorted = "keys_unsorted"/0,
    Has = "has"/1, Contains = "contains"/1, Add = "add"/0, Any0 = "any"/0, All0 = "all"/0, Any1 = "any"/1,
    All1 = "all"/1, Any2 = "any"/2, All2 = "all"/2, Range1 = "range"/1, Range2 = "range"/2, Range3 = "range"/3,
    Min = "min"/0, Max = "max"/0, MinBy = "min_by"/1, MaxBy = "max_by"/1, Sort = "sort"/0, SortBy = "sort_by"/1,
    GroupBy = "group_by"/1, Unique = "unique"/0, UniqueBy = "unique_by"/1, Reverse = "reverse"/0,
    Flatten0 = "flatten"/0, Flatten1 = "flatten"/1, ToEntries = "to_entries"/0, FromEntries = "from_entries"/0,
    WithEntries = "with_entries"/1, Map = "map"/1, Select = "select"/1, Recurse0 = "recurse"/0,
    Recurse1 = "recurse"/1, Recurse2 = "recurse"/2, Path = "path"/1, GetPath = "getpath"/1,
    SetPath = "setpath"/2, DelPaths = "delpaths"/1, Del = "del"/1, ToString = "tostring"/0,
    ToNumber = "tonumber"/0, ToJson = "tojson"/0, FromJson = "fromjson"/0, ToStream = "tostream"/0,
    FromStream = "fromstream"/1, Input = "input"/0, Inputs = "inputs"/0, Debug = "debug"/0,
    Stderr = "stderr"/0, InputLineNumber = "input_line_number"/0, InputFilename = "input_filename"/0,
    Halt = "halt"/0, HaltError1 = "halt_error"/1, Env = "env"/0, Builtins = "builtins"/0,
    Limit = "limit"/2, First1 = "first"/1, Last1 = "last"/1, Nth2 = "nth"/2, First0 = "first"/0,
    Last0 = "last"/0, Nth1 = "nth"/1, Until = "until"/2, While = "while"/2, Repeat = "repeat"/1,
    IsEmpty = "isempty"/1, Infinite = "infinite"/0, Nan = "nan"/0, IsInfinite = "isinfinite"/0,
    IsNan = "isnan"/0, IsNormal = "isnormal"/0, Format = "format"/1, Transpose = "transpose"/0,
    Indices = "indices"/1, Index = "index"/1, Rindex = "rindex"/1, Join = "join"/1, Split1 = "split"/1,
    Split2 = "split"/2, AsciiDowncase = "ascii_downcase"/0, AsciiUpcase = "ascii_upcase"/0,
    Explode = "explode"/0, Implode = "implode"/0, Ltrimstr = "ltrimstr"/1, Rtrimstr = "rtrimstr"/1,
    Startswith = "startswith"/1, Endswith = "endswith"/1, Test1 = "test"/1, Test2 = "test"/2,
    Match1 = "match"/1, Match2 = "match"/2, Capture1 = "capture"/1, Capture2 = "capture"/2, Scan = "scan"/1,
    Sub2 = "sub"/2, Sub3 = "sub"/3, Gsub2 = "gsub"/2, Gsub3 = "gsub"/3, Now = "now"/0, Mktime = "mktime"/0,
    Gmtime = "gmtime"/0, Localtime = "localtime"/0, Strftime = "strftime"/1, Strflocaltime = "strflocaltime"/1,
    Strptime = "strptime"/1, Splits2 = "splits"/2, EnvVar = "$ENV"/0, Unsupported = "get_search_list"/0,
    Modulemeta = "modulemeta"/0, JqOrigin = "get_jq_origin"/0, ProgOrigin = "get_prog_origin"/0,
}

/// Builtins written in jq (jq 1.6's behaviour).
pub const PRELUDE: &str = r#"
def values: select(. != null);
def nulls: select(. == null);
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def strings: select(type == "string");
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type|. == "array" or . == "object");
def scalars: select(type|. != "array" and . != "object");
def scalars_or_empty: select(. == null or . == true or . == false or type == "number" or type == "string" or ((type == "array" or type == "object") and length == 0));
def normals: select(isnormal);
def finites: select(isinfinite or isnan | not);
def isfinite: type == "number" and (isinfinite | not);
def map_values(f): .[] |= f;
def recurse_down: recurse;
def paths: path(..) | select(length > 0);
def paths(node_filter): . as $dot | paths | select(. as $p | $dot | getpath($p) | node_filter);
def leaf_paths: paths(scalars);
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def halt_error: halt_error(5);
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def fromdateiso8601: strptime("%Y-%m-%dT%H:%M:%SZ") | mktime;
def todate: todateiso8601;
def fromdate: fromdateiso8601;
def splits($re): splits($re; null);
def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $y | [$x] + $y end;
def combinations(n): . as $dot | [range(n) | $dot] | combinations;
def walk(f): . as $in | if type == "object" then reduce keys_unsorted[] as $key ({}; . + {($key): ($in[$key] | walk(f))}) | f elif type == "array" then map(walk(f)) | f else f end;
def truncate_stream(stream): . as $n | null | stream | . as $input | if (.[0] | length) > $n then setpath([0]; $input[0][$n:]) else empty end;
def bsearch(target): if length == 0 then -1 elif length == 1 then (if target == .[0] then 0 elif target < .[0] then -1 else -2 end) else . as $in | [0, length - 1, null] | until(.[0] > .[1]; if .[2] != null then (.[1] = -1) else (((.[1] + .[0]) / 2) | floor) as $mid | $in[$mid] as $m | if $m == target then (.[2] = $mid) elif .[0] == .[1] then (.[1] = -1) elif $m < target then (.[0] = ($mid + 1)) else (.[1] = ($mid - 1)) end end) | if .[2] == null then (if $in[.[0]] < target then (-2 - .[0]) else (-1 - .[0]) end) else .[2] end end;
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] = $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def pow10: 10 as $ten | pow($ten; .);
"#;

/// A native builtin by name and arity.
pub fn lookup(name: &str, arity: usize) -> Option<Native> {
    if let Some((_, _, n)) = TABLE.iter().find(|(n, a, _)| *n == name && *a == arity) {
        return Some(*n);
    }
    math::lookup(name, arity)
}

/// `builtins`: every name/arity.
pub fn all_names(prelude_names: &[String]) -> Vec<String> {
    let mut names: Vec<String> = TABLE.iter().filter(|(n, _, _)| !n.starts_with('$') && !n.starts_with("get_") && *n != "modulemeta").map(|(n, a, _)| format!("{}/{}", n, a)).collect();
    names.extend(math::names());
    names.extend(prelude_names.iter().cloned());
    names
}

pub(super) fn number(v: &Value, what: &str) -> Result<f64, Flow> {
    match v {
        Value::Number(n) => Ok(*n),
        _ => Err(err(format!("{} ({}) {}", v.kind(), v.dump_trunc(), what))),
    }
}

pub(super) fn array<'a>(v: &'a Value, what: &str) -> Result<&'a Rc<Vec<Value>>, Flow> {
    match v {
        Value::Array(a) => Ok(a),
        _ => Err(err(format!("{} ({}) {}", v.kind(), v.dump_trunc(), what))),
    }
}

pub fn call<'p>(ip: &Interp<'p, '_>, native: Native, args: &'p [Ast], env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    // Builtins taking value arguments get them one combination at a time (cartesian).
    let arg = |i: usize, input: &Value, f: &mut dyn FnMut(Value) -> Res| ip.eval(&args[i], env, input.clone(), f);
    match native {
        Native::Empty => Ok(()),
        Native::Error0 => raise(input),
        Native::Error1 => arg(0, &input, &mut |m| raise(m)),
        Native::Not => cb(Value::Bool(!input.truthy())),
        Native::Length => cb(input.length().map_err(err)?),
        Native::Utf8ByteLength => match &input {
            Value::String(s) => cb(Value::Number(s.len() as f64)),
            _ => Err(err(format!("{} ({}) only strings have UTF-8 byte length", input.kind(), input.dump_trunc()))),
        },
        Native::Type => cb(Value::from_str(input.kind())),
        Native::Keys | Native::KeysUnsorted => match &input {
            Value::Object(o) => cb(Value::array(if native == Native::Keys { o.sorted_keys() } else { o.keys().cloned().collect() }.into_iter().map(Value::String).collect())),
            Value::Array(a) => cb(Value::array((0..a.len()).map(|i| Value::Number(i as f64)).collect())),
            _ => Err(err(format!("{} ({}) has no keys", input.kind(), input.dump_trunc()))),
        },
        Native::Has => arg(0, &input, &mut |k| match (&input, &k) {
            (Value::Object(o), Value::String(s)) => cb(Value::Bool(o.contains_key(s))),
            (Value::Array(a), Value::Number(n)) => cb(Value::Bool(*n >= 0.0 && *n < a.len() as f64)),
            _ => Err(err(format!("Cannot check whether {} has a {} key", input.kind(), k.kind()))),
        }),
        Native::Contains => arg(0, &input, &mut |b| cb(Value::Bool(ops::contains(&input, &b)?))),
        Native::Add => {
            let mut acc = Value::Null;
            iterate(input, &mut |x| {
                acc = ops::add(&acc, &x)?;
                Ok(())
            })?;
            cb(acc)
        }
        Native::Any0 | Native::All0 => {
            let want_all = native == Native::All0;
            let mut result = want_all;
            iterate(input, &mut |x| {
                if x.truthy() != want_all {
                    result = !want_all;
                }
                Ok(())
            })?;
            cb(Value::Bool(result))
        }
        Native::Any1 | Native::All1 | Native::Any2 | Native::All2 | Native::Range1 | Native::Range2 | Native::Range3 | Native::Recurse1 | Native::Recurse2 | Native::Limit | Native::First1 | Native::Last1 | Native::Nth2 | Native::Until | Native::While | Native::Repeat | Native::IsEmpty => control::call(ip, native, args, env, input, cb),
        Native::Min | Native::Max | Native::MinBy | Native::MaxBy | Native::Sort | Native::SortBy | Native::GroupBy | Native::Unique | Native::UniqueBy | Native::Reverse | Native::Flatten0 | Native::Flatten1 | Native::ToEntries | Native::FromEntries | Native::WithEntries | Native::ToStream | Native::FromStream | Native::Transpose => collections::call(ip, native, args, env, input, cb),
        Native::Map => {
            let mut out = Vec::new();
            iterate(input, &mut |x| {
                ip.eval(&args[0], env, x, &mut |y| {
                    out.push(y);
                    Ok(())
                })
            })?;
            cb(Value::array(out))
        }
        Native::Select => ip.eval(&args[0], env, input.clone(), &mut |c| if c.truthy() { cb(input.clone()) } else { Ok(()) }),
        Native::Recurse0 => super::interp::recurse_all(input, cb),
        Native::Path => ip.paths(&args[0], env, &[], input, &mut |p, _| cb(Value::array(p))),
        Native::GetPath => arg(0, &input, &mut |p| match &p {
            Value::Array(parts) => match paths::getpath(&input, parts) {
                Ok(v) => cb(v),
                Err(e) => Err(e),
            },
            _ => Err(err("Path must be specified as an array")),
        }),
        Native::SetPath => arg(1, &input, &mut |v| {
            arg(0, &input, &mut |p| match &p {
                Value::Array(parts) => cb(paths::setpath(input.clone(), parts, v.clone())?),
                _ => Err(err("Path must be specified as an array")),
            })
        }),
        Native::DelPaths => arg(0, &input, &mut |ps| match &ps {
            Value::Array(list) => cb(paths::delpaths(input.clone(), list)?),
            _ => Err(err("Paths must be specified as an array")),
        }),
        Native::Del => {
            let list: Vec<Value> = ip.collect_paths(&args[0], env, input.clone())?.into_iter().map(Value::array).collect();
            cb(paths::delpaths(input, &list)?)
        }
        Native::ToString => cb(Value::String(input.to_text())),
        Native::ToJson => cb(Value::string(input.to_json())),
        Native::ToNumber => match &input {
            Value::Number(_) => cb(input),
            Value::String(s) => match super::json::parse_one(s.as_bytes()) {
                Ok(n @ Value::Number(_)) => cb(n),
                Ok(_) => Err(err(format!("{} ({}) cannot be parsed as a number", input.kind(), input.dump_trunc()))),
                Err(m) => Err(err(format!("{} (while parsing '{}')", m, s))),
            },
            _ => Err(err(format!("{} ({}) cannot be parsed as a number", input.kind(), input.dump_trunc()))),
        },
        Native::FromJson => match &input {
            Value::String(s) => match super::json::parse_one(s.as_bytes()) {
                Ok(v) => cb(v),
                Err(m) => Err(err(format!("{} (while parsing '{}')", m, s))),
            },
            _ => Err(err(format!("{} ({}) only strings can be parsed", input.kind(), input.dump_trunc()))),
        },
        Native::Input | Native::Inputs | Native::Debug | Native::Stderr | Native::InputLineNumber | Native::InputFilename | Native::Halt | Native::HaltError1 | Native::Env | Native::EnvVar | Native::Builtins => host_call(ip, native, args, env, input, cb),
        Native::First0 => cb(ops::index(&input, &Value::Number(0.0))?),
        Native::Last0 => cb(ops::index(&input, &Value::Number(-1.0))?),
        Native::Nth1 => arg(0, &input, &mut |n| cb(ops::index(&input, &n)?)),
        Native::Infinite => cb(Value::Number(f64::INFINITY)),
        Native::Nan => cb(Value::Number(f64::NAN)),
        Native::IsInfinite => cb(Value::Bool(number(&input, "number required")?.is_infinite())),
        Native::IsNan => cb(Value::Bool(number(&input, "number required")?.is_nan())),
        Native::IsNormal => cb(Value::Bool(number(&input, "number required")?.is_normal())),
        Native::Format => arg(0, &input, &mut |f| match &f {
            Value::String(name) => cb(Value::string(apply_format(name, &input)?)),
            _ => Err(err(format!("{} ({}) is not a valid format", f.kind(), f.dump_trunc()))),
        }),
        Native::Now | Native::Mktime | Native::Gmtime | Native::Localtime | Native::Strftime | Native::Strflocaltime | Native::Strptime => time::call(ip, native, args, env, input, cb),
        Native::Math1(_) | Native::Math2(_) | Native::Math3(_) => math::call(ip, native, args, env, input, cb),
        Native::Unsupported | Native::Modulemeta | Native::JqOrigin | Native::ProgOrigin => Err(err("modules are not supported in the sandbox")),
        _ => strings::call(ip, native, args, env, input, cb),
    }
}

/// The builtins that reach the world outside the value: inputs, stderr, halting, the
/// environment and the list of builtins.
fn host_call<'p>(ip: &Interp<'p, '_>, native: Native, args: &'p [Ast], env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    match native {
        Native::Input => match ip.host.borrow_mut().next_input() {
            Some(Ok(v)) => cb(v),
            Some(Err(m)) => Err(err(m)),
            None => Err(err("No more inputs")),
        },
        Native::Inputs => loop {
            let next = ip.host.borrow_mut().next_input();
            match next {
                Some(Ok(v)) => cb(v)?,
                Some(Err(m)) => return Err(err(m)),
                None => return Ok(()),
            }
        },
        Native::Debug => {
            let text = format!("[\"DEBUG:\",{}]\n", input.to_json());
            ip.host.borrow_mut().stderr(text.as_bytes());
            cb(input)
        }
        Native::Stderr => {
            let text = input.to_json();
            ip.host.borrow_mut().stderr(text.as_bytes());
            cb(input)
        }
        Native::InputLineNumber => cb(Value::Number(ip.host.borrow().input_line_number() as f64)),
        Native::InputFilename => cb(ip.host.borrow().input_filename()),
        Native::Halt => Err(Flow::Halt(0, None)),
        Native::HaltError1 => ip.eval(&args[0], env, input.clone(), &mut |code| {
            let code = match code {
                Value::Number(n) => n as i32,
                _ => return Err(err(format!("{} ({}) halt_error/1: number required", input.kind(), input.dump_trunc()))),
            };
            let message = match &input {
                Value::String(s) => s.as_bytes().to_vec(),
                other => format!("{}\n", other.to_json()).into_bytes(),
            };
            Err(Flow::Halt(code, Some(message)))
        }),
        Native::Env | Native::EnvVar => {
            let mut m = Map::new();
            for (k, v) in std::env::vars_os() {
                m.insert(Rc::from(k.to_string_lossy().into_owned()), Value::string(v.to_string_lossy().into_owned()));
            }
            cb(Value::object(m))
        }
        Native::Builtins => {
            let names = all_names(&ip.funcs.iter().filter(|f| !f.name.starts_with('_')).map(|f| format!("{}/{}", f.name, f.params.len())).collect::<Vec<_>>());
            cb(Value::array(names.into_iter().map(Value::string).collect()))
        }
        _ => Err(err("not a host builtin")),
    }
}

/// `error(v)`; jq 1.6 treats `error(null)` like `empty`.
fn raise(v: Value) -> Res {
    match v {
        Value::Null => Ok(()),
        other => Err(Flow::Err(other)),
    }
}




/// `@name` applied to a value.
pub fn apply_format(name: &str, v: &Value) -> Result<String, Flow> {
    strings::format(name, v)
}
