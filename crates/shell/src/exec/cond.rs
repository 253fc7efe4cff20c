//! `[[ ]]` and the file, string and number tests it shares with `test` / `[`.

use shell_parser::ast::{CondExpr, Word, WordPart};

use super::Flow;
use crate::sys::{Access, FileKind};
use crate::options::Shopt;
use crate::pattern::Pattern;
use crate::regex::Regex;
use crate::shell::Shell;
use crate::vars::Key;

/// How numeric operands are read: `[[ ]]` evaluates them as arithmetic, `test` wants
/// integers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numbers {
    Arithmetic,
    Integers,
}

impl Shell {
    pub(crate) fn eval_cond(&mut self, expr: &CondExpr) -> Result<bool, Flow> {
        match expr {
            CondExpr::Unary(op, word) => {
                let value = self.expand_string(word)?;
                self.trace_cond(&format!("{} {}", op, value));
                self.unary_test(op, &value).map_err(|message| self.cond_failure(&message))
            }
            CondExpr::Binary(left, op, right) => {
                let left = self.expand_string(left)?;
                let right = self.expand_string(right)?;
                self.trace_cond(&format!("{} {} {}", left, op, right));
                if let Some(compare) = numeric_comparison(op) {
                    // Operands are arithmetic; one that fails to evaluate makes the test
                    // false after bash's `[[: ...` message (fatal only under `set -u`).
                    return match (self.cond_number(&left)?, self.cond_number(&right)?) {
                        (Some(a), Some(b)) => Ok(compare(a, b)),
                        _ => Ok(false),
                    };
                }
                self.binary_test(&left, op, &right, Numbers::Arithmetic).map_err(|message| self.cond_failure(&message))
            }
            CondExpr::Pattern { subject, pattern, negated } => {
                let subject = self.expand_string(subject)?;
                let pattern = self.expand_pattern(pattern)?;
                self.trace_cond(&format!("{} {} {}", subject, if *negated { "!=" } else { "==" }, pattern));
                let nocase = self.options.shopt(Shopt::Nocasematch);
                Ok(Pattern::new(&pattern, true, nocase).matches(&subject) != *negated)
            }
            CondExpr::Regex(subject, regex) => {
                let subject = self.expand_string(subject)?;
                let source = self.expand_regex(regex)?;
                self.trace_cond(&format!("{} =~ {}", subject, source));
                let nocase = self.options.shopt(Shopt::Nocasematch);
                let regex = match Regex::new(&source, nocase) {
                    Ok(regex) => regex,
                    Err(_) => {
                        // An invalid regex makes `[[ ]]` return 2.
                        self.status = 2;
                        return Err(Flow::Normal);
                    }
                };
                match regex.captures(&subject) {
                    Some(groups) => {
                        let items = groups.into_iter().map(|g| g.unwrap_or_default()).collect();
                        let _ = self.set_array_list("BASH_REMATCH", items);
                        Ok(true)
                    }
                    None => {
                        let _ = self.set_array_list("BASH_REMATCH", Vec::new());
                        Ok(false)
                    }
                }
            }
            CondExpr::Word(word) => {
                let value = self.expand_string(word)?;
                self.trace_cond(&value);
                Ok(!value.is_empty())
            }
            CondExpr::Not(inner) => Ok(!self.eval_cond(inner)?),
            CondExpr::And(a, b) => Ok(self.eval_cond(a)? && self.eval_cond(b)?),
            CondExpr::Or(a, b) => Ok(self.eval_cond(a)? || self.eval_cond(b)?),
        }
    }

    /// `set -x` shows each test of `[[ ]]` as it is evaluated.
    fn trace_cond(&mut self, text: &str) {
        if self.options.get(crate::options::Opt::Xtrace) {
            self.trace_line(&format!("[[ {} ]]", text));
        }
    }

    /// An arithmetic operand of `[[ ]]`: None after reporting a non-fatal error.
    fn cond_number(&mut self, text: &str) -> Result<Option<i64>, Flow> {
        match self.eval_arith_checked(text) {
            Ok(n) => Ok(Some(n)),
            Err(failure) if failure.fatal => Err(self.arith_error(&failure, text)),
            Err(failure) => {
                self.report(&format!("[[: {}", failure.message));
                Ok(None)
            }
        }
    }

    fn cond_failure(&mut self, message: &str) -> Flow {
        self.report(message);
        self.status = 2;
        Flow::Normal
    }

    /// The right side of `=~`: quoted parts match literally, unquoted ones are regex.
    fn expand_regex(&mut self, word: &Word) -> Result<String, Flow> {
        let mut out = String::new();
        for part in &word.parts {
            let single = Word { parts: vec![part.clone()] };
            let text = self.expand_string(&single)?;
            match part {
                WordPart::Quoted(_) | WordPart::AnsiQuoted(_) | WordPart::DoubleQuoted(_) => out.push_str(&crate::regex::escape(&text)),
                _ => out.push_str(&text),
            }
        }
        Ok(out)
    }

    /// `-f file`, `-z string`, ...: `Err` carries a message for a bad operator.
    pub(crate) fn unary_test(&mut self, op: &str, arg: &str) -> Result<bool, String> {
        let stat = |shell: &mut Shell, follow: bool| shell.sys.stat(arg, follow).ok();
        Ok(match op {
            "-z" => arg.is_empty(),
            "-n" => !arg.is_empty(),
            "-e" | "-a" => stat(self, true).is_some(),
            "-f" => stat(self, true).map_or(false, |s| s.kind == FileKind::File),
            "-d" => stat(self, true).map_or(false, |s| s.kind == FileKind::Dir),
            "-b" => stat(self, true).map_or(false, |s| s.kind == FileKind::BlockDevice),
            "-c" => stat(self, true).map_or(false, |s| s.kind == FileKind::CharDevice),
            "-p" => stat(self, true).map_or(false, |s| s.kind == FileKind::Fifo),
            "-S" => stat(self, true).map_or(false, |s| s.kind == FileKind::Socket),
            "-h" | "-L" => stat(self, false).map_or(false, |s| s.kind == FileKind::Symlink),
            "-s" => stat(self, true).map_or(false, |s| s.size > 0),
            "-g" => stat(self, true).map_or(false, |s| s.perm & 0o2000 != 0),
            "-u" => stat(self, true).map_or(false, |s| s.perm & 0o4000 != 0),
            "-k" => stat(self, true).map_or(false, |s| s.perm & 0o1000 != 0),
            "-r" => stat(self, true).is_some() && self.sys.access(arg, Access::Read),
            "-w" => stat(self, true).is_some() && self.sys.access(arg, Access::Write),
            "-x" => stat(self, true).is_some() && self.sys.access(arg, Access::Execute),
            "-O" | "-G" => stat(self, true).is_some(),
            "-N" => stat(self, true).is_some(),
            "-t" => match arg.trim().parse::<u32>() {
                Ok(fd) => match self.fds.get(fd).cloned() {
                    Some(crate::io::Target::Real(real)) => self.sys.is_tty(real),
                    _ => false,
                },
                Err(_) => false,
            },
            "-v" => self.variable_is_set(arg),
            "-R" => self.vars.get_raw(arg).map_or(false, |v| v.has(crate::vars::attr::NAMEREF)),
            "-o" => self.options.get_named(arg).unwrap_or(false),
            _ => return Err(format!("{}: unary operator expected", op)),
        })
    }

    /// `-v name` / `-v name[sub]`.
    pub(crate) fn variable_is_set(&mut self, text: &str) -> bool {
        if let Some(open) = text.find('[') {
            if text.ends_with(']') {
                let name = &text[..open];
                let inner = &text[open + 1..text.len() - 1];
                // (For an associative array bash looks up `@` and `*` as keys.)
                if (inner == "@" || inner == "*") && !self.is_assoc(name) {
                    return self.get_value(name).map_or(false, |v| !v.is_empty());
                }
                let key = if self.is_assoc(name) {
                    Key::Name(inner.to_string())
                } else {
                    match self.eval_arith_text(inner) {
                        Ok(index) => Key::Index(index),
                        Err(_) => return false,
                    }
                };
                return self.get_element(name, &key).is_some();
            }
        }
        if let Ok(n) = text.parse::<usize>() {
            return n >= 1 && n <= self.positional.len();
        }
        self.get_scalar(text).is_some()
    }

    pub(crate) fn binary_test(&mut self, left: &str, op: &str, right: &str, numbers: Numbers) -> Result<bool, String> {
        let number = |shell: &mut Shell, text: &str| -> Result<i64, String> {
            match numbers {
                Numbers::Arithmetic => shell.eval_arith_text(text),
                Numbers::Integers => {
                    let trimmed = text.trim();
                    trimmed.parse::<i64>().map_err(|_| format!("{}: integer expression expected", text))
                }
            }
        };
        Ok(match op {
            "=" | "==" => left == right,
            "!=" => left != right,
            "<" => left < right,
            ">" => left > right,
            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
                let a = number(self, left)?;
                let b = number(self, right)?;
                numeric_comparison(op).map_or(false, |compare| compare(a, b))
            }
            "-nt" | "-ot" => {
                let a = self.sys.stat(left, true).ok().map(|s| s.mtime_ns);
                let b = self.sys.stat(right, true).ok().map(|s| s.mtime_ns);
                match (a, b) {
                    (Some(a), Some(b)) => {
                        if op == "-nt" {
                            a > b
                        } else {
                            a < b
                        }
                    }
                    (Some(_), None) => op == "-nt",
                    (None, Some(_)) => op == "-ot",
                    (None, None) => false,
                }
            }
            "-ef" => match (self.sys.stat(left, true), self.sys.stat(right, true)) {
                (Ok(a), Ok(b)) => a.dev == b.dev && a.ino == b.ino,
                _ => false,
            },
            _ => return Err(format!("{}: binary operator expected", op)),
        })
    }
}

/// `-eq -ne -lt -le -gt -ge` as a comparison of two numbers.
fn numeric_comparison(op: &str) -> Option<fn(i64, i64) -> bool> {
    Some(match op {
        "-eq" => |a, b| a == b,
        "-ne" => |a, b| a != b,
        "-lt" => |a, b| a < b,
        "-le" => |a, b| a <= b,
        "-gt" => |a, b| a > b,
        "-ge" => |a, b| a >= b,
        _ => return None,
    })
}
