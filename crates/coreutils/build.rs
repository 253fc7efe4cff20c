//! Generates the command registry from the files in src/cmd/: each `src/cmd/NAME.rs` is a
//! command called NAME (file names use `_` where the command has `-` or is a keyword, e.g.
//! `true_.rs`; the first line `//! command: NAME [ALIAS...]` overrides the name and lists
//! aliases). Each file exports `pub fn run(args: Vec<OsString>, io: &mut common::Io)`
//! returning `Result<i32, UError>` (the contract in common::args); one that does not fails
//! the build where the table names it.
//! So adding a command is adding one file: nobody edits a shared table.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

fn main() {
    let dir = Path::new("src/cmd");
    println!("cargo:rerun-if-changed=src/cmd");
    let mut entries: Vec<(String, Vec<String>)> = Vec::new();
    let mut files: Vec<_> = fs::read_dir(dir).expect("src/cmd exists").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    for path in files {
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 file name").to_string();
        let text = fs::read_to_string(&path).expect("readable command file");
        let mut names = vec![stem.trim_end_matches('_').replace('_', "-")];
        if let Some(line) = text.lines().find(|l| l.starts_with("//! command:")) {
            names = line["//! command:".len()..].split_whitespace().map(String::from).collect();
        }
        entries.push((stem, names));
    }
    let mut modules = String::new();
    let mut table = String::from("/// Every command: (name, entry point).\npub static COMMANDS: &[(&str, Command)] = &[\n");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    for (stem, names) in &entries {
        writeln!(modules, "#[path = \"{}/src/cmd/{}.rs\"]\npub mod cmd_{};", manifest_dir, stem, stem).unwrap();
        for name in names {
            writeln!(table, "    ({:?}, cmd_{}::run as Command),", name, stem).unwrap();
        }
    }
    table.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    fs::write(Path::new(&out_dir).join("registry.rs"), format!("{}\n{}", modules, table)).expect("write registry");
}
