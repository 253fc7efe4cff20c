//! `test expr` and `[ expr ]`, with POSIX's rules by argument count and bash's operators.

use super::{done, fail};
use crate::exec::cond::Numbers;
use crate::exec::Flow;
use crate::shell::Shell;

pub fn test(shell: &mut Shell, args: &[String]) -> Flow {
    evaluate(shell, "test", &args[1..])
}

pub fn bracket(shell: &mut Shell, args: &[String]) -> Flow {
    if args.last().map(String::as_str) != Some("]") {
        return fail(shell, "[", "missing `]'", 2);
    }
    evaluate(shell, "[", &args[1..args.len() - 1])
}

fn evaluate(shell: &mut Shell, name: &str, args: &[String]) -> Flow {
    let mut parser = TestParser { shell, args, pos: 0 };
    match parser.top() {
        Ok(result) => done(parser.shell, (!result) as i32),
        Err(message) => fail(parser.shell, name, &message, 2),
    }
}

const BINARY: &[&str] = &["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"];

fn is_unary(op: &str) -> bool {
    matches!(
        op,
        "-a" | "-b" | "-c" | "-d" | "-e" | "-f" | "-g" | "-h" | "-k" | "-p" | "-r" | "-s" | "-t" | "-u" | "-w" | "-x" | "-G"
            | "-L" | "-N" | "-O" | "-S" | "-z" | "-n" | "-o" | "-v" | "-R"
    )
}

struct TestParser<'a, 's> {
    shell: &'s mut Shell,
    args: &'a [String],
    pos: usize,
}

impl<'a, 's> TestParser<'a, 's> {
    fn top(&mut self) -> Result<bool, String> {
        let n = self.args.len();
        let a = self.args;
        match n {
            0 => Ok(false),
            1 => Ok(!a[0].is_empty()),
            2 if a[0] == "!" => Ok(a[1].is_empty()),
            2 if is_unary(&a[0]) => self.shell.unary_test(&a[0], &a[1]),
            2 => Err(format!("{}: unary operator expected", a[0])),
            3 if BINARY.contains(&a[1].as_str()) => self.binary(&a[0], &a[1], &a[2]),
            3 if a[0] == "!" => {
                let mut inner = TestParser { shell: self.shell, args: &a[1..], pos: 0 };
                Ok(!inner.top()?)
            }
            3 if a[0] == "(" && a[2] == ")" => Ok(!a[1].is_empty()),
            3 if a[1] == "-a" => Ok(!a[0].is_empty() && !a[2].is_empty()),
            3 if a[1] == "-o" => Ok(!a[0].is_empty() || !a[2].is_empty()),
            4 if a[0] == "!" => {
                let mut inner = TestParser { shell: self.shell, args: &a[1..], pos: 0 };
                Ok(!inner.top()?)
            }
            4 if a[0] == "(" && a[3] == ")" => {
                let mut inner = TestParser { shell: self.shell, args: &a[1..3], pos: 0 };
                inner.top()
            }
            _ => {
                let result = self.or()?;
                if self.pos < self.args.len() {
                    return Err(format!("{}: binary operator expected", self.args[self.pos]));
                }
                Ok(result)
            }
        }
    }

    fn binary(&mut self, left: &str, op: &str, right: &str) -> Result<bool, String> {
        self.shell.binary_test(left, op, right, Numbers::Integers)
    }

    fn peek(&self) -> Option<&'a str> {
        self.args.get(self.pos).map(String::as_str)
    }

    fn or(&mut self) -> Result<bool, String> {
        let mut result = self.and()?;
        while self.peek() == Some("-o") {
            self.pos += 1;
            let right = self.and()?;
            result = result || right;
        }
        Ok(result)
    }

    fn and(&mut self) -> Result<bool, String> {
        let mut result = self.term()?;
        while self.peek() == Some("-a") {
            self.pos += 1;
            let right = self.term()?;
            result = result && right;
        }
        Ok(result)
    }

    fn term(&mut self) -> Result<bool, String> {
        let token = match self.peek() {
            Some(token) => token,
            None => return Err("argument expected".to_string()),
        };
        if token == "!" {
            self.pos += 1;
            return Ok(!self.term()?);
        }
        if token == "(" {
            self.pos += 1;
            let result = self.or()?;
            if self.peek() != Some(")") {
                return Err("`)' expected".to_string());
            }
            self.pos += 1;
            return Ok(result);
        }
        if let Some(op) = self.args.get(self.pos + 1).map(String::as_str) {
            if BINARY.contains(&op) && self.pos + 2 < self.args.len() {
                let (left, right) = (token.to_string(), self.args[self.pos + 2].clone());
                self.pos += 3;
                return self.binary(&left, op, &right);
            }
        }
        if is_unary(token) && self.pos + 1 < self.args.len() {
            let operand = self.args[self.pos + 1].clone();
            self.pos += 2;
            return self.shell.unary_test(token, &operand);
        }
        self.pos += 1;
        Ok(!token.is_empty())
    }
}
