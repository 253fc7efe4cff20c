//! `declare`/`typeset`, `local`, and the listing formats `export -p`, `readonly -p` and
//! `declare -p` share.

use super::{done, fail, print, read_options};
use crate::exec::Flow;
use crate::expand::DeclArg;
use crate::shell::Shell;
use crate::vars::{attr, Assoc, Key, Value, Var};

/// Which builtin is declaring (they differ in defaults and messages).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Declare,
    Local,
    Export,
    Readonly,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Declare => "declare",
            Mode::Local => "local",
            Mode::Export => "export",
            Mode::Readonly => "readonly",
        }
    }
}

pub fn declare(shell: &mut Shell, args: &[String]) -> Flow {
    let name = if args[0] == "typeset" { "typeset" } else { "declare" };
    run(shell, args, Mode::Declare, name)
}

pub fn local(shell: &mut Shell, args: &[String]) -> Flow {
    if shell.vars.depth() == 0 {
        return fail(shell, "local", "can only be used in a function", 1);
    }
    run(shell, args, Mode::Local, "local")
}

#[derive(Default)]
struct Flags {
    set: u16,
    unset: u16,
    array: bool,
    assoc: bool,
    functions: bool,
    function_names: bool,
    global: bool,
    print: bool,
}

/// The common implementation of the declaration builtins.
pub fn run(shell: &mut Shell, args: &[String], mode: Mode, name: &str) -> Flow {
    let decl = std::mem::take(&mut shell.decl_args);
    let mut flags = Flags::default();
    match mode {
        Mode::Export => flags.set |= attr::EXPORT,
        Mode::Readonly => flags.set |= attr::READONLY,
        _ => {}
    }
    // The letters each builtin takes (bash's `-c` and `-I` are not supported); only
    // `declare`, `typeset` and `local` take `+x` to remove an attribute.
    let spec = match mode {
        Mode::Declare | Mode::Local => "+aAfFgilnprtux",
        Mode::Export => "fnp",
        Mode::Readonly => "aAfnp",
    };
    let (given, index) = read_options!(shell, name, args, spec);
    for option in given.given {
        let on = !option.plus;
        let bit = match option.letter {
            'x' => attr::EXPORT,
            'r' => attr::READONLY,
            'i' => attr::INTEGER,
            'l' => attr::LOWER,
            'u' => attr::UPPER,
            // `export -n` removes the export attribute.
            'n' if mode == Mode::Export => {
                flags.unset |= attr::EXPORT;
                flags.set &= !attr::EXPORT;
                0
            }
            'n' => attr::NAMEREF,
            't' => attr::TRACE,
            'a' => {
                flags.array = on;
                0
            }
            'A' => {
                flags.assoc = on;
                0
            }
            'f' => {
                flags.functions = true;
                0
            }
            'F' => {
                flags.function_names = true;
                0
            }
            'g' => {
                flags.global = true;
                0
            }
            _ => {
                flags.print = true;
                0
            }
        };
        if on {
            flags.set |= bit;
            if bit == attr::LOWER {
                flags.set &= !attr::UPPER;
            }
            if bit == attr::UPPER {
                flags.set &= !attr::LOWER;
            }
        } else {
            flags.unset |= bit;
        }
    }
    if mode == Mode::Export && flags.unset & attr::EXPORT != 0 {
        flags.set &= !attr::EXPORT;
    }
    let operands = &args[index..];
    let function_attrs = (flags.set | flags.unset) & (attr::EXPORT | attr::READONLY);
    if flags.functions && function_attrs != 0 {
        return function_attributes(shell, operands, &flags, mode, name);
    }
    if flags.functions || flags.function_names {
        return functions(shell, operands, flags.function_names, name);
    }
    if operands.is_empty() && (flags.print || flags.set | flags.unset != 0 || mode != Mode::Declare || !(flags.array || flags.assoc)) {
        return list(shell, &flags, mode);
    }
    if operands.is_empty() {
        return list(shell, &flags, mode);
    }
    if flags.print {
        let mut status = 0;
        for operand in operands {
            match declaration(shell, operand) {
                Some(text) => {
                    print(shell, name, &format!("{}\n", text));
                }
                None => {
                    shell.report(&format!("{}: {}: not found", name, operand));
                    status = 1;
                }
            }
        }
        return done(shell, status);
    }
    let mut status = 0;
    for (offset, operand) in operands.iter().enumerate() {
        let arg_index = index + offset;
        let structured = decl.iter().find(|d| d.index == arg_index).cloned();
        if let Err(message) = declare_one(shell, operand, structured, &flags, mode) {
            // export and readonly name only the variable for this one, as bash does.
            if message.ends_with(": readonly variable") && matches!(mode, Mode::Export | Mode::Readonly) {
                shell.report(&message);
            } else {
                shell.report(&format!("{}: {}", name, message));
            }
            status = 1;
        }
    }
    done(shell, status)
}

fn declare_one(shell: &mut Shell, operand: &str, structured: Option<DeclArg>, flags: &Flags, mode: Mode) -> Result<(), String> {
    let (target, assignment) = match &structured {
        Some(arg) => (arg.name.clone(), None),
        None => match operand.find('=') {
            Some(eq) => {
                let (lhs, value) = (&operand[..eq], &operand[eq + 1..]);
                let (lhs, append) = match lhs.strip_suffix('+') {
                    Some(lhs) => (lhs, true),
                    None => (lhs, false),
                };
                (lhs.to_string(), Some((value.to_string(), append)))
            }
            None => (operand.to_string(), None),
        },
    };
    let (base, subscript) = match target.find('[') {
        Some(open) if target.ends_with(']') => (target[..open].to_string(), Some(target[open + 1..target.len() - 1].to_string())),
        _ => (target.clone(), None),
    };
    if !shell_parser::is_name(&base) {
        return Err(format!("`{}': not a valid identifier", operand));
    }
    let local = (mode == Mode::Local || mode == Mode::Declare) && !flags.global && shell.vars.depth() > 0;
    if let Some(var) = shell.vars.get(&base) {
        // A readonly variable can be neither changed nor shadowed by a local one.
        let shadowing = local && !shell.vars.is_local_here(&base);
        if var.has(attr::READONLY) && (assignment.is_some() || structured.is_some() || flags.unset & attr::READONLY != 0 || shadowing) {
            return Err(format!("{}: readonly variable", base));
        }
    }
    // Create the variable in the right scope.
    let exists_here = if local { shell.vars.is_local_here(&base) } else { shell.vars.get(&base).is_some() };
    if local {
        if !exists_here {
            let outer = shell.vars.get(&base).cloned();
            let inherited = if mode == Mode::Local || mode == Mode::Declare { None } else { outer.clone() };
            let var = shell.vars.declare_local(&base);
            if let Some(inherited) = inherited {
                *var = inherited;
            } else if let Some(outer) = outer {
                // A new local keeps the export attribute of the variable it hides.
                var.attrs |= outer.attrs & attr::EXPORT;
            }
        }
    } else if flags.global {
        shell.vars.global_mut(&base);
    } else if !exists_here {
        let _ = shell.vars.lookup_or_create(&base);
    }
    {
        let var = if local {
            shell.vars.declare_local(&base)
        } else if flags.global {
            shell.vars.global_mut(&base)
        } else {
            match shell.vars.lookup_or_create(&base) {
                Ok(var) => var,
                Err(_) => return Err(format!("{}: circular name reference", base)),
            }
        };
        var.attrs = (var.attrs | (flags.set & !attr::READONLY)) & !flags.unset;
        if (flags.assoc || flags.array) && var.value == Value::Unset && assignment.is_none() && structured.is_none() {
            var.attrs |= attr::NO_VALUE;
        }
        if flags.assoc && !matches!(var.value, Value::Assoc(_)) {
            if matches!(var.value, Value::Indexed(_)) {
                return Err(format!("{}: cannot convert indexed to associative array", base));
            }
            var.value = Value::Assoc(Assoc::new());
        } else if flags.array && !matches!(var.value, Value::Indexed(_) | Value::Assoc(_)) {
            let mut map = std::collections::BTreeMap::new();
            if let Value::Scalar(s) = &var.value {
                map.insert(0, s.clone());
            }
            var.value = Value::Indexed(map);
        }
    }
    let result = match (structured, assignment, subscript) {
        (Some(arg), _, _) => shell.assign_array(&base, arg.value, arg.append).map_err(|e| e.message()),
        (None, Some((value, append)), Some(sub)) => {
            let key = if shell.is_assoc(&base) { Key::Name(sub) } else { Key::Index(shell.eval_arith_text(&sub)?) };
            shell.assign_element(&base, key, value, append).map_err(|e| e.message())
        }
        (None, Some((value, append)), None) => {
            if shell.vars.get(&base).map_or(false, |v| v.value.is_array()) && !append {
                shell.assign_element(&base, Key::Index(0), value, false).map_err(|e| e.message())
            } else if flags.set & attr::NAMEREF != 0 {
                if let Some(var) = shell.vars.get_raw(&base).cloned() {
                    let mut var = var;
                    var.value = Value::Scalar(value);
                    shell.vars.put(&base, Some(var));
                }
                Ok(())
            } else {
                shell.assign_scalar(&base, value, append).map_err(|e| e.message())
            }
        }
        (None, None, _) => Ok(()),
    };
    if flags.set & attr::READONLY != 0 {
        if let Some(var) = shell.vars.get_mut(&base) {
            var.attrs |= attr::READONLY;
        }
    }
    result
}

/// The function bits for the variable attributes `-x` and `-r`.
fn function_bits(attrs: u16) -> u8 {
    let mut bits = 0;
    if attrs & attr::EXPORT != 0 {
        bits |= crate::function_attrs::EXPORTED;
    }
    if attrs & attr::READONLY != 0 {
        bits |= crate::function_attrs::READONLY;
    }
    bits
}

/// `export -f f`, `readonly -f f`, `declare -fx f`, `export -fn f`; without names, the
/// functions that have the attribute, each followed by its `declare -f…` line.
fn function_attributes(shell: &mut Shell, names: &[String], flags: &Flags, mode: Mode, builtin: &str) -> Flow {
    let set = function_bits(flags.set);
    let unset = function_bits(flags.unset);
    if names.is_empty() {
        let mut listed: Vec<String> = shell.function_attrs.iter().filter(|(_, a)| *a & set == set && set != 0).map(|(n, _)| n.clone()).collect();
        listed.sort_unstable_by(|a, b| crate::text::collate(a, b));
        let mut out = String::new();
        for name in listed {
            if let Some(def) = shell.functions.get(&name).cloned() {
                let attributes = shell.function_attrs.get(&name).copied().unwrap_or(0);
                let letters = format!(
                    "{}{}",
                    if attributes & crate::function_attrs::READONLY != 0 { "r" } else { "" },
                    if attributes & crate::function_attrs::EXPORTED != 0 { "x" } else { "" }
                );
                out.push_str(&format!("{}\ndeclare -f{} {}\n", shell_parser::printer::function_to_string(&def), letters, name));
            }
        }
        print(shell, builtin, &out);
        return done(shell, 0);
    }
    let mut status = 0;
    for name in names {
        if !shell.functions.contains_key(name) {
            if mode != Mode::Declare {
                shell.report(&format!("{}: {}: not a function", builtin, name));
            }
            status = 1;
            continue;
        }
        let entry = shell.function_attrs.entry(name.clone()).or_insert(0);
        // As in bash, readonly cannot be taken away.
        *entry = (*entry | set) & !(unset & !crate::function_attrs::READONLY);
    }
    done(shell, status)
}

/// `declare -f` / `-F`.
fn functions(shell: &mut Shell, names: &[String], only_names: bool, builtin: &str) -> Flow {
    let mut selected: Vec<String> = if names.is_empty() {
        function_names(shell)
    } else {
        names.to_vec()
    };
    selected.dedup();
    let mut status = 0;
    let mut out = String::new();
    for name in selected {
        match shell.functions.get(&name).cloned() {
            Some(def) => {
                if only_names && names.is_empty() {
                    out.push_str(&format!("declare -f {}\n", name));
                } else if only_names {
                    out.push_str(&format!("{}\n", name));
                } else {
                    out.push_str(&shell_parser::printer::function_to_string(&def));
                    out.push('\n');
                }
            }
            None => status = 1,
        }
    }
    let _ = builtin;
    print(shell, "declare", &out);
    done(shell, status)
}

/// Listing variables: `declare -p`, `export -p`, `readonly -p`, `declare` (set-style).
fn list(shell: &mut Shell, flags: &Flags, mode: Mode) -> Flow {
    let mut out = String::new();
    let set_style = mode == Mode::Declare && !flags.print && flags.set == 0;
    for name in shell.vars.names() {
        let var = match shell.vars.get_raw(&name) {
            Some(var) => var.clone(),
            None => continue,
        };
        if var.has(attr::DYNAMIC) && !matches!(name.as_str(), "BASH_VERSINFO") {
            continue;
        }
        if flags.set != 0 && var.attrs & flags.set != flags.set {
            continue;
        }
        if flags.array && !matches!(var.value, Value::Indexed(_)) || flags.assoc && !matches!(var.value, Value::Assoc(_)) {
            continue;
        }
        if set_style {
            if let Some(line) = set_line(&name, &var) {
                out.push_str(&line);
                out.push('\n');
            }
        } else if let Some(text) = declaration(shell, &name) {
            out.push_str(&text);
            out.push('\n');
        }
    }
    if set_style {
        out.push_str(&function_definitions(shell));
    }
    print(shell, mode.name(), &out);
    done(shell, 0)
}

/// The names of the defined functions, in the locale's order.
fn function_names(shell: &Shell) -> Vec<String> {
    let mut names: Vec<String> = shell.functions.keys().cloned().collect();
    names.sort_unstable_by(|a, b| crate::text::collate(a, b));
    names
}

/// Every function's definition, in name order, as `set` and `declare` list them.
pub fn function_definitions(shell: &Shell) -> String {
    let mut out = String::new();
    for name in function_names(shell) {
        if let Some(def) = shell.functions.get(&name) {
            out.push_str(&shell_parser::printer::function_to_string(def));
            out.push('\n');
        }
    }
    out
}

/// `name=value` as `set` lists it.
pub fn set_line(name: &str, var: &Var) -> Option<String> {
    Some(match &var.value {
        Value::Unset => return None,
        Value::Scalar(s) => format!("{}={}", name, quote_for_set(s)),
        value @ (Value::Indexed(_) | Value::Assoc(_)) => format!("{}={}", name, array_body(value)),
    })
}

fn quote_for_set(value: &str) -> String {
    if crate::text::needs_ansi_c(value) {
        crate::text::ansi_c_quote(value)
    } else if crate::text::needs_quoting(value) || value.is_empty() && false {
        crate::text::single_quote(value)
    } else {
        value.to_string()
    }
}

fn array_body(value: &Value) -> String {
    match value {
        Value::Indexed(map) => {
            let items: Vec<String> = map.iter().map(|(k, v)| format!("[{}]={}", k, crate::text::declare_quote(v))).collect();
            format!("({})", items.join(" "))
        }
        Value::Assoc(assoc) => {
            let mut body = String::from("(");
            for (k, v) in assoc.pairs_in_order() {
                let key = if crate::text::needs_quoting(&k) { crate::text::declare_quote(&k) } else { k };
                body.push_str(&format!("[{}]={} ", key, crate::text::declare_quote(&v)));
            }
            body.push(')');
            body
        }
        _ => String::new(),
    }
}

/// The attribute letters bash shows (`declare -p`, `${x@a}`).
pub fn attribute_flags(var: &Var) -> String {
    let mut flags = String::new();
    if matches!(var.value, Value::Indexed(_)) {
        flags.push('a');
    }
    if matches!(var.value, Value::Assoc(_)) {
        flags.push('A');
    }
    for (bit, letter) in [
        (attr::INTEGER, 'i'),
        (attr::NAMEREF, 'n'),
        (attr::READONLY, 'r'),
        (attr::TRACE, 't'),
        (attr::EXPORT, 'x'),
        (attr::LOWER, 'l'),
        (attr::UPPER, 'u'),
    ] {
        if var.has(bit) {
            flags.push(letter);
        }
    }
    flags
}

/// `declare -p name` output, or `None` if there is no such variable.
pub fn declaration(shell: &mut Shell, name: &str) -> Option<String> {
    let var = shell.vars.get_raw(name)?.clone();
    let value = if var.has(attr::DYNAMIC) { shell.get_value(name).unwrap_or(Value::Unset) } else { var.value.clone() };
    let mut flags = attribute_flags(&Var { value: value.clone(), attrs: var.attrs });
    if flags.is_empty() {
        flags.push('-');
    }
    Some(match &value {
        Value::Unset => format!("declare -{} {}", flags, name),
        _ if var.has(attr::NO_VALUE) && value.is_empty() => format!("declare -{} {}", flags, name),
        Value::Scalar(s) => format!("declare -{} {}={}", flags, name, crate::text::declare_quote(s)),
        other => format!("declare -{} {}={}", flags, name, array_body(other)),
    })
}
