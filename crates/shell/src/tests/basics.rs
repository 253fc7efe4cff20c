//! The interpreter's basics: tables of scripts and what bash makes of them, then the cases
//! that need more than a script (deep recursion, files, shells passed functions).

use super::{out, run, run_in, world_with};

/// (script, its standard output): each must also succeed.
const OUTPUTS: &[(&str, &str)] = &[
    // echo and variables
    ("x=world; echo \"hello $x\"", "hello world\n"),
    ("a=1 b=2; echo $((a+b))", "3\n"),
    // word splitting and quoting
    ("v='a  b'; set -- $v; echo $#; set -- \"$v\"; echo $#", "2\n1\n"),
    ("set -- 'x y' z; for a in \"$@\"; do echo \"[$a]\"; done", "[x y]\n[z]\n"),
    ("IFS=,; v=a,b,,c; set -- $v; echo $#", "4\n"),
    // parameter operators
    ("p=/a/b/c.txt; echo ${p##*/} ${p%.*} ${p/b/B} ${#p}", "c.txt /a/b/c /a/B/c.txt 10\n"),
    ("unset u; echo ${u:-d} ${u:=set} $u", "d set set\n"),
    ("x=hello; echo ${x^^} ${x:1:3} ${x: -2}", "HELLO ell lo\n"),
    // arithmetic
    ("echo $((2**10)) $((7/2)) $((7%3)) $((1<<3)) $((0x10)) $((2#101))", "1024 3 1 8 16 5\n"),
    ("i=5; ((i++)); ((i+=10)); echo $i", "16\n"),
    // control flow
    ("for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; done", "1\n3\n"),
    ("i=0; while ((i < 3)); do ((i++)); done; echo $i", "3\n"),
    ("case abc in a*) echo A;& x) echo X;; esac", "A\nX\n"),
    ("for a in 1 2; do for b in 1 2; do break 2; done; echo never; done; echo out", "out\n"),
    // functions and scope
    ("x=g; f() { local x=l; echo $x; }; f; echo $x", "l\ng\n"),
    ("f() { return 7; }; f; echo $?", "7\n"),
    ("fact() { (( $1 <= 1 )) && { echo 1; return; }; echo $(( $1 * $(fact $(( $1 - 1 ))) )); }; fact 5", "120\n"),
    // subshells and substitution use child shells
    ("x=1; (x=2; echo $x); echo $x", "2\n1\n"),
    ("x=$(echo a; echo b); echo \"$x\"", "a\nb\n"),
    ("f() { echo from-f; }; echo \"$(f)\"", "from-f\n"),
    ("echo a b | { read x y; echo \"$y $x\"; }", "b a\n"),
    // pipelines record statuses
    ("(exit 1) | (exit 2) | true; echo ${PIPESTATUS[@]}", "1 2 0\n"),
    ("set -o pipefail; false | true; echo $?", "1\n"),
    // redirections and heredocs
    ("cat <<EOF\nv=$((1+1))\nEOF", "v=2\n"),
    ("read a b <<< 'here string'; echo $b", "string\n"),
    // arrays
    ("a=(x y z); a+=(w); echo ${#a[@]} ${a[-1]} ${!a[@]}", "4 w 0 1 2 3\n"),
    ("declare -A m=([k]=v); m[j]=u; echo ${m[k]}${m[j]} ${#m[@]}", "vu 2\n"),
    // errexit and traps
    ("set -e; f() { false; echo in; }; f || true; echo end", "in\nend\n"),
    // seconds can be set before the clock reaches it
    ("SECONDS=100; (( SECONDS >= 100 && SECONDS < 105 )) && echo ok", "ok\n"),
    // temporary path is searched and not hashed
    ("PATH=/nonexistent no_such_cmd 2>/dev/null; echo $?; hash", "127\nhash: hash table empty\n"),
    ("hash -p /bin/foo foo; hash -t foo; PATH=/x true; hash", "/bin/foo\nhash: hash table empty\n"),
];

/// (script, its standard output if asserted, its status if asserted, text its standard
/// error contains).
const OUTCOMES: &[(&str, Option<&str>, Option<i32>, &str)] = &[
    // a division by zero abandons its line only
    ("echo $((1/0)); echo same\necho next", Some("next\n"), None, ""),
    // set -e runs the EXIT trap and keeps the failing status
    ("set -e; trap 'echo bye' EXIT; echo a; false; echo b", Some("a\nbye\n"), Some(1), ""),
    // errors have bash's statuses and words
    ("no_such_command_here", None, Some(127), "no_such_command_here: command not found"),
    ("echo )", None, Some(2), "syntax error near unexpected token `)'"),
    ("set -u; echo $nope", None, Some(127), ""),
    // builtin options as bash's internal_getopt reads them, usage errors in its words
    ("cd -LPx; echo $?", Some("2\n"), Some(0), "cd: -x: invalid option\ncd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n"),
    ("read -a", None, Some(2), "read: -a: option requires an argument\nread: usage: read [-ers] [-a array]"),
    ("declare +Z", None, Some(2), "declare: +Z: invalid option\ndeclare: usage: declare [-aAfFgiIlnrtux]"),
    ("export -i x", None, Some(2), "export: -i: invalid option\nexport: usage: export [-fn]"),
    ("popd -x", None, Some(2), "popd: -x: invalid number\npopd: usage: popd [-n] [+N | -N]\n"),
    ("eval -- echo hi; command -vV cd; hash -pfoo ls; hash -t ls", Some("hi\ncd is a shell builtin\nfoo\n"), Some(0), ""),
];

#[test]
fn scripts_print_what_bash_prints() {
    for (script, expected) in OUTPUTS {
        assert_eq!(out(script), *expected, "{:?}", script);
    }
}

#[test]
fn scripts_end_as_bash_ends_them() {
    for (script, stdout, status, stderr) in OUTCOMES {
        let outcome = run(script);
        if let Some(stdout) = stdout {
            assert_eq!(outcome.stdout, *stdout, "{:?}", script);
        }
        if let Some(status) = status {
            assert_eq!(outcome.status, *status, "{:?}", script);
        }
        assert!(outcome.stderr.contains(stderr), "{:?}: {}", script, outcome.stderr);
    }
}

#[test]
fn deep_recursion_stops_at_bash_nesting_limit() {
    // 1000 levels of interpreter recursion need more than a test thread's stack.
    let deep = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let outcome = run("f() { f; }; f");
            (outcome.status, outcome.stderr)
        })
        .expect("thread starts")
        .join()
        .expect("thread ends");
    assert_eq!(deep.0, 1);
    assert!(deep.1.contains("maximum function nesting level exceeded (1000)"), "{}", deep.1);
}

#[test]
fn files_on_the_fake_file_system() {
    let world = world_with(&[("/in.txt", "l1\nl2\n"), ("/d/b.txt", ""), ("/d/a.txt", ""), ("/d/c.md", "")]);
    let outcome = run_in(&world, "echo x > /out.txt; echo y >> /out.txt; cat /out.txt; while read l; do echo \"<$l>\"; done < /in.txt", "");
    assert_eq!(outcome.stdout, "x\ny\n<l1>\n<l2>\n");
    let outcome = run_in(&world, "cd /d; echo *.txt; echo *.none", "");
    assert_eq!(outcome.stdout, "a.txt b.txt\n*.none\n");
}

#[test]
fn exported_functions_round_trip_and_nothing_rides_along() {
    let world = world_with(&[]);
    let mut shell = super::shell_on(&world, "");
    let _ = shell.run_source("f() { echo \"f $1\"; }; export -f f", "-c", 1);
    let environment = shell.function_environment();
    assert_eq!(environment.len(), 1);
    let mut child = super::shell_on(&world, "");
    child.import_functions(&environment);
    assert!(child.functions.contains_key("f"));
    let mut target = super::shell_on(&world, "");
    target.import_functions(&["BASH_FUNC_g%%=() { :; }; echo injected".to_string(), "BASH_FUNC_h%%=echo no".to_string()]);
    assert!(target.functions.is_empty());
}
