//! `hash [-lr] [-p pathname] [-dt] [name ...]`: the table of remembered program paths.

use super::{done, fail, print, read_options};
use crate::exec::Flow;
use crate::shell::Shell;

struct Options {
    reset: bool,
    list: bool,
    delete: bool,
    print_paths: bool,
    path: Option<String>,
}

pub fn hash(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "hash", args, "lrp:dt");
    let options = Options { reset: given.has('r'), list: given.has('l'), delete: given.has('d'), print_paths: given.has('t'), path: given.value('p') };
    let names = &args[index..];
    if (options.delete || options.print_paths) && names.is_empty() {
        let letter = if options.delete { 'd' } else { 't' };
        return fail(shell, "hash", &format!("-{}: option requires an argument", letter), 1);
    }
    if options.reset {
        shell.hash.clear();
    }
    if names.is_empty() {
        if options.reset || options.path.is_some() {
            return done(shell, 0);
        }
        return list(shell, options.list);
    }
    if options.print_paths {
        return print_paths(shell, names);
    }
    let mut status = 0;
    for name in names {
        if options.delete {
            if !shell.hash.remove(name) {
                shell.report(&format!("hash: {}: not found", name));
                status = 1;
            }
            continue;
        }
        if let Some(path) = &options.path {
            shell.hash.insert(name, path, 0);
            continue;
        }
        if super::lookup(name).is_some() || shell.functions.contains_key(name) {
            continue;
        }
        shell.hash.remove(name);
        match shell.search_program(name, false) {
            Some(path) => shell.hash.insert(name, &path, 0),
            None => {
                shell.report(&format!("hash: {}: not found", name));
                status = 1;
            }
        }
    }
    done(shell, status)
}

/// The table, as `hits command` lines, or with `-l` as commands that rebuild it.
fn list(shell: &mut Shell, reusable: bool) -> Flow {
    if shell.hash.is_empty() {
        if !reusable {
            print(shell, "hash", "hash: hash table empty\n");
        }
        return done(shell, 0);
    }
    let mut out = String::new();
    if !reusable {
        out.push_str("hits\tcommand\n");
    }
    for (name, entry) in shell.hash.ordered() {
        if reusable {
            out.push_str(&format!("builtin hash -p {} {}\n", entry.path, name));
        } else {
            out.push_str(&format!("{:>4}\t{}\n", entry.hits, entry.path));
        }
    }
    print(shell, "hash", &out);
    done(shell, 0)
}

/// `hash -t`: the remembered path of one name, or `name<TAB>path` for several.
fn print_paths(shell: &mut Shell, names: &[String]) -> Flow {
    let mut status = 0;
    let mut out = String::new();
    for name in names {
        match shell.hash.lookup(name) {
            Some(path) if names.len() == 1 => out.push_str(&format!("{}\n", path)),
            Some(path) => out.push_str(&format!("{}\t{}\n", name, path)),
            None => {
                shell.report(&format!("hash: {}: not found", name));
                status = 1;
            }
        }
    }
    print(shell, "hash", &out);
    done(shell, status)
}
