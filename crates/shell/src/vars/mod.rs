//! Shell variables with bash's dynamic scoping.
//!
//! Each name maps to a stack of definitions, one per function scope that declared it
//! (`local`), so a lookup is one hash probe whatever the call depth. A function's return
//! pops the definitions it made.

mod access;
mod assoc;
pub mod special;
mod value;

pub use access::{resolve_index, AssignError, Key};
pub use assoc::{bucket, Assoc};
pub use value::{Value, Var};

use crate::hash::FastMap;

/// Attribute bits (`declare -x -r -i -l -u -n`).
pub mod attr {
    pub const EXPORT: u16 = 1;
    pub const READONLY: u16 = 2;
    pub const INTEGER: u16 = 4;
    pub const LOWER: u16 = 8;
    pub const UPPER: u16 = 16;
    pub const NAMEREF: u16 = 32;
    pub const TRACE: u16 = 64;
    /// Computed on read (RANDOM, SECONDS, ...); loses the property when unset.
    pub const DYNAMIC: u16 = 128;
    /// An array declared without a value (`declare -a a`): `declare -p` shows no `=()`
    /// until something is assigned.
    pub const NO_VALUE: u16 = 256;
}

#[derive(Debug, Clone)]
struct Slot {
    depth: u32,
    var: Var,
}

/// Why an assignment did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarError {
    Readonly(String),
    /// `declare -n r=r` and longer reference loops.
    NamerefLoop(String),
}

#[derive(Debug, Clone, Default)]
pub struct Variables {
    slots: FastMap<String, Vec<Slot>>,
    /// Names declared local in each function scope (index = depth - 1).
    frames: Vec<Vec<String>>,
}

const MAX_NAMEREF_HOPS: usize = 8;

impl Variables {
    pub fn new() -> Variables {
        Variables::default()
    }

    /// The current function depth (0 = global).
    pub fn depth(&self) -> u32 {
        self.frames.len() as u32
    }

    pub fn push_scope(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Drops the innermost scope's locals; true when one of them was `PATH` (the caller
    /// then forgets hashed programs, as bash does when PATH changes).
    pub fn pop_scope(&mut self) -> bool {
        let depth = self.depth();
        let mut path_changed = false;
        if let Some(names) = self.frames.pop() {
            for name in names {
                path_changed |= name == "PATH";
                if let Some(stack) = self.slots.get_mut(&name) {
                    if stack.last().map_or(false, |slot| slot.depth == depth) {
                        stack.pop();
                    }
                    if stack.is_empty() {
                        self.slots.remove(&name);
                    }
                }
            }
        }
        path_changed
    }

    /// Follows namerefs from `name` to the variable it finally designates.
    pub fn resolve_name<'a>(&'a self, name: &'a str) -> &'a str {
        let mut current = name;
        for _ in 0..MAX_NAMEREF_HOPS {
            match self.slots.get(current).and_then(|s| s.last()) {
                Some(slot) if slot.var.attrs & attr::NAMEREF != 0 => match &slot.var.value {
                    Value::Scalar(target) if !target.is_empty() => current = target,
                    _ => return current,
                },
                _ => return current,
            }
        }
        current
    }

    /// The visible variable, following namerefs.
    pub fn get(&self, name: &str) -> Option<&Var> {
        let var = &self.slots.get(name)?.last()?.var;
        if var.attrs & attr::NAMEREF == 0 {
            return Some(var);
        }
        let name = self.resolve_name(name);
        self.slots.get(name).and_then(|s| s.last()).map(|slot| &slot.var)
    }

    /// The visible variable itself, without following namerefs.
    pub fn get_raw(&self, name: &str) -> Option<&Var> {
        self.slots.get(name).and_then(|s| s.last()).map(|slot| &slot.var)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Var> {
        let is_ref = self.slots.get(name)?.last()?.var.attrs & attr::NAMEREF != 0;
        if !is_ref {
            return self.slots.get_mut(name).and_then(|s| s.last_mut()).map(|slot| &mut slot.var);
        }
        let name = self.resolve_name(name).to_string();
        self.slots.get_mut(&name).and_then(|s| s.last_mut()).map(|slot| &mut slot.var)
    }

    /// Whether the visible definition was made in the current function scope.
    pub fn is_local_here(&self, name: &str) -> bool {
        let depth = self.depth();
        depth > 0 && self.slots.get(name).and_then(|s| s.last()).map_or(false, |slot| slot.depth == depth)
    }

    /// The variable to assign `name` through: the visible one, or a new global (bash
    /// creates unknown variables in the global scope even inside functions).
    pub fn lookup_or_create(&mut self, name: &str) -> Result<&mut Var, VarError> {
        let is_ref = self.slots.get(name).and_then(|s| s.last()).map_or(false, |slot| slot.var.attrs & attr::NAMEREF != 0);
        let owned;
        let target: &str = if is_ref {
            let resolved = self.resolve_name(name);
            if resolved == name {
                // A nameref whose target is a loop (an empty target is a plain variable).
                if let Some(Value::Scalar(t)) = self.get_raw(name).map(|v| &v.value) {
                    if !t.is_empty() {
                        return Err(VarError::NamerefLoop(name.to_string()));
                    }
                }
            }
            owned = resolved.to_string();
            &owned
        } else {
            name
        };
        if self.slots.get(target).map_or(true, |stack| stack.is_empty()) {
            self.slots.insert(target.to_string(), vec![Slot { depth: 0, var: Var::unset() }]);
        }
        match self.slots.get_mut(target).and_then(|stack| stack.last_mut()) {
            Some(slot) => Ok(&mut slot.var),
            None => Err(VarError::NamerefLoop(name.to_string())),
        }
    }

    /// The variable in the global scope (`declare -g`), created if needed.
    pub fn global_mut(&mut self, name: &str) -> &mut Var {
        let stack = self.slots.entry(name.to_string()).or_insert_with(Vec::new);
        if stack.first().map_or(true, |slot| slot.depth != 0) {
            stack.insert(0, Slot { depth: 0, var: Var::unset() });
        }
        &mut stack[0].var
    }

    /// Declares `name` in the current function scope (`local`), shadowing outer ones. A
    /// new local starts unset, but keeps the attributes bash carries over (none here:
    /// bash only inherits with `localvar_inherit`).
    pub fn declare_local(&mut self, name: &str) -> &mut Var {
        let depth = self.depth();
        if depth == 0 {
            return self.global_mut(name);
        }
        let stack = self.slots.entry(name.to_string()).or_insert_with(Vec::new);
        if stack.last().map_or(true, |slot| slot.depth != depth) {
            stack.push(Slot { depth, var: Var::unset() });
            if let Some(frame) = self.frames.last_mut() {
                frame.push(name.to_string());
            }
        }
        let len = stack.len();
        &mut stack[len - 1].var
    }

    /// `unset name`: a local of the current scope stays declared but unset; a variable of
    /// an outer scope is removed, revealing the one beneath (bash's dynamic unset).
    pub fn unset(&mut self, name: &str, follow_nameref: bool) -> Result<(), VarError> {
        let target = if follow_nameref { self.resolve_name(name).to_string() } else { name.to_string() };
        let depth = self.depth();
        let stack = match self.slots.get_mut(&target) {
            Some(stack) => stack,
            None => return Ok(()),
        };
        let top = match stack.last_mut() {
            Some(top) => top,
            None => return Ok(()),
        };
        if top.var.attrs & attr::READONLY != 0 {
            return Err(VarError::Readonly(target));
        }
        if top.depth == depth && depth > 0 {
            top.var = Var::unset();
            return Ok(());
        }
        stack.pop();
        if stack.is_empty() {
            self.slots.remove(&target);
        }
        Ok(())
    }

    /// Every visible variable name, sorted (for `set`, `declare -p`, `${!prefix*}`).
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.slots.iter().filter(|(_, s)| !s.is_empty()).map(|(n, _)| n.clone()).collect();
        names.sort_unstable_by(|a, b| crate::text::collate(a, b));
        names
    }

    /// Exported scalars as `KEY=VALUE` for a child's environment.
    pub fn environment(&self) -> Vec<String> {
        let mut env = Vec::new();
        for (name, stack) in self.slots.iter() {
            if let Some(slot) = stack.last() {
                if slot.var.attrs & attr::EXPORT != 0 {
                    // A local declared without a value hides nothing from the environment:
                    // the nearest outer value is exported, as in bash.
                    let value = stack.iter().rev().map(|s| &s.var.value).find(|v| **v != Value::Unset);
                    if let Some(Value::Scalar(value)) = value {
                        env.push(format!("{}={}", name, value));
                    }
                }
            }
        }
        env.sort_unstable();
        env
    }

    // ---- serialization support -----------------------------------------------------------

    /// Every definition of every variable: (name, depth, var), outermost first.
    pub fn all_slots(&self) -> Vec<(String, u32, Var)> {
        let mut out = Vec::new();
        for (name, stack) in self.slots.iter() {
            for slot in stack {
                out.push((name.clone(), slot.depth, slot.var.clone()));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        out
    }

    /// Rebuilds the scopes from [`Variables::all_slots`] output and the frame count.
    pub fn from_slots(slots: Vec<(String, u32, Var)>, frames: u32) -> Variables {
        let mut vars = Variables { slots: FastMap::default(), frames: vec![Vec::new(); frames as usize] };
        for (name, depth, var) in slots {
            if depth > 0 {
                if let Some(frame) = vars.frames.get_mut(depth as usize - 1) {
                    frame.push(name.clone());
                }
            }
            vars.slots.entry(name).or_insert_with(Vec::new).push(Slot { depth, var });
        }
        vars
    }

    /// Puts back a variable saved before a temporary assignment (`x=1 cmd`): the visible
    /// definition becomes `var`, or is removed when there was none.
    pub fn put(&mut self, name: &str, var: Option<Var>) {
        let name = self.resolve_name(name).to_string();
        match var {
            Some(var) => match self.slots.get_mut(&name).and_then(|s| s.last_mut()) {
                Some(slot) => slot.var = var,
                None => *self.global_mut(&name) = var,
            },
            None => {
                if let Some(stack) = self.slots.get_mut(&name) {
                    stack.pop();
                    if stack.is_empty() {
                        self.slots.remove(&name);
                    }
                }
            }
        }
    }

    /// Drops every scope but the global one (a child shell that runs a script afresh).
    pub fn only_globals(&mut self) {
        while !self.frames.is_empty() {
            self.pop_scope();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(vars: &Variables, name: &str) -> Option<String> {
        vars.get(name).and_then(|v| v.value.as_scalar().map(str::to_string))
    }

    /// Variables with a global `x` and, in a function scope, a local `x`.
    fn global_and_local_x() -> Variables {
        let mut vars = Variables::new();
        vars.lookup_or_create("x").unwrap().value = Value::Scalar("global".into());
        vars.push_scope();
        vars.declare_local("x").value = Value::Scalar("local".into());
        vars
    }

    #[test]
    fn locals_shadow_and_pop() {
        let mut vars = global_and_local_x();
        assert_eq!(scalar(&vars, "x").as_deref(), Some("local"));
        vars.pop_scope();
        assert_eq!(scalar(&vars, "x").as_deref(), Some("global"));
    }

    #[test]
    fn unset_in_scope_keeps_the_local_unset() {
        let mut vars = global_and_local_x();
        vars.unset("x", true).unwrap();
        assert_eq!(scalar(&vars, "x"), None);
        vars.pop_scope();
        assert_eq!(scalar(&vars, "x").as_deref(), Some("global"));
    }

    #[test]
    fn unset_from_inner_scope_reveals_outer() {
        let mut vars = global_and_local_x();
        vars.push_scope();
        vars.unset("x", true).unwrap();
        assert_eq!(scalar(&vars, "x").as_deref(), Some("global"));
    }

    #[test]
    fn assignment_in_function_creates_global() {
        let mut vars = Variables::new();
        vars.push_scope();
        vars.lookup_or_create("y").unwrap().value = Value::Scalar("1".into());
        vars.pop_scope();
        assert_eq!(scalar(&vars, "y").as_deref(), Some("1"));
    }

    #[test]
    fn namerefs_resolve() {
        let mut vars = Variables::new();
        vars.lookup_or_create("target").unwrap().value = Value::Scalar("v".into());
        let r = vars.lookup_or_create("ref").unwrap();
        r.value = Value::Scalar("target".into());
        r.attrs |= attr::NAMEREF;
        assert_eq!(scalar(&vars, "ref").as_deref(), Some("v"));
        vars.lookup_or_create("ref").unwrap().value = Value::Scalar("w".into());
        assert_eq!(scalar(&vars, "target").as_deref(), Some("w"));
    }
}
