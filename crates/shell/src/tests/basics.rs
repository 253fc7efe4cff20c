use super::{out, run, run_in, world_with};

#[test]
fn echo_and_variables() {
    assert_eq!(out("x=world; echo \"hello $x\""), "hello world\n");
    assert_eq!(out("a=1 b=2; echo $((a+b))"), "3\n");
}

#[test]
fn word_splitting_and_quoting() {
    assert_eq!(out("v='a  b'; set -- $v; echo $#; set -- \"$v\"; echo $#"), "2\n1\n");
    assert_eq!(out("set -- 'x y' z; for a in \"$@\"; do echo \"[$a]\"; done"), "[x y]\n[z]\n");
    assert_eq!(out("IFS=,; v=a,b,,c; set -- $v; echo $#"), "4\n");
}

#[test]
fn parameter_operators() {
    assert_eq!(out("p=/a/b/c.txt; echo ${p##*/} ${p%.*} ${p/b/B} ${#p}"), "c.txt /a/b/c /a/B/c.txt 10\n");
    assert_eq!(out("unset u; echo ${u:-d} ${u:=set} $u"), "d set set\n");
    assert_eq!(out("x=hello; echo ${x^^} ${x:1:3} ${x: -2}"), "HELLO ell lo\n");
}

#[test]
fn arithmetic() {
    assert_eq!(out("echo $((2**10)) $((7/2)) $((7%3)) $((1<<3)) $((0x10)) $((2#101))"), "1024 3 1 8 16 5\n");
    assert_eq!(out("i=5; ((i++)); ((i+=10)); echo $i"), "16\n");
    assert_eq!(run("echo $((1/0)); echo same\necho next").stdout, "next\n");
}

#[test]
fn control_flow() {
    assert_eq!(out("for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; done"), "1\n3\n");
    assert_eq!(out("i=0; while ((i < 3)); do ((i++)); done; echo $i"), "3\n");
    assert_eq!(out("case abc in a*) echo A;& x) echo X;; esac"), "A\nX\n");
    assert_eq!(out("for a in 1 2; do for b in 1 2; do break 2; done; echo never; done; echo out"), "out\n");
}

#[test]
fn functions_and_scope() {
    assert_eq!(out("x=g; f() { local x=l; echo $x; }; f; echo $x"), "l\ng\n");
    assert_eq!(out("f() { return 7; }; f; echo $?"), "7\n");
    assert_eq!(out("fact() { (( $1 <= 1 )) && { echo 1; return; }; echo $(( $1 * $(fact $(( $1 - 1 ))) )); }; fact 5"), "120\n");
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
fn subshells_and_substitution_use_child_shells() {
    assert_eq!(out("x=1; (x=2; echo $x); echo $x"), "2\n1\n");
    assert_eq!(out("x=$(echo a; echo b); echo \"$x\""), "a\nb\n");
    assert_eq!(out("f() { echo from-f; }; echo \"$(f)\""), "from-f\n");
    assert_eq!(out("echo a b | { read x y; echo \"$y $x\"; }"), "b a\n");
}

#[test]
fn pipelines_record_statuses() {
    assert_eq!(out("(exit 1) | (exit 2) | true; echo ${PIPESTATUS[@]}"), "1 2 0\n");
    assert_eq!(out("set -o pipefail; false | true; echo $?"), "1\n");
}

#[test]
fn redirections_and_heredocs() {
    let world = world_with(&[("/in.txt", "l1\nl2\n")]);
    let outcome = run_in(&world, "echo x > /out.txt; echo y >> /out.txt; cat /out.txt; while read l; do echo \"<$l>\"; done < /in.txt", "");
    assert_eq!(outcome.stdout, "x\ny\n<l1>\n<l2>\n");
    assert_eq!(out("cat <<EOF\nv=$((1+1))\nEOF"), "v=2\n");
    assert_eq!(out("read a b <<< 'here string'; echo $b"), "string\n");
}

#[test]
fn arrays() {
    assert_eq!(out("a=(x y z); a+=(w); echo ${#a[@]} ${a[-1]} ${!a[@]}"), "4 w 0 1 2 3\n");
    assert_eq!(out("declare -A m=([k]=v); m[j]=u; echo ${m[k]}${m[j]} ${#m[@]}"), "vu 2\n");
}

#[test]
fn errexit_and_traps() {
    let outcome = run("set -e; trap 'echo bye' EXIT; echo a; false; echo b");
    assert_eq!(outcome.stdout, "a\nbye\n");
    assert_eq!(outcome.status, 1);
    assert_eq!(out("set -e; f() { false; echo in; }; f || true; echo end"), "in\nend\n");
}

#[test]
fn errors_have_bash_statuses() {
    let missing = run("no_such_command_here");
    assert_eq!(missing.status, 127);
    assert!(missing.stderr.contains("no_such_command_here: command not found"));
    let syntax = run("echo )");
    assert_eq!(syntax.status, 2);
    assert!(syntax.stderr.contains("syntax error near unexpected token `)'"));
    assert_eq!(run("set -u; echo $nope").status, 127);
}

#[test]
fn globbing_on_the_fake_file_system() {
    let world = world_with(&[("/d/b.txt", ""), ("/d/a.txt", ""), ("/d/c.md", "")]);
    let outcome = run_in(&world, "cd /d; echo *.txt; echo *.none", "");
    assert_eq!(outcome.stdout, "a.txt b.txt\n*.none\n");
}

#[test]
fn seconds_can_be_set_before_the_clock_reaches_it() {
    assert_eq!(out("SECONDS=100; (( SECONDS >= 100 && SECONDS < 105 )) && echo ok"), "ok\n");
}

#[test]
fn temporary_path_is_searched_and_not_hashed() {
    assert_eq!(out("PATH=/nonexistent no_such_cmd 2>/dev/null; echo $?; hash"), "127\nhash: hash table empty\n");
    assert_eq!(out("hash -p /bin/foo foo; hash -t foo; PATH=/x true; hash"), "/bin/foo\nhash: hash table empty\n");
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
