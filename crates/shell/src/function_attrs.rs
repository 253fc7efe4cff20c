//! Attributes of functions: exported (`export -f`, passed to programs as bash does, in
//! `BASH_FUNC_name%%=() { ...}` environment entries that a shell started from them
//! defines again) and readonly (`readonly -f`: neither redefined nor unset).

use std::rc::Rc;

use shell_parser::ast::{Command, FunctionDef};

use crate::shell::Shell;

pub const EXPORTED: u8 = 1;
pub const READONLY: u8 = 2;

const PREFIX: &str = "BASH_FUNC_";
const SUFFIX: &str = "%%";

impl Shell {
    pub fn function_has(&self, name: &str, attribute: u8) -> bool {
        self.function_attrs.get(name).map_or(false, |a| a & attribute != 0)
    }

    /// Defines (or redefines) a function; a readonly one is refused, as in bash.
    pub(crate) fn define_function(&mut self, def: &Rc<FunctionDef>) -> bool {
        if self.function_has(&def.name, READONLY) {
            self.report(&format!("{}: readonly function", def.name));
            return false;
        }
        self.functions.insert(def.name.clone(), def.clone());
        true
    }

    /// The environment entries of exported functions.
    pub(crate) fn function_environment(&self) -> Vec<String> {
        let mut entries = Vec::new();
        for (name, attributes) in &self.function_attrs {
            if attributes & EXPORTED == 0 {
                continue;
            }
            if let Some(def) = self.functions.get(name) {
                let text = shell_parser::printer::function_to_string(def);
                // `name () \n{ ...}` becomes `() { ...}`, the value bash writes.
                let body = text.splitn(2, '\n').nth(1).unwrap_or("{ :; }");
                entries.push(format!("{}{}{}=() {}", PREFIX, name, SUFFIX, body));
            }
        }
        entries
    }

    /// Defines the functions exported to this shell. An entry counts only when its whole
    /// value parses as one function definition (no command rides along with it).
    pub(crate) fn import_functions(&mut self, environment: &[String]) {
        for entry in environment {
            let (key, value) = match entry.split_once('=') {
                Some(pair) => pair,
                None => continue,
            };
            let name = match key.strip_prefix(PREFIX).and_then(|rest| rest.strip_suffix(SUFFIX)) {
                Some(name) if shell_parser::is_name(name) && value.starts_with("() {") => name,
                _ => continue,
            };
            let list = match shell_parser::parse(&format!("{} {}", name, value)) {
                Ok(list) => list,
                Err(_) => continue,
            };
            if let [item] = list.items.as_slice() {
                if let (true, false, [Command::Function(def)]) = (item.and_or.rest.is_empty(), item.background, item.and_or.first.commands.as_slice()) {
                    if def.name == name {
                        self.functions.insert(def.name.clone(), def.clone());
                        self.function_attrs.insert(def.name.clone(), EXPORTED);
                    }
                }
            }
        }
    }
}
