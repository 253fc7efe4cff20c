//! Expression evaluation. `eval` returns a value; `eval_num`, `eval_bool` and
//! `eval_str_into` are the allocation-free paths for numeric, boolean and string contexts
//! (fields are read straight from the record). Heavy cases live in separate
//! non-inlined functions so that deep recursion in awk functions uses little stack.

use std::rc::Rc;

use common::regex::Regex;

use super::array::{classify, AwkArray, Key};
use super::ast::*;
use super::fields::FieldRef;
use super::interp::{arith, fatal, Cell, Interp, Place, R};
use super::value::{num_to_str, str_to_num, CmpClass, Str, Value};
use super::vars;

impl<'a, 'io> Interp<'a, 'io> {
    /// Runs `f` on array `id` with the key `subs` make (its text in a reused buffer).
    pub fn with_key<T>(&mut self, id: usize, subs: &[Expr], f: impl FnOnce(&mut AwkArray, Key<'_>) -> T) -> R<T> {
        let mut buf = self.take_buf();
        let int = self.subscript(subs, &mut buf)?;
        let key = match int {
            Some(k) => Key::Int(k),
            None => Key::Str(&buf),
        };
        let out = f(&mut self.arrays[id], key);
        self.give_buf(buf);
        Ok(out)
    }

    /// The element of array `id` a place names (created if missing).
    fn element(&mut self, id: usize, int: Option<i32>, text: &[u8]) -> &mut Value {
        let key = match int {
            Some(k) => Key::Int(k),
            None => Key::Str(text),
        };
        self.arrays[id].get_or_insert(key)
    }

    /// Evaluates subscripts into `buf` (joined with SUBSEP) and classifies the key: an
    /// integer key needs no text.
    pub fn subscript(&mut self, subs: &[Expr], buf: &mut Vec<u8>) -> R<Option<i32>> {
        buf.clear();
        if subs.len() == 1 {
            if let Expr::Num(n) = &subs[0] {
                if *n == n.trunc() && n.abs() < 2147483647.0 {
                    return Ok(Some(*n as i32));
                }
            }
            let v_is_num = !matches!(subs[0], Expr::Str(_) | Expr::Field(_) | Expr::Concat(..));
            if v_is_num {
                let v = self.eval(&subs[0])?;
                if let Value::Num(n) = v {
                    if n == n.trunc() && n.abs() < 2147483647.0 {
                        return Ok(Some(n as i32));
                    }
                }
                v.append_str(buf, &self.convfmt);
            } else {
                self.eval_str_into(&subs[0], buf)?;
            }
        } else {
            for (i, e) in subs.iter().enumerate() {
                if i > 0 {
                    buf.extend_from_slice(&self.subsep);
                }
                self.eval_str_into(e, buf)?;
            }
        }
        Ok(match classify(buf) {
            Key::Int(k) => Some(k),
            Key::Str(_) => None,
        })
    }

    pub fn place(&mut self, lv: &LValue) -> R<Place> {
        Ok(match lv {
            LValue::Var(v) => Place::Var(*v),
            LValue::Field(e) => Place::Field(self.field_index(e)?),
            LValue::Index(v, subs) => {
                let id = self.array_of(*v)?;
                let mut buf = self.take_buf();
                let int = self.subscript(subs, &mut buf)?;
                Place::Elem(id, int, buf)
            }
        })
    }

    pub fn place_get(&mut self, place: &Place) -> R<Value> {
        match place {
            Place::Var(v) => self.read_var(*v),
            Place::Field(n) => Ok(self.field_value(*n)),
            Place::Elem(id, int, buf) => {
                Ok(self.element(*id, *int, buf).clone())
            }
        }
    }

    pub fn place_set(&mut self, place: Place, value: Value) -> R<()> {
        match place {
            Place::Var(v) => self.assign_var(v, value),
            Place::Field(n) => {
                self.set_field(n, value);
                Ok(())
            }
            Place::Elem(id, int, buf) => {
                let key = match int {
                    Some(k) => Key::Int(k),
                    None => Key::Str(&buf),
                };
                *self.arrays[id].get_or_insert(key) = value;
                self.give_buf(buf);
                Ok(())
            }
        }
    }

    /// Adds `delta` to a target, returning (old, new).
    #[inline(never)]
    fn increment(&mut self, lv: &LValue, delta: f64) -> R<(f64, f64)> {
        if let LValue::Var(v) = lv {
            if !matches!(v, Var::Global(i) if *i < vars::SPECIAL) {
                if let Cell::Val(slot) = self.cell_mut(*v) {
                    let old = slot.to_num();
                    *slot = Value::Num(old + delta);
                    return Ok((old, old + delta));
                }
            }
        }
        let place = self.place(lv)?;
        if let Place::Elem(id, int, buf) = &place {
            let slot = self.element(*id, *int, buf);
            let old = slot.to_num();
            *slot = Value::Num(old + delta);
            if let Place::Elem(_, _, buf) = place {
                self.give_buf(buf);
            }
            return Ok((old, old + delta));
        }
        let old = self.place_get(&place)?.to_num();
        self.place_set(place, Value::Num(old + delta))?;
        Ok((old, old + delta))
    }

    pub fn eval(&mut self, e: &Expr) -> R<Value> {
        match e {
            Expr::Num(n) => Ok(Value::Num(*n)),
            Expr::Str(s) => Ok(Value::Str(s.clone())),
            Expr::Var(v) => self.read_var(*v),
            Expr::Cond(c, a, b) => {
                if self.eval_bool(c)? {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            Expr::Regex(_) | Expr::And(..) | Expr::Or(..) | Expr::Not(_) | Expr::Cmp(..) | Expr::Match(..) | Expr::In(..) => {
                Ok(Value::Num(self.eval_bool(e)? as i32 as f64))
            }
            Expr::Neg(_) | Expr::Plus(_) | Expr::Binary(..) => Ok(Value::Num(self.eval_num(e)?)),
            Expr::Call(f, args) => self.call(*f, args),
            Expr::Group(inner) => self.eval(inner),
            _ => self.eval_other(e),
        }
    }

    /// The less frequent or heavier expressions, kept out of `eval`'s stack frame.
    #[inline(never)]
    fn eval_other(&mut self, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Field(idx) => {
                let n = self.field_index(idx)?;
                self.field_value(n)
            }
            Expr::Index(v, subs) => {
                let id = self.array_of(*v)?;
                self.with_key(id, subs, |array, key| array.get_or_insert(key).clone())?
            }
            Expr::Assign(lv, rhs) => {
                let value = self.eval(rhs)?;
                if let LValue::Var(v) = &**lv {
                    self.assign_var(*v, value.clone())?;
                    return Ok(value);
                }
                let place = self.place(lv)?;
                self.place_set(place, value.clone())?;
                value
            }
            Expr::Append(v, rest) => self.append(*v, rest)?,
            Expr::AugAssign(op, lv, rhs) => Value::Num(self.aug_assign(*op, lv, rhs)?),
            Expr::Concat(..) => {
                let mut buf = self.take_buf();
                self.eval_str_into(e, &mut buf)?;
                let value = Value::Str(buf.as_slice().into());
                self.give_buf(buf);
                value
            }
            Expr::PreIncr(lv, d) => Value::Num(self.increment(lv, *d)?.1),
            Expr::PostIncr(lv, d) => Value::Num(self.increment(lv, *d)?.0),
            Expr::Builtin(b, args) => self.builtin(*b, args)?,
            Expr::Getline(source, file, target) => Value::Num(self.getline(*source, file.as_deref(), target.as_deref())?),
            _ => self.eval(e)?,
        })
    }

    /// `v = v rest`, appending to v's buffer in place when it is not shared.
    #[inline(never)]
    fn append(&mut self, v: Var, rest: &Expr) -> R<Value> {
        if matches!(v, Var::Global(i) if i < vars::SPECIAL) {
            let mut buf = Vec::new();
            self.read_var(v)?.append_str(&mut buf, &self.convfmt);
            self.eval_str_into(rest, &mut buf)?;
            let value = Value::Str(buf.into());
            self.assign_var(v, value.clone())?;
            return Ok(value);
        }
        let mut buf = match std::mem::replace(self.cell_mut(v), Cell::Val(Value::Uninit)) {
            Cell::Val(Value::Str(s)) | Cell::Val(Value::StrNum(s)) => s.into_buffer(),
            Cell::Val(other) => {
                let mut b = Vec::new();
                other.append_str(&mut b, &self.convfmt);
                b
            }
            Cell::Arr(id) => {
                *self.cell_mut(v) = Cell::Arr(id);
                return fatal(format!("attempt to use array `{}' in a scalar context", self.var_name(v)));
            }
        };
        let result = self.eval_str_into(rest, &mut buf);
        let value = Value::Str(Str::Growable(Rc::new(buf)));
        *self.cell_mut(v) = Cell::Val(value.clone());
        result?;
        Ok(value)
    }

    #[inline(never)]
    fn aug_assign(&mut self, op: BinOp, lv: &LValue, rhs: &Expr) -> R<f64> {
        let r = self.eval_num(rhs)?;
        if let LValue::Var(v) = lv {
            if !matches!(v, Var::Global(i) if *i < vars::SPECIAL) {
                if let Cell::Val(slot) = self.cell_mut(*v) {
                    let n = arith(op, slot.to_num(), r)?;
                    *slot = Value::Num(n);
                    return Ok(n);
                }
            }
        }
        let place = self.place(lv)?;
        if let Place::Elem(id, int, buf) = &place {
            let slot = self.element(*id, *int, buf);
            let n = arith(op, slot.to_num(), r)?;
            *slot = Value::Num(n);
            if let Place::Elem(_, _, buf) = place {
                self.give_buf(buf);
            }
            return Ok(n);
        }
        let n = arith(op, self.place_get(&place)?.to_num(), r)?;
        self.place_set(place, Value::Num(n))?;
        Ok(n)
    }

    pub fn eval_num(&mut self, e: &Expr) -> R<f64> {
        match e {
            Expr::Num(n) => Ok(*n),
            Expr::Var(v) => self.var_num(*v),
            Expr::Binary(op, a, b) => {
                let x = self.eval_num(a)?;
                let y = self.eval_num(b)?;
                arith(*op, x, y)
            }
            Expr::Neg(a) => Ok(-self.eval_num(a)?),
            Expr::Plus(a) => self.eval_num(a),
            Expr::Group(inner) => self.eval_num(inner),
            Expr::Field(_) | Expr::Index(..) => self.num_of_place(e),
            _ => Ok(self.eval(e)?.to_num()),
        }
    }

    /// A field or element read as a number without building a value.
    #[inline(never)]
    fn num_of_place(&mut self, e: &Expr) -> R<f64> {
        match e {
            Expr::Field(idx) => {
                let n = self.field_index(idx)?;
                if n == 0 {
                    return Ok(str_to_num(self.rec.text()));
                }
                Ok(match self.rec.field(n, &self.fmode) {
                    FieldRef::Bytes(b) => str_to_num(b),
                    FieldRef::Value(v) => v.to_num(),
                    FieldRef::Missing => 0.0,
                })
            }
            Expr::Index(v, subs) => {
                let id = self.array_of(*v)?;
                self.with_key(id, subs, |array, key| array.get_or_insert(key).to_num())
            }
            _ => Ok(self.eval(e)?.to_num()),
        }
    }

    pub fn eval_bool(&mut self, e: &Expr) -> R<bool> {
        match e {
            Expr::Num(n) => Ok(*n != 0.0),
            Expr::And(a, b) => Ok(self.eval_bool(a)? && self.eval_bool(b)?),
            Expr::Or(a, b) => Ok(self.eval_bool(a)? || self.eval_bool(b)?),
            Expr::Not(a) => Ok(!self.eval_bool(a)?),
            Expr::Cmp(op, a, b) => self.compare(*op, a, b),
            Expr::Group(inner) => self.eval_bool(inner),
            Expr::Regex(_) | Expr::Match(..) | Expr::In(..) => self.bool_of_test(e),
            _ => Ok(self.eval(e)?.is_true()),
        }
    }

    #[inline(never)]
    fn bool_of_test(&mut self, e: &Expr) -> R<bool> {
        match e {
            Expr::Regex(id) => self.match_record(*id),
            Expr::Match(negate, s, re) => {
                let re = self.regex(re)?;
                let mut buf = self.take_buf();
                self.eval_str_into(s, &mut buf)?;
                let m = re.is_match(&buf);
                self.give_buf(buf);
                Ok(m != *negate)
            }
            Expr::In(subs, v) => {
                let id = self.array_of(*v)?;
                self.with_key(id, subs, |array, key| array.contains(key))
            }
            _ => Ok(self.eval(e)?.is_true()),
        }
    }

    /// Appends the string value of `e` (numbers through CONVFMT).
    pub fn eval_str_into(&mut self, e: &Expr, buf: &mut Vec<u8>) -> R<()> {
        match e {
            Expr::Str(s) => buf.extend_from_slice(s),
            Expr::Num(n) => num_to_str(*n, &self.convfmt, buf),
            Expr::Field(idx) => self.append_field(idx, buf, false)?,
            Expr::Concat(a, b) => {
                self.eval_str_into(a, buf)?;
                self.eval_str_into(b, buf)?;
            }
            Expr::Var(v) if !matches!(v, Var::Global(i) if *i < vars::SPECIAL) => match self.cell(*v) {
                Cell::Val(val) => val.append_str(buf, &self.convfmt),
                Cell::Arr(_) => return fatal(format!("attempt to use array `{}' in a scalar context", self.var_name(*v))),
            },
            Expr::Group(inner) => self.eval_str_into(inner, buf)?,
            _ => {
                let v = self.eval(e)?;
                v.append_str(buf, &self.convfmt);
            }
        }
        Ok(())
    }

    /// Appends field `idx`; a number assigned to it is shown through OFMT for `output`
    /// (print), else CONVFMT.
    fn append_field(&mut self, idx: &Expr, buf: &mut Vec<u8>, output: bool) -> R<()> {
        let n = self.field_index(idx)?;
        if n == 0 {
            buf.extend_from_slice(self.rec.text());
            return Ok(());
        }
        let fmt = if output { &self.ofmt } else { &self.convfmt };
        match self.rec.field(n, &self.fmode) {
            FieldRef::Bytes(b) => buf.extend_from_slice(b),
            FieldRef::Value(v) => v.append_str(buf, fmt),
            FieldRef::Missing => {}
        }
        Ok(())
    }

    /// Appends the value as print shows it (numbers through OFMT).
    pub fn eval_output_into(&mut self, e: &Expr, buf: &mut Vec<u8>) -> R<()> {
        match e {
            Expr::Str(_) | Expr::Concat(..) => self.eval_str_into(e, buf),
            Expr::Field(idx) => self.append_field(idx, buf, true),
            _ => {
                let v = self.eval(e)?;
                v.append_str(buf, &self.ofmt);
                Ok(())
            }
        }
    }

    pub fn compare_values(&self, a: &Value, b: &Value) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let numeric = |c: &CmpClass| match c {
            CmpClass::Number(n) => Some(*n),
            CmpClass::Uninit => Some(0.0),
            CmpClass::String => None,
        };
        let (ca, cb) = (a.cmp_class(), b.cmp_class());
        if let (Some(x), Some(y)) = (numeric(&ca), numeric(&cb)) {
            return match (x.is_nan(), y.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            };
        }
        let sa = a.to_str(&self.convfmt);
        let sb = b.to_str(&self.convfmt);
        if self.icase {
            sa.iter().map(|c| c.to_ascii_lowercase()).cmp(sb.iter().map(|c| c.to_ascii_lowercase()))
        } else {
            sa.cmp(&sb)
        }
    }

    #[inline(never)]
    fn compare(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> R<bool> {
        use std::cmp::Ordering::*;
        let va = self.eval(a)?;
        let vb = self.eval(b)?;
        if let (Value::Num(x), Value::Num(y)) = (&va, &vb) {
            if !x.is_nan() && !y.is_nan() {
                return Ok(match op {
                    CmpOp::Lt => x < y,
                    CmpOp::Le => x <= y,
                    CmpOp::Gt => x > y,
                    CmpOp::Ge => x >= y,
                    CmpOp::Eq => x == y,
                    CmpOp::Ne => x != y,
                });
            }
        }
        let ord = self.compare_values(&va, &vb);
        Ok(match op {
            CmpOp::Lt => ord == Less,
            CmpOp::Le => ord != Greater,
            CmpOp::Gt => ord == Greater,
            CmpOp::Ge => ord != Less,
            CmpOp::Eq => ord == Equal,
            CmpOp::Ne => ord != Equal,
        })
    }

    pub fn regex(&mut self, r: &RegexArg) -> R<Rc<Regex>> {
        match r {
            RegexArg::Static(id) => self.regexes.literal(*id, self.icase).or_else(fatal),
            RegexArg::Dynamic(e) => {
                let mut buf = self.take_buf();
                self.eval_str_into(e, &mut buf)?;
                let re = self.regexes.dynamic(&buf, self.icase).or_else(fatal);
                self.give_buf(buf);
                re
            }
        }
    }

    /// A regex literal as a value: does `$0` match?
    pub fn match_record(&mut self, id: usize) -> R<bool> {
        let re = self.regexes.literal(id, self.icase).or_else(fatal)?;
        Ok(re.is_match(self.rec.text()))
    }
}
