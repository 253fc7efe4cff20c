//! The special variables' side effects: NF rebuilds the record, FS/FIELDWIDTHS/FPAT pick
//! the field splitter, RS the record reader, IGNORECASE recompiles both; and field access.

use super::ast::*;
use super::fields::{FieldMode, FieldRef};
use super::input::RsMode;
use super::interp::{fatal, Cell, FieldSource, Interp, R};
use super::value::Value;
use super::vars;

impl<'a, 'io> Interp<'a, 'io> {
    pub fn assign_special(&mut self, i: u32, value: Value) -> R<()> {
        match i {
            vars::NF => {
                let n = value.to_num();
                if n < 0.0 {
                    return fatal("NF set to negative value");
                }
                self.rec.set_nf(n as usize, &self.fmode, &self.ofs, &self.convfmt);
                return Ok(());
            }
            vars::NR => {
                self.nr = value.to_num().trunc();
                return Ok(());
            }
            vars::FNR => {
                self.fnr = value.to_num().trunc();
                return Ok(());
            }
            vars::RT => {
                self.rt.clear();
                value.append_str(&mut self.rt, &self.convfmt);
                return Ok(());
            }
            _ => {}
        }
        let bytes = value.to_str(&self.convfmt).to_vec();
        self.globals[i as usize] = Cell::Val(value);
        match i {
            vars::FS => {
                // The current record keeps the old FS: split it now.
                self.rec.nf(&self.fmode);
                self.field_source = FieldSource::Fs;
                self.update_field_mode()?;
            }
            vars::FIELDWIDTHS => {
                self.rec.nf(&self.fmode);
                self.field_source = FieldSource::Widths;
                self.update_field_mode()?;
            }
            vars::FPAT => {
                self.rec.nf(&self.fmode);
                self.field_source = FieldSource::Fpat;
                self.update_field_mode()?;
            }
            vars::RS => self.update_rs()?,
            vars::OFS => self.ofs = bytes,
            vars::ORS => self.ors = bytes,
            vars::SUBSEP => self.subsep = bytes,
            vars::CONVFMT => self.convfmt = bytes,
            vars::OFMT => self.ofmt = bytes,
            vars::IGNORECASE => {
                let on = match &self.globals[i as usize] {
                    Cell::Val(v) => v.is_true(),
                    Cell::Arr(_) => false,
                };
                if on != self.icase {
                    self.icase = on;
                    self.update_field_mode()?;
                    self.update_rs()?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn global_bytes(&self, i: u32) -> Vec<u8> {
        match &self.globals[i as usize] {
            Cell::Val(v) => v.to_str(&self.convfmt).to_vec(),
            Cell::Arr(_) => Vec::new(),
        }
    }

    pub fn update_field_mode(&mut self) -> R<()> {
        let paragraph = matches!(self.rs, RsMode::Paragraph);
        self.fmode = match self.field_source {
            FieldSource::Fs => {
                let fs = self.global_bytes(vars::FS);
                self.fs_mode(&fs, paragraph)?
            }
            FieldSource::Widths => {
                let text = self.global_bytes(vars::FIELDWIDTHS);
                FieldMode::Widths(parse_widths(&text)?)
            }
            FieldSource::Fpat => {
                let text = self.global_bytes(vars::FPAT);
                FieldMode::Pattern(self.regexes.dynamic(&text, self.icase).or_else(fatal)?)
            }
        };
        Ok(())
    }

    /// The splitter for a field separator string (FS, split()'s third argument).
    pub fn fs_mode(&mut self, fs: &[u8], paragraph: bool) -> R<FieldMode> {
        Ok(match fs {
            b" " => FieldMode::Default,
            b"" => FieldMode::Chars,
            [c] if *c != b'\\' && !(self.icase && c.is_ascii_alphabetic()) => {
                if paragraph && *c != b'\n' {
                    FieldMode::ByteOrNewline(*c)
                } else {
                    FieldMode::Byte(*c)
                }
            }
            _ => {
                let source: Vec<u8> = match fs {
                    b"\\" => b"\\\\".to_vec(),
                    [c] => vec![b'[', *c, b']'],
                    _ if paragraph => {
                        let mut s = b"(".to_vec();
                        s.extend_from_slice(fs);
                        s.extend_from_slice(b")|\n");
                        s
                    }
                    _ => fs.to_vec(),
                };
                FieldMode::Regex(self.regexes.dynamic(&source, self.icase).or_else(fatal)?)
            }
        })
    }

    pub fn update_rs(&mut self) -> R<()> {
        let rs = self.global_bytes(vars::RS);
        let was_paragraph = matches!(self.rs, RsMode::Paragraph);
        self.rs = match rs.as_slice() {
            b"" => RsMode::Paragraph,
            [c] if !(self.icase && c.is_ascii_alphabetic()) => RsMode::Byte(*c),
            _ => RsMode::Regex(self.regexes.dynamic(&rs, self.icase).or_else(fatal)?),
        };
        if was_paragraph != matches!(self.rs, RsMode::Paragraph) && self.field_source == FieldSource::Fs {
            self.update_field_mode()?;
        }
        Ok(())
    }

    /// `$n` as a value.
    pub fn field_value(&mut self, n: usize) -> Value {
        if n == 0 {
            return Value::StrNum(self.rec.text().into());
        }
        match self.rec.field(n, &self.fmode) {
            FieldRef::Bytes(b) => Value::StrNum(b.into()),
            FieldRef::Value(v) => v.clone(),
            FieldRef::Missing => Value::Uninit,
        }
    }

    pub fn field_index(&mut self, e: &Expr) -> R<usize> {
        let n = self.eval_num(e)?;
        if n < 0.0 || n.is_nan() {
            return fatal(format!("attempt to access field {}", n as i64));
        }
        if n > 1e8 {
            return fatal(format!("attempt to access field {}", n as i64));
        }
        Ok(n as usize)
    }

    pub fn set_field(&mut self, n: usize, value: Value) {
        if n == 0 {
            let mut text = Vec::new();
            value.append_str(&mut text, &self.convfmt);
            self.rec.set(&text);
        } else {
            self.rec.set_field(n, value, &self.fmode, &self.ofs, &self.convfmt);
        }
    }
}

/// FIELDWIDTHS: "[skip:]width ..." where the last width may be `*` (the rest).
fn parse_widths(text: &[u8]) -> R<Vec<(usize, Option<usize>)>> {
    let text = String::from_utf8_lossy(text);
    let mut out = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, word) in words.iter().enumerate() {
        let (skip, width) = match word.split_once(':') {
            Some((s, w)) => (s, w),
            None => ("0", *word),
        };
        let skip: usize = match skip.parse() {
            Ok(n) => n,
            Err(_) => return fatal(format!("invalid FIELDWIDTHS value, for field {}, near `{}'", i + 1, word)),
        };
        if width == "*" && i == words.len() - 1 {
            out.push((skip, None));
            continue;
        }
        match width.parse() {
            Ok(w) => out.push((skip, Some(w))),
            Err(_) => return fatal(format!("invalid FIELDWIDTHS value, for field {}, near `{}'", i + 1, word)),
        }
    }
    Ok(out)
}
