//! The session protocol and state serialization.

use super::{shell_on, world_with};
use crate::session::run_request;
use crate::state::decode_state;

type World = std::rc::Rc<std::cell::RefCell<crate::sys::fake::World>>;

fn request(command: &str) -> Vec<u8> {
    let escaped = command.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    format!("{{\"runId\":1,\"command\":\"{}\",\"cwd\":null,\"env\":{{}}}}", escaped).into_bytes()
}

/// A fresh session shell and the fake world it writes to.
fn session() -> (World, crate::shell::Shell) {
    let world = world_with(&[]);
    let shell = shell_on(&world, "");
    (world, shell)
}

/// A second session restored from `shell`'s serialized state, as a new worker would start.
fn restored_from(shell: &mut crate::shell::Shell) -> (World, crate::shell::Shell) {
    let state = decode_state(&shell.state_bytes()).expect("state decodes");
    let (world, mut restored) = session();
    restored.restore(state);
    (world, restored)
}

fn take_stdout(world: &World) -> String {
    let mut w = world.borrow_mut();
    let text = String::from_utf8_lossy(&w.outputs[0]).into_owned();
    w.outputs[0].clear();
    text
}

#[test]
fn state_carries_over_between_runs() {
    let (world, mut shell) = session();
    assert_eq!(run_request(&mut shell, &request("x=1; f() { echo \"f:$x\"; }; alias hi='echo hi'")), 0);
    assert_eq!(run_request(&mut shell, &request("f; x=2")), 0);
    assert_eq!(take_stdout(&world), "f:1\n");
    assert_eq!(run_request(&mut shell, &request("exit 3")), 3);
    assert_eq!(run_request(&mut shell, &request("echo $x")), 0);
    assert_eq!(take_stdout(&world), "2\n");
}

#[test]
fn state_survives_serialization() {
    let (_world, mut shell) = session();
    run_request(&mut shell, &request("declare -A m=([k]=v); a=(1 2); export E=e; set -o pipefail; g() { echo \"g ${m[k]} ${a[1]}\"; }; cd /tmp; trap 'echo t' USR1"));
    let (world2, mut restored) = restored_from(&mut shell);
    run_request(&mut restored, &request("g; echo $E $PWD; [[ -o pipefail ]] && echo pf; trap -p USR1"));
    assert_eq!(take_stdout(&world2), "g v 2\ne /tmp\npf\ntrap -- 'echo t' SIGUSR1\n");
}

#[test]
fn env_in_a_request_is_for_that_run() {
    let (world, mut shell) = session();
    let body = b"{\"runId\":1,\"command\":\"echo $V\",\"cwd\":\"/tmp\",\"env\":{\"V\":\"x\"}}";
    assert_eq!(run_request(&mut shell, body), 0);
    run_request(&mut shell, &request("echo \"[$V]\" $PWD"));
    assert_eq!(take_stdout(&world), "x\n[] /tmp\n");
}

#[test]
fn exit_trap_runs_at_the_end_of_its_run() {
    let (world, mut shell) = session();
    assert_eq!(run_request(&mut shell, &request("trap 'echo bye' EXIT; echo hi; exit 4")), 4);
    assert_eq!(run_request(&mut shell, &request("echo next; echo $-")), 0);
    assert_eq!(take_stdout(&world), "hi\nbye\nnext\nhBc\n");
}

#[test]
fn corrupt_state_is_rejected() {
    assert!(decode_state(b"not a state").is_err());
}

#[test]
fn history_keeps_one_entry_per_run_and_survives_serialization() {
    let (_world, mut shell) = session();
    run_request(&mut shell, &request("x=1\n"));
    run_request(&mut shell, &request("echo $x >/dev/null"));
    let (world2, mut restored) = restored_from(&mut shell);
    run_request(&mut restored, &request("history"));
    assert_eq!(take_stdout(&world2), "    1  x=1\n    2  echo $x >/dev/null\n    3  history\n");
    run_request(&mut restored, &request("history 1; history -c"));
    run_request(&mut restored, &request("history"));
    assert_eq!(take_stdout(&world2), "    4  history 1; history -c\n    1  history\n");
}

#[test]
fn session_limits_are_parsed_and_reach_child_shells() {
    use crate::session::parse_limits;
    let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let limits = parse_limits(&args(&["--call-depth=7", "--substitution-depth=3"])).expect("valid limits");
    assert_eq!((limits.call_depth, limits.substitution_depth), (7, 3));
    assert_eq!(parse_limits(&[]).expect("defaults"), crate::shell::Limits::default());
    assert!(parse_limits(&args(&["--call-depth=0"])).is_err());
    assert!(parse_limits(&args(&["--call-depth=x"])).is_err());
    assert!(parse_limits(&args(&["--stack=5"])).is_err());

    let (world, mut shell) = session();
    shell.limits = limits;
    // Recursion past callDepth names the limit; FUNCNEST below it keeps bash's message.
    assert_eq!(run_request(&mut shell, &request("f() { f; }; f; echo same line\necho \"next $?\"")), 0);
    assert_eq!(run_request(&mut shell, &request("FUNCNEST=4; g() { g; }; g\nunset FUNCNEST")), 0);
    // `$( )` nesting past substitutionDepth, reached at run time in child shells.
    let nested = "h() { if (($1 > 0)); then v=$(h $(($1 - 1))) || return; echo \"$v\"; else echo bottom; fi; }";
    assert_eq!(run_request(&mut shell, &request(&format!("{}; h 2", nested))), 0);
    assert_eq!(run_request(&mut shell, &request(&format!("{}; h 5; echo \"status $?\"", nested))), 0);
    let stdout = take_stdout(&world);
    assert_eq!(stdout, "next 1\nbottom\nstatus 1\n");
    let stderr = String::from_utf8_lossy(&world.borrow().outputs[1]).into_owned();
    assert!(stderr.contains("f: maximum function nesting level exceeded (7) (the sandbox's callDepth limit)"), "{}", stderr);
    assert!(stderr.contains("g: maximum function nesting level exceeded (4)\n"), "{}", stderr);
    assert!(stderr.contains("nesting deeper than 3 levels (the sandbox's substitutionDepth limit)"), "{}", stderr);
    // The limits travel with the state.
    let state = decode_state(&shell.state_bytes()).expect("state decodes");
    assert_eq!(state.limits, (7, 3));
}
