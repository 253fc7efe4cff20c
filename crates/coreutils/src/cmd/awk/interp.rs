//! The tree-walking interpreter: its state, variables (with the special variables'
//! side effects), and expression evaluation. Statements and the main loop are in
//! `exec.rs`, built-in functions in `builtins.rs`.
//!
//! Hot paths avoid allocation: `eval_num` reads fields as numbers straight from the
//! record, `eval_str_into` appends to a reused buffer, and array subscripts are built in
//! scratch buffers.

use std::io::{BufRead, Read};
use common::Io;

use super::array::AwkArray;
use super::ast::*;
use super::fields::{FieldMode, Record};
use super::input::{RecordReader, RsMode};
use super::random::Random;
use super::regex::Regexes;
use super::streams::Streams;
use super::value::Value;
use super::vars;

/// A variable: a scalar or an array (arrays live in `Interp::arrays`, by id).
#[derive(Clone)]
pub enum Cell {
    Val(Value),
    Arr(usize),
}

/// Why evaluation stopped early.
pub enum Abort {
    Exit(Option<i32>),
    Next,
    NextFile,
    /// A fatal error: gawk's message (without the `awk: ...: fatal:` prefix).
    Fatal(String),
    /// Output went to a closed pipe: stop quietly.
    BrokenPipe,
}

pub type R<T> = Result<T, Abort>;

pub fn fatal<T>(message: impl Into<String>) -> R<T> {
    Err(Abort::Fatal(message.into()))
}

/// How a statement finished.
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

/// Which of FS, FIELDWIDTHS, FPAT was set last (that one splits records).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FieldSource {
    Fs,
    Widths,
    Fpat,
}

/// The main input: ARGV operands, then stdin if there were none.
pub enum MainSource {
    Stdin,
    File(std::fs::File, RecordReader),
}

pub struct Interp<'a, 'io> {
    pub prog: &'a Program,
    pub io: &'a mut Io<'io>,
    pub globals: Vec<Cell>,
    pub locals: Vec<Cell>,
    pub frame: usize,
    pub depth: usize,
    pub arrays: Vec<AwkArray>,
    pub free_arrays: Vec<usize>,
    pub frame_arrays: Vec<usize>,
    pub rec: Record,
    pub nr: f64,
    pub fnr: f64,
    pub rt: Vec<u8>,
    /// Spare buffer the next record is read into.
    pub record_buf: Vec<u8>,
    pub convfmt: Vec<u8>,
    pub ofmt: Vec<u8>,
    pub ofs: Vec<u8>,
    pub ors: Vec<u8>,
    pub subsep: Vec<u8>,
    pub fmode: FieldMode,
    pub field_source: FieldSource,
    pub rs: RsMode,
    pub icase: bool,
    pub regexes: Regexes,
    pub streams: Streams,
    pub stdin_reader: RecordReader,
    pub main_source: Option<MainSource>,
    pub argv_index: usize,
    pub used_file_operand: bool,
    pub main_done: bool,
    pub ranges: Vec<bool>,
    pub rng: Random,
    pub scratch: Vec<Vec<u8>>,
    pub exit_code: i32,
    pub line: u32,
    /// Source names by first line, for messages: (first line, name, line offset).
    pub sources: Vec<(u32, String)>,
    pub sandboxed: bool,
    /// The function running (for messages naming its parameters).
    pub function: Option<usize>,
    /// `stack_marker()` when the program started.
    pub stack_base: usize,
}

/// Reads through a `&mut dyn BufRead` where a `&mut dyn Read` is needed.
pub struct StdinRead<'x, 'y>(pub &'x mut (dyn BufRead + 'y));

impl<'x, 'y> Read for StdinRead<'x, 'y> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

#[inline]
pub fn arith(op: BinOp, a: f64, b: f64) -> R<f64> {
    Ok(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => {
            if b == 0.0 {
                return fatal("division by zero attempted");
            }
            a / b
        }
        BinOp::Mod => {
            if b == 0.0 {
                return fatal("division by zero attempted in `%'");
            }
            a % b
        }
        BinOp::Pow => power(a, b),
    })
}

/// `^`: integer exponents by repeated multiplication, as gawk does (exact for integers).
fn power(a: f64, b: f64) -> f64 {
    if b == b.trunc() && b.abs() < 1024.0 {
        let mut n = b.abs() as i64;
        let mut base = a;
        let mut result = 1.0;
        while n > 0 {
            if n & 1 == 1 {
                result *= base;
            }
            base *= base;
            n >>= 1;
        }
        if b < 0.0 {
            1.0 / result
        } else {
            result
        }
    } else {
        a.powf(b)
    }
}

/// How much native stack awk function calls may use before a call fails cleanly instead
/// of overflowing (the wasm build has a smaller stack than a native main thread).
#[cfg(target_arch = "wasm32")]
const STACK_BUDGET: usize = 900 * 1024;
#[cfg(not(target_arch = "wasm32"))]
const STACK_BUDGET: usize = 6 * 1024 * 1024;

/// The address of a local: stack depth is measured as the distance from the first one.
pub fn stack_marker() -> usize {
    let marker = 0u8;
    &marker as *const u8 as usize
}

/// A resolved assignment target.
pub enum Place {
    Var(Var),
    Field(usize),
    Elem(usize, Option<i32>, Vec<u8>),
}

impl<'a, 'io> Interp<'a, 'io> {
    fn stack_used(&self) -> usize {
        self.stack_base.saturating_sub(stack_marker())
    }

    pub fn take_buf(&mut self) -> Vec<u8> {
        let mut buf = self.scratch.pop().unwrap_or_default();
        buf.clear();
        buf
    }

    pub fn give_buf(&mut self, buf: Vec<u8>) {
        if self.scratch.len() < 16 {
            self.scratch.push(buf);
        }
    }

    pub fn var_name(&self, v: Var) -> String {
        let name = match v {
            Var::Global(i) => self.prog.globals.get(i as usize),
            Var::Local(i) => self.function.and_then(|f| self.prog.functions[f].param_names.get(i as usize)),
        };
        name.cloned().unwrap_or_default()
    }

    #[inline]
    pub fn cell(&self, v: Var) -> &Cell {
        match v {
            Var::Global(i) => &self.globals[i as usize],
            Var::Local(i) => &self.locals[self.frame + i as usize],
        }
    }

    #[inline]
    pub fn cell_mut(&mut self, v: Var) -> &mut Cell {
        match v {
            Var::Global(i) => &mut self.globals[i as usize],
            Var::Local(i) => &mut self.locals[self.frame + i as usize],
        }
    }

    pub fn new_array(&mut self) -> usize {
        match self.free_arrays.pop() {
            Some(id) => id,
            None => {
                self.arrays.push(AwkArray::new());
                self.arrays.len() - 1
            }
        }
    }

    /// The array a variable names, creating it if the variable is unused.
    pub fn array_of(&mut self, v: Var) -> R<usize> {
        match self.cell(v) {
            Cell::Arr(id) => Ok(*id),
            Cell::Val(Value::Uninit) if !matches!(v, Var::Global(i) if i < vars::SPECIAL) => {
                let id = self.new_array();
                *self.cell_mut(v) = Cell::Arr(id);
                if let Var::Local(_) = v {
                    self.frame_arrays.push(id);
                }
                Ok(id)
            }
            Cell::Val(_) => fatal(format!("attempt to use scalar `{}' as an array", self.var_name(v))),
        }
    }

    pub fn read_var(&mut self, v: Var) -> R<Value> {
        if let Var::Global(i) = v {
            if i < vars::SPECIAL {
                match i {
                    vars::NF => return Ok(Value::Num(self.rec.nf(&self.fmode) as f64)),
                    vars::NR => return Ok(Value::Num(self.nr)),
                    vars::FNR => return Ok(Value::Num(self.fnr)),
                    vars::RT => return Ok(Value::Str(self.rt.as_slice().into())),
                    _ => {}
                }
            }
        }
        match self.cell(v) {
            Cell::Val(val) => Ok(val.clone()),
            Cell::Arr(_) => fatal(format!("attempt to use array `{}' in a scalar context", self.var_name(v))),
        }
    }

    pub fn var_num(&mut self, v: Var) -> R<f64> {
        if let Var::Global(i) = v {
            if i < vars::SPECIAL {
                return Ok(self.read_var(v)?.to_num());
            }
        }
        match self.cell(v) {
            Cell::Val(val) => Ok(val.to_num()),
            Cell::Arr(_) => fatal(format!("attempt to use array `{}' in a scalar context", self.var_name(v))),
        }
    }

    pub fn assign_var(&mut self, v: Var, value: Value) -> R<()> {
        if let Cell::Arr(_) = self.cell(v) {
            return fatal(format!("attempt to use array `{}' in a scalar context", self.var_name(v)));
        }
        if let Var::Global(i) = v {
            if i < vars::SPECIAL {
                return self.assign_special(i, value);
            }
        }
        *self.cell_mut(v) = Cell::Val(value);
        Ok(())
    }

    #[inline(never)]
    pub fn call(&mut self, f: usize, args: &[Expr]) -> R<Value> {
        let prog = self.prog;
        let func = &prog.functions[f];
        if self.stack_used() > STACK_BUDGET {
            return fatal("function call nesting too deep (stack limit)");
        }
        let mut cells = Vec::with_capacity(func.params);
        for (i, arg) in args.iter().enumerate() {
            if i >= func.params {
                // gawk warns and evaluates extra arguments for their side effects.
                self.eval(arg)?;
                continue;
            }
            let cell = match arg {
                Expr::Var(v) if !matches!(v, Var::Global(g) if *g < vars::SPECIAL) => match self.cell(*v) {
                    Cell::Arr(id) => Cell::Arr(*id),
                    Cell::Val(Value::Uninit) if func.array_params[i] => Cell::Arr(self.array_of(*v)?),
                    Cell::Val(val) => Cell::Val(val.clone()),
                },
                _ => Cell::Val(self.eval(arg)?),
            };
            cells.push(cell);
        }
        self.invoke(f, cells)
    }

    /// Runs function `f` with its parameters bound to `cells` (missing ones are locals).
    pub fn invoke(&mut self, f: usize, mut cells: Vec<Cell>) -> R<Value> {
        let prog = self.prog;
        let func = &prog.functions[f];
        cells.resize(func.params, Cell::Val(Value::Uninit));
        let base = self.locals.len();
        self.locals.extend(cells);
        let saved_frame = self.frame;
        let saved_line = self.line;
        let saved_function = self.function.replace(f);
        self.frame = base;
        let mark = self.frame_arrays.len();
        self.depth += 1;
        let result = self.exec_block(&func.body);
        self.depth -= 1;
        self.frame = saved_frame;
        self.line = saved_line;
        self.function = saved_function;
        let created: Vec<usize> = self.frame_arrays.drain(mark..).collect();
        for id in created {
            self.arrays[id].clear();
            self.free_arrays.push(id);
        }
        self.locals.truncate(base);
        match result? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Value::Uninit),
        }
    }

    /// Assigns to an lvalue (used by getline, sub/gsub, split targets).
    pub fn assign_lvalue(&mut self, lv: &LValue, value: Value) -> R<()> {
        let place = self.place(lv)?;
        self.place_set(place, value)
    }
}
