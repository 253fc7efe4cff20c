//! `jq` (the jq 1.6 language and command line): parses the program with the jq-defined
//! builtins in scope, then runs it on each JSON text of the inputs (or once on null with
//! -n, or on everything slurped with -s), printing outputs as jq 1.6 does. Exit status:
//! 2 usage or unreadable file, 3 compile error, 4 input parse error, 5 runtime error in the
//! last input, and with -e 1/4 from the last output.

#[path = "jq/ast.rs"]
mod ast;
#[path = "jq/builtins.rs"]
mod builtins;
#[path = "jq/collections.rs"]
mod collections;
#[path = "jq/control.rs"]
mod control;
#[path = "jq/input.rs"]
mod input;
#[path = "jq/interp.rs"]
mod interp;
#[path = "jq/json.rs"]
mod json;
#[path = "jq/lexer.rs"]
mod lexer;
#[path = "jq/math.rs"]
mod math;
#[path = "jq/ops.rs"]
mod ops;
#[path = "jq/options.rs"]
mod options;
#[path = "jq/parser.rs"]
mod parser;
#[path = "jq/parser_primary.rs"]
mod parser_primary;
#[path = "jq/parser_terms.rs"]
mod parser_terms;
#[path = "jq/paths.rs"]
mod paths;
#[path = "jq/print.rs"]
mod print;
#[path = "jq/strings.rs"]
mod strings;
#[path = "jq/time.rs"]
mod time;
#[path = "jq/value.rs"]
mod value;

use std::ffi::OsString;
use std::io::Write;

use common::{Io, UError};

use input::JqHost;
use interp::{Env, Flow, Interp, Slot};
use options::Options;
use value::Value;

/// Compiles the prelude and the program; Err(message) is a compile error.
fn compile(program: &str, arg_names: &[String]) -> Result<(Vec<ast::FuncDef>, ast::Ast), String> {
    let mut funcs = Vec::new();
    let prelude_tokens = lexer::Lexer::tokens(builtins::PRELUDE.as_bytes()).map_err(|e| e.message)?;
    let mut prelude = parser::Parser::new(prelude_tokens, builtins::PRELUDE.as_bytes(), parser::Scope::default(), &mut funcs);
    prelude.definitions()?;
    let mut scope = prelude.scope.clone();
    for name in arg_names {
        scope.add_var(name);
    }
    let tokens = lexer::Lexer::tokens(program.as_bytes()).map_err(|e| e.message)?;
    let mut parser = parser::Parser::new(tokens, program.as_bytes(), scope, &mut funcs);
    let main = parser.program()?;
    Ok((funcs, main))
}

/// jq's command line is not getopt's (`--arg NAME VALUE` takes two words, long options are
/// exact, not abbreviated), so options.rs reads it; the contract here is the result.
pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let opts = match options::parse(&args[1..]) {
        Ok(Some(o)) => o,
        Ok(None) => {
            let _ = io.out(options::HELP.as_bytes());
            return Ok(0);
        }
        Err(options::OptError::Version) => {
            let _ = io.out(b"jq-1.6\n");
            return Ok(0);
        }
        Err(options::OptError::Usage(message)) => {
            return Err(UError::new(2, format!("{}\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq", message)));
        }
        Err(options::OptError::Fatal(message)) => return Err(UError::new(2, message)),
    };
    let names: Vec<String> = opts.named.iter().map(|(n, _)| n.clone()).chain(std::iter::once("ARGS".to_string())).collect();
    let (funcs, main) = match compile(&opts.program, &names) {
        Ok(x) => x,
        Err(message) => return Err(UError::new(3, format!("error: {} at <top-level>, line 1:\n{}\njq: 1 compile error", message, opts.program))),
    };
    let Io { stdin, stdout, stderr, .. } = io;
    let mut host = JqHost::new(&mut **stdin, &mut **stderr, &opts);
    let status = execute(&opts, &funcs, &main, &mut host, &mut **stdout);
    let _ = stdout.flush();
    Ok(status)
}

/// Runs the program over the inputs; returns the exit status.
fn execute(opts: &Options, funcs: &[ast::FuncDef], main: &ast::Ast, host: &mut JqHost, out: &mut dyn Write) -> i32 {
    let mut env = Env::default();
    let mut named = value::Map::new();
    for (name, v) in &opts.named {
        env = env.push(Slot::Val(v.clone()));
        named.insert(std::rc::Rc::from(name.as_str()), v.clone());
    }
    let mut args_obj = value::Map::new();
    args_obj.insert(std::rc::Rc::from("positional"), Value::array(opts.positional.clone()));
    args_obj.insert(std::rc::Rc::from("named"), Value::object(named));
    env = env.push(Slot::Val(Value::object(args_obj)));
    let style = opts.style();
    let mut buf = Vec::with_capacity(4096);
    let mut last_truthy: Option<bool> = None;
    let mut last_failed = false;
    let mut write_failed = false;
    let interp = Interp::new(funcs, host);
    let mut run_one = |input: Value| -> Result<bool, i32> {
        let result = interp.eval(main, &env, input, &mut |v| {
            buf.clear();
            if opts.seq {
                buf.push(0x1e);
            }
            match (&v, opts.raw_output && !opts.ascii) {
                (Value::String(s), true) => buf.extend_from_slice(s.as_bytes()),
                _ => print::write_value(&mut buf, &v, &style),
            }
            if !opts.join_output {
                buf.push(b'\n');
            }
            last_truthy = Some(v.truthy());
            if out.write_all(&buf).is_err() {
                write_failed = true;
                return Err(Flow::Halt(0, None));
            }
            Ok(())
        });
        match result {
            Ok(()) => Ok(true),
            Err(Flow::Err(e)) => {
                let location = interp.host.borrow().location();
                let message = match &e {
                    Value::String(s) => format!("jq: error (at {}): {}\n", location, s),
                    other => format!("jq: error (at {}) (not a string): {}\n", location, other.to_json()),
                };
                // jq does not flush stdout first: its messages come before buffered output.
                interp.host.borrow_mut().stderr(message.as_bytes());
                Ok(false)
            }
            Err(Flow::Break(_)) => {
                let location = interp.host.borrow().location();
                interp.host.borrow_mut().stderr(format!("jq: error (at {}): break\n", location).as_bytes());
                Ok(false)
            }
            Err(Flow::Halt(code, message)) => {
                if let Some(m) = message {
                    interp.host.borrow_mut().stderr(&m);
                }
                Err(code)
            }
        }
    };
    let mut parse_failed = false;
    let mut any_input = opts.null_input;
    if opts.null_input {
        match run_one(Value::Null) {
            Ok(ok) => last_failed = !ok,
            Err(code) => return if write_failed { 0 } else { code },
        }
    } else {
        loop {
            let next = interp.host.borrow_mut().next_input();
            match next {
                None => break,
                Some(Err(message)) => {
                    interp.host.borrow_mut().stderr(format!("parse error: {}\n", message).as_bytes());
                    parse_failed = true;
                    break;
                }
                Some(Ok(v)) => match {
                    any_input = true;
                    run_one(v)
                } {
                    Ok(ok) => last_failed = !ok,
                    Err(code) => return if write_failed { 0 } else { code },
                },
            }
        }
    }
    let open_failed = interp.host.borrow().open_failed();
    if write_failed {
        return 0;
    }
    if open_failed {
        return 2;
    }
    if parse_failed {
        return 4;
    }
    if last_failed {
        return 5;
    }
    if opts.exit_status && any_input {
        return match last_truthy {
            None => 4,
            Some(true) => 0,
            Some(false) => 1,
        };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoInput;

    fn run_program(program: &str, input: &str) -> Result<Vec<String>, String> {
        let (funcs, main) = compile(program, &["ARGS".to_string()])?;
        let mut host = input::TestHost::default();
        let ip = Interp::new(&funcs, &mut host);
        let env = Env::default().push(Slot::Val(Value::Null));
        let value = json::parse_one(input.as_bytes())?;
        let mut out = Vec::new();
        let r = ip.eval(&main, &env, value, &mut |v| {
            out.push(v.to_json());
            Ok(())
        });
        match r {
            Ok(()) => Ok(out),
            Err(Flow::Err(e)) => Err(e.to_text().to_string()),
            Err(other) => Err(format!("{:?}", other)),
        }
    }

    fn ok(program: &str, input: &str) -> String {
        let _ = NoInput;
        run_program(program, input).unwrap().join(" ")
    }

    #[test]
    fn paths_and_fields() {
        assert_eq!(ok(".a.b", r#"{"a":{"b":1}}"#), "1");
        assert_eq!(ok(".[] | .x?", r#"[1,{"x":2}]"#), "2");
        assert_eq!(ok("[.[1:], .[-1], .[5]]", "[1,2,3]"), "[[2,3],3,null]");
        assert_eq!(ok("[paths]", r#"{"a":[1]}"#), r#"[["a"],["a",0]]"#);
        assert_eq!(ok("del(.a[0])", r#"{"a":[1,2]}"#), r#"{"a":[2]}"#);
        assert_eq!(ok(".a.b |= . + 1", r#"{"a":{"b":1}}"#), r#"{"a":{"b":2}}"#);
    }

    #[test]
    fn precedence() {
        assert_eq!(ok("1 + 2 * 3", "null"), "7");
        assert_eq!(ok("[1,2 | . * 10]", "null"), "[10,20]");
        assert_eq!(ok("1 // 2 | . + 1", "null"), "2");
        assert_eq!(ok("[(1,2) + (10,20)]", "null"), "[11,12,21,22]");
        assert_eq!(ok("try error(\"x\") catch . + \"y\"", "null"), "\"xy\"");
        assert_eq!(ok("-1 + 2", "null"), "1");
    }

    #[test]
    fn bindings_and_functions() {
        assert_eq!(ok(". as [$a, {b: $c}] | $a + $c", r#"[1,{"b":2}]"#), "3");
        assert_eq!(ok("def f(g): [g, g]; f(.+1)", "1"), "[2,2]");
        assert_eq!(ok("def fac: if . <= 1 then 1 else . * (. - 1 | fac) end; fac", "5"), "120");
        assert_eq!(ok("def f($x): $x + x; f(1)", "null"), "2");
        assert_eq!(ok("reduce .[] as $x (0; . + $x)", "[1,2,3]"), "6");
        assert_eq!(ok("[foreach .[] as $x (0; . + $x; [$x, .])]", "[1,2]"), "[[1,1],[2,3]]");
        assert_eq!(ok("[label $out | 1, 2, break $out, 3]", "null"), "[1,2]");
    }

    #[test]
    fn builtins_behave_like_jq16() {
        assert_eq!(ok("[limit(0; 1, 2)]", "null"), "[1]");
        assert_eq!(ok("[limit(3; repeat(.*2))]", "1"), "[2,2,2]");
        assert_eq!(ok("to_entries", r#"{"a":1}"#), r#"[{"key":"a","value":1}]"#);
        assert_eq!(ok("[.[] | tostring]", r#"[1,"a",[2]]"#), r#"["1","a","[2]"]"#);
        assert_eq!(ok("\"a-\\(.)-b\"", "[1]"), "\"a-[1]-b\"");
        assert_eq!(ok("[match(\"a\"; \"g\").offset]", "\"bab a\""), "[1,4]");
        assert_eq!(ok("gsub(\"(?<x>[ab])\"; \"<\\(.x)>\")", "\"abc\""), "\"<a><b>c\"");
        assert_eq!(ok("[.[] | @base64]", r#"["hi"]"#), r#"["aGk="]"#);
        assert!(run_program("error(\"boom\")", "null").unwrap_err().contains("boom"));
    }
}
