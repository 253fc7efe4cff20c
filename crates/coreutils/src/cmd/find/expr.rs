//! The find expression: its tree and the recursive-descent parser over the command line
//! (GNU precedence: `( )`, `! -not`, implicit or explicit `-a`, `-o`, `,`), with GNU's
//! error messages. Global options (-maxdepth, -depth, ...) parse to `True` and set
//! `Options`; primaries that need files or compiled patterns are prepared here once.

use std::ffi::OsString;

use common::args::os_bytes;
use common::regex::Regex;

use super::primary::RegexType;
use super::printf::Format;

/// `+n`, `-n` or `n` in numeric tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Greater,
    Less,
    Equal,
}

impl Cmp {
    pub fn test(self, value: u64, n: u64) -> bool {
        match self {
            Cmp::Greater => value > n,
            Cmp::Less => value < n,
            Cmp::Equal => value == n,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    Access,
    Change,
    Modify,
    /// -used: GNU compares the status change time minus the access time.
    Used,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermKind {
    Exact,
    All,
    Any,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Execute,
}

/// How `-exec`-like actions run their command.
#[derive(Clone)]
pub struct ExecSpec {
    pub argv: Vec<Vec<u8>>,
    /// `+`: batch many paths into one command.
    pub batch: bool,
    /// -execdir: run in the file's directory with `./name`.
    pub in_dir: bool,
    /// Index into the run's batch states.
    pub slot: usize,
}

pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    True,
    False,
    Name { pattern: Vec<u8>, icase: bool },
    Path { pattern: Vec<u8>, icase: bool },
    LinkName { pattern: Vec<u8>, icase: bool },
    Regex(Box<Regex>),
    /// Type letters to accept (f d l p s c b D); `follow` for -xtype.
    Type { types: Vec<u8>, xtype: bool },
    Size { cmp: Cmp, n: u64, unit: u64 },
    Empty,
    /// -mtime and friends: compare against `reference` (ns) within `window` (ns).
    Time { stamp: Stamp, cmp: Cmp, reference: i128, window: i128 },
    /// -newer, -anewer, -cnewer, -newerXY: strictly newer than `reference` (ns).
    Newer { stamp: Stamp, reference: i128 },
    Perm { kind: PermKind, mode: [u32; 2] },
    Uid(Cmp, u64),
    Gid(Cmp, u64),
    NoUser,
    NoGroup,
    Links(Cmp, u64),
    Inum(Cmp, u64),
    SameFile { dev: u64, ino: u64 },
    Access(Access),
    Print { zero: bool, file: Option<usize> },
    Printf { format: Format, file: Option<usize> },
    Ls { file: Option<usize> },
    Delete,
    Exec(ExecSpec),
    Prune,
    Quit,
}

impl Expr {
    /// Whether the expression contains an action (else `-print` is implied).
    pub fn has_action(&self) -> bool {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => a.has_action() || b.has_action(),
            Expr::Not(a) => a.has_action(),
            Expr::Print { .. } | Expr::Printf { .. } | Expr::Ls { .. } | Expr::Delete | Expr::Exec(_) => true,
            _ => false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    Never,
    CommandLine,
    Always,
}

/// Global settings the expression sets.
pub struct Options {
    pub follow: Follow,
    pub max_depth: Option<usize>,
    pub min_depth: usize,
    pub depth_first: bool,
    pub same_fs: bool,
    /// Output files of -fprint and friends, by name, in order of first mention.
    pub files: Vec<Vec<u8>>,
    pub execs: Vec<ExecSpec>,
    pub warnings: bool,
}

/// Parse failures carry GNU's message (find exits 1).
pub struct ParseError(pub String);

pub(super) type Result<T> = std::result::Result<T, ParseError>;

pub(super) fn err<T>(message: String) -> Result<T> {
    Err(ParseError(message))
}

/// GNU's ‘quotes’ around names in messages (find runs in a UTF-8 locale).
pub fn q(name: &[u8]) -> String {
    format!("\u{2018}{}\u{2019}", String::from_utf8_lossy(name))
}

pub struct Parser<'a> {
    pub(super) args: &'a [OsString],
    pub(super) pos: usize,
    pub options: Options,
    pub(super) regex_type: RegexType,
    /// "now" and the start of today for -mtime/-daystart, in ns.
    pub(super) now: i128,
    pub(super) day_start: i128,
    pub(super) seen_test: Option<String>,
    /// Warnings to print (without the `find: ` prefix). Those about the command line
    /// need -warn before them: GNU's default is on only when standard input is a
    /// terminal, which it never is in the sandbox.
    pub warnings: Vec<String>,

}

impl<'a> Parser<'a> {
    pub fn new(args: &'a [OsString], follow: Follow, now: i128) -> Parser<'a> {
        Parser {
            args,
            pos: 0,
            options: Options { follow, max_depth: None, min_depth: 0, depth_first: false, same_fs: false, files: Vec::new(), execs: Vec::new(), warnings: false },
            regex_type: RegexType::Emacs,
            now,
            day_start: now - 86_400_000_000_000,
            seen_test: None,
            warnings: Vec::new(),
        }
    }

    pub(super) fn peek(&self) -> Option<&'a [u8]> {
        self.args.get(self.pos).map(|a| os_bytes(a))
    }

    pub(super) fn arg(&mut self, name: &str) -> Result<&'a [u8]> {
        match self.args.get(self.pos) {
            Some(a) => {
                self.pos += 1;
                Ok(os_bytes(a))
            }
            None => err(format!("missing argument to `{}'", name)),
        }
    }

    /// The whole expression (None when there is none).
    pub fn parse(&mut self) -> Result<Option<Expr>> {
        if self.peek().is_none() {
            return Ok(None);
        }
        let e = self.comma()?;
        if let Some(t) = self.peek() {
            if t == b")" {
                return err("you have too many ')'".to_string());
            }
            return err(format!("paths must precede expression: `{}'", String::from_utf8_lossy(t)));
        }
        Ok(Some(e))
    }

    fn comma(&mut self) -> Result<Expr> {
        let mut left = self.or()?;
        while self.peek() == Some(b",") {
            self.pos += 1;
            if self.peek().map_or(true, |t| t == b")") {
                return err("expected an expression after ','".to_string());
            }
            let right = self.or()?;
            left = Expr::Comma(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn or(&mut self) -> Result<Expr> {
        let mut left = self.and()?;
        while let Some(t) = self.peek().filter(|t| *t == b"-o" || *t == b"-or") {
            let name = String::from_utf8_lossy(t).into_owned();
            self.pos += 1;
            if self.peek().map_or(true, |t| t == b")" || t == b",") {
                return err(format!("expected an expression after '{}'", name));
            }
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr> {
        let mut left = self.unary()?;
        loop {
            match self.peek() {
                Some(t) if t == b"-a" || t == b"-and" => {
                    let name = String::from_utf8_lossy(t).into_owned();
                    self.pos += 1;
                    if self.peek().map_or(true, |t| t == b")" || t == b"," || t == b"-o" || t == b"-or") {
                        return err(format!("expected an expression after '{}'", name));
                    }
                    let right = self.unary()?;
                    left = Expr::And(Box::new(left), Box::new(right));
                }
                Some(t) if t != b")" && t != b"," && t != b"-o" && t != b"-or" => {
                    let right = self.unary()?;
                    left = Expr::And(Box::new(left), Box::new(right));
                }
                _ => return Ok(left),
            }
        }
    }

    fn unary(&mut self) -> Result<Expr> {
        let t = match self.peek() {
            Some(t) => t,
            None => return err("invalid expression".to_string()),
        };
        match t {
            b"!" | b"-not" => {
                let name = String::from_utf8_lossy(t).into_owned();
                self.pos += 1;
                if self.peek().map_or(true, |t| t == b")" || t == b"," || t == b"-o" || t == b"-or" || t == b"-a" || t == b"-and") {
                    return err(format!("expected an expression after '{}'", name));
                }
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            b"(" => {
                self.pos += 1;
                if self.peek() == Some(b")") {
                    return err("invalid expression; empty parentheses are not allowed.".to_string());
                }
                let inner = self.comma()?;
                if self.peek() != Some(b")") {
                    return err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".to_string());
                }
                self.pos += 1;
                Ok(inner)
            }
            b"-o" | b"-or" | b"-a" | b"-and" | b"," => err(format!("invalid expression; you have used a binary operator '{}' with nothing before it.", String::from_utf8_lossy(t))),
            b")" => err("invalid expression; you have too many ')'".to_string()),
            _ => {
                self.pos += 1;
                self.primary(t)
            }
        }
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(words: &[&str]) -> std::result::Result<Option<Expr>, String> {
        let args: Vec<OsString> = words.iter().map(OsString::from).collect();
        let mut p = Parser::new(&args, Follow::Never, 0);
        p.parse().map_err(|e| e.0)
    }

    #[test]
    fn precedence_and_implicit_and() {
        let e = parse(&["-name", "a", "-o", "-name", "b", "-type", "f"]).ok().flatten();
        match e {
            Some(Expr::Or(_, right)) => assert!(matches!(*right, Expr::And(_, _))),
            _ => panic!("expected -o at the top"),
        }
        let e = parse(&["!", "-name", "a", ",", "-print"]).ok().flatten();
        assert!(matches!(e, Some(Expr::Comma(_, _))));
    }

    #[test]
    fn parentheses_and_errors() {
        assert!(matches!(parse(&["(", "-name", "a", ")", "-print"]).ok().flatten(), Some(Expr::And(_, _))));
        assert_eq!(parse(&["-o"]).err().unwrap(), "invalid expression; you have used a binary operator '-o' with nothing before it.");
        assert_eq!(parse(&["(", "-name", "x"]).err().unwrap(), "invalid expression; I was expecting to find a ')' somewhere but did not see one.");
        assert_eq!(parse(&["(", ")"]).err().unwrap(), "invalid expression; empty parentheses are not allowed.");
        assert_eq!(parse(&["-name"]).err().unwrap(), "missing argument to `-name'");
        assert_eq!(parse(&["-foo"]).err().unwrap(), "unknown predicate `-foo'");
        assert_eq!(parse(&["-name", "a", "b"]).err().unwrap(), "paths must precede expression: `b'");
        assert_eq!(parse(&["-type", "x"]).err().unwrap(), "Unknown argument to -type: x");
        assert_eq!(parse(&["-type", "fd"]).err().unwrap(), "Must separate multiple arguments to -type using: ','");
        assert_eq!(parse(&["-size", "1x"]).err().unwrap(), "invalid -size type `x'");
    }

    #[test]
    fn actions_are_detected() {
        assert!(!parse(&["-name", "a", "-prune"]).ok().flatten().map_or(false, |e| e.has_action()));
        assert!(parse(&["-name", "a", "-print0"]).ok().flatten().map_or(false, |e| e.has_action()));
        assert!(parse(&["-exec", "echo", "{}", ";"]).ok().flatten().map_or(false, |e| e.has_action()));
    }
}
