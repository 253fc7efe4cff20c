//! The interpreter never panics, whatever it runs: random scripts from shell fragments
//! and mutations of real ones, on the fake OS interface (runs end after a poll budget, so loops
//! stop; child processes are bounded).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{shell_on, world_with};

const FRAGMENTS: &[&str] = &[
    "echo ", "x=1 ", "$x ", "${x:-d} ", "${x#?} ", "${x/a/b} ", "${#x} ", "${x:1:2} ", "${a[@]} ", "${a[i]} ", "a=(1 2) ",
    "a[2]=x ", "$((1+2)) ", "$((x/0)) ", "$((08)) ", "$(echo hi) ", "`echo b` ", "\"$@\" ", "$* ", "; ", "&& ", "|| ",
    "| ", "& ", "\n", "if true; then echo y; fi ", "for i in 1 2; do echo $i; done ", "while false; do :; done ",
    "case $x in 1) echo one;; *) echo other;; esac ", "f() { echo f; } ", "f ", "(echo sub) ", "{ echo grp; } ",
    "[[ $x == 1 ]] ", "[ -n $x ] ", "(( x++ )) ", "let x+=2 ", "read v <<< hi ", "printf '%s %d\\n' a 3 ", "cat ",
    "> /tmp/o ", "< /tmp/o ", "2>&1 ", "<<EOF\nbody\nEOF\n", "set -e ", "set -u ", "set -x ", "shopt -s nullglob ",
    "trap 'echo t' EXIT ", "return ", "break ", "continue 2 ", "exit 3 ", "local y ", "declare -A m ", "m[k]=v ",
    "unset x ", "shift ", "eval 'echo e' ", "exec 3>/tmp/f ", "echo >&3 ", "printf -v z %s q ", "mapfile -t l <<< a ",
    "getopts ab o ", "kill -0 $$ ", "wait ", "jobs ", "cd /tmp ", "pushd / ", "popd ", "type f ", "command -v echo ",
    "alias q=echo ", "* ", "?[ab] ", "{1..3} ", "{a,b} ", "~/x ", "\"", "'", "\\", "$", "(", ")", "{", "}", "[[", "]]",
    "${", "$((", "`", ";;", "done ", "fi ", "esac ", "x+=(3) ", "${!x} ", "${x@Q} ", "${a[@]:1} ", "$RANDOM ",
    "f() { f; } ", "g() { (g); } ", "select s in a; do break; done ", "time true ", "! false ", "coproc ",
];

fn script(rng: &mut StdRng) -> String {
    (0..rng.gen_range(1..25)).map(|_| FRAGMENTS[rng.gen_range(0..FRAGMENTS.len())]).collect()
}

#[test]
fn interpreter_survives_random_scripts() {
    let cases: usize = std::env::var("SHELL_INTERP_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    // Deep (bounded) recursion needs more than a test thread's stack.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let mut rng = StdRng::seed_from_u64(0x5_ba5e);
            for _ in 0..cases {
                let source = script(&mut rng);
                let world = world_with(&[("/tmp/o", "data\n")]);
                world.borrow_mut().poll_budget = Some(50);
                let mut shell = shell_on(&world, "input\n");
                let _ = shell.run_source(&source, "-c", 1);
                let _ = shell.finish();
            }
        })
        .expect("thread starts")
        .join()
        .expect("no panic while interpreting random scripts");
}
