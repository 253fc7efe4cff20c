//! Interpreter tests against the in-memory OS interface: fast, deterministic, no processes. They
//! cover the interpreter's own logic (and the child-shell path through the codec, since
//! the fake runs child shells in-process); bash compatibility at large is the YAML
//! suite under tests/compat/bash.

mod basics;
mod fuzz;
mod session;

use std::cell::RefCell;
use std::rc::Rc;

use crate::sys::fake::{FakeSys, World};
use crate::shell::{Mode, Shell};

pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
}

pub fn world_with(files: &[(&str, &str)]) -> Rc<RefCell<World>> {
    let world = Rc::new(RefCell::new(World::default()));
    {
        let mut w = world.borrow_mut();
        w.dirs.push("/bin".to_string());
        for program in ["cat", "true", "false"] {
            w.files.insert(format!("/bin/{}", program), Vec::new());
        }
        for (path, content) in files {
            let mut dir = String::new();
            for piece in path.split('/').filter(|p| !p.is_empty()).collect::<Vec<_>>().split_last().map(|(_, d)| d.to_vec()).unwrap_or_default() {
                dir.push('/');
                dir.push_str(piece);
                if !w.dirs.contains(&dir) {
                    w.dirs.push(dir.clone());
                }
            }
            w.files.insert(path.to_string(), content.as_bytes().to_vec());
        }
    }
    world
}

/// A shell on the fake OS interface, as `bash -c` starts.
pub fn shell_on(world: &Rc<RefCell<World>>, stdin: &str) -> Shell {
    let sys = FakeSys::new(world.clone(), stdin);
    let mut shell = Shell::new(Box::new(sys), Mode::Command);
    let environment = shell.sys.environment();
    shell.init_variables(&environment);
    shell.options.extra_flags.push('c');
    shell
}

pub fn run_in(world: &Rc<RefCell<World>>, script: &str, stdin: &str) -> Outcome {
    let mut shell = shell_on(world, stdin);
    let (_, syntax_error) = shell.run_source(script, "-c", 1);
    if let Some(status) = syntax_error {
        shell.status = status;
    }
    let status = shell.finish();
    let mut w = world.borrow_mut();
    let stdout = String::from_utf8_lossy(&w.outputs[0]).into_owned();
    let stderr = String::from_utf8_lossy(&w.outputs[1]).into_owned();
    w.outputs[0].clear();
    w.outputs[1].clear();
    Outcome { stdout, stderr, status }
}

pub fn run(script: &str) -> Outcome {
    run_in(&world_with(&[]), script, "")
}

/// The script's standard output (asserting it succeeded).
pub fn out(script: &str) -> String {
    let outcome = run(script);
    assert_eq!(outcome.status, 0, "{:?} failed: {}", script, outcome.stderr);
    outcome.stdout
}
