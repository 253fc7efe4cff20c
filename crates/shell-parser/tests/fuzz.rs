//! The parser never panics and never loops, whatever the input: random scripts built from
//! shell fragments, mutations of real ones, and raw bytes. A seeded generator keeps runs
//! reproducible; set SHELL_FUZZ_CASES to run more.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

const FRAGMENTS: &[&str] = &[
    "echo", " ", "\n", ";", "&&", "||", "|", "|&", "&", "(", ")", "{", "}", "((", "))", "[[", "]]", "if", "then", "else",
    "elif", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", ";;", ";&", ";;&", "function", "f()", "$",
    "${", "$(", "$((", "`", "'", "\"", "\\", "$'", "<<", "<<-", "<<<", ">", ">>", "<", ">&", "<&", "&>", "2>&1", "x=",
    "a[", "]", "=(", "{a,b}", "{1..3}", "*", "?", "[a-z]", "~", "#", "!", "@(", "+(", "!(", "${x:-", "${#", "${!",
    "${x/", "${x:1:2}", "$@", "$*", "$#", "$?", "EOF", "'EOF'", "=~", "==", "-eq", "-f", "$[", "<(", ">(", "\t", "x",
    "y", "1", "0", "select", "time", "-p", "coproc", "declare", "local", "a=(1 2)", "[1]=", "+=", ":", ",", "..", "%",
    "#", "/", "//", "^^", ",,", "@Q",
];

const SAMPLES: &[&str] = &[
    "for i in 1 2 3; do echo \"$i\"; done",
    "f() { local x=${1:-d}; echo ${x//a/b}; }; f a",
    "case $x in a|b) echo ab;; *) echo other;; esac",
    "cat <<EOF\nhello $x $(date)\nEOF\n",
    "if [[ $a =~ ^([0-9]+)$ ]]; then echo ${BASH_REMATCH[1]}; fi",
    "while read -r l; do echo \"$l\"; done < <(printf 'a\\nb')",
    "a=(1 2 [5]=x); echo ${a[@]:1} ${#a[@]} ${!a[@]}",
    "(( i = 2 ** 3, j = i > 4 ? 1 : 0 )); echo $((i+j))",
    "x=$(echo $(echo `echo deep`)); echo \"${x^^}\"",
    "{ echo a; echo b >&2; } 2>&1 | sort; echo ${PIPESTATUS[@]}",
];

fn parse_everything(source: &str) {
    let mut parser = shell_parser::Parser::new(source);
    // Each successful call consumes input, so this ends; bound it anyway.
    for _ in 0..source.len() + 2 {
        match parser.next_command() {
            Ok(Some(_)) => continue,
            Ok(None) | Err(_) => break,
        }
    }
    let _ = shell_parser::arith::parse_arith(source);
    let _ = shell_parser::parse_text(source);
}

fn random_script(rng: &mut StdRng) -> String {
    let count = rng.gen_range(1..40);
    (0..count).map(|_| FRAGMENTS[rng.gen_range(0..FRAGMENTS.len())]).collect()
}

fn mutate(rng: &mut StdRng, sample: &str) -> String {
    let mut bytes = sample.as_bytes().to_vec();
    for _ in 0..rng.gen_range(1..6) {
        if bytes.is_empty() {
            break;
        }
        let at = rng.gen_range(0..bytes.len());
        match rng.gen_range(0..4) {
            0 => {
                bytes.remove(at);
            }
            1 => {
                let specials = b"(){}[]$`'\"\\;|&<>\n#~*";
                bytes.insert(at, specials[rng.gen_range(0..specials.len())]);
            }
            2 => {
                let end = rng.gen_range(at..bytes.len());
                let piece = bytes[at..end].to_vec();
                bytes.splice(at..at, piece);
            }
            _ => bytes.truncate(at),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn parser_survives_random_and_mutated_scripts() {
    let cases: usize = std::env::var("SHELL_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let mut rng = StdRng::seed_from_u64(0x5eed_0f_ba5);
    let started = Instant::now();
    let mut slowest = Duration::ZERO;
    for i in 0..cases {
        let script = match i % 4 {
            0 | 1 => random_script(&mut rng),
            2 => {
                let sample = SAMPLES[rng.gen_range(0..SAMPLES.len())];
                mutate(&mut rng, sample)
            }
            _ => {
                let len = rng.gen_range(0..64);
                let bytes: Vec<u8> = (0..len).map(|_| rng.gen_range(0..128u8)).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        let one = Instant::now();
        parse_everything(&script);
        let took = one.elapsed();
        slowest = slowest.max(took);
        assert!(took < Duration::from_secs(1), "parsing took {:?} on {:?}", took, script);
    }
    assert!(started.elapsed() < Duration::from_secs(60), "{} cases took {:?}", cases, started.elapsed());
}

#[test]
fn parser_survives_deep_nesting() {
    for open in ["(", "$(", "{ ", "${x:-", "$((", "`", "\"$(", "[[ ( ", "if true; then ", "a=(", "case x in x) "] {
        let source = open.repeat(5000);
        parse_everything(&source);
    }
}
