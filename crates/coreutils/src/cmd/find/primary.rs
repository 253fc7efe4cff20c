//! The primaries of find expressions: tests, actions and options with their arguments,
//! checked and prepared once (patterns compiled, reference files stat'ed, output files
//! named), with GNU's messages for bad arguments.

use common::args::os_bytes;
use common::regex::{Flags, Flavor, Regex};

use super::expr::{err, q, Access, Cmp, ExecSpec, Expr, Follow, ParseError, Parser, PermKind, Result, Stamp};
use super::printf;

#[derive(Clone, Copy)]
pub enum RegexType {
    Emacs,
    Basic,
    Extended,
}

const REGEX_TYPES: &str = "‘findutils-default’, ‘ed’, ‘emacs’, ‘gnu-awk’, ‘grep’, ‘posix-awk’, ‘awk’, ‘posix-basic’, ‘posix-egrep’, ‘egrep’, ‘posix-extended’, ‘posix-minimal-basic’, ‘sed’";

/// Emacs regex syntax (find's default) written as ERE: `\( \) \|` group and alternate,
/// bare `( ) | { }` are literal.
fn emacs_to_ere(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.len() + 8);
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        match c {
            b'\\' if i + 1 < p.len() => {
                let n = p[i + 1];
                match n {
                    b'(' | b')' | b'|' => out.push(n),
                    b'{' | b'}' => out.extend_from_slice(&[b'\\', n]),
                    _ => out.extend_from_slice(&[b'\\', n]),
                }
                i += 2;
                continue;
            }
            b'(' | b')' | b'|' | b'{' | b'}' => out.extend_from_slice(&[b'\\', c]),
            b'[' => {
                // Copy the bracket expression through, `]` first is literal.
                let start = i;
                i += 1;
                if i < p.len() && p[i] == b'^' {
                    i += 1;
                }
                if i < p.len() && p[i] == b']' {
                    i += 1;
                }
                while i < p.len() && p[i] != b']' {
                    i += 1;
                }
                let end = (i + 1).min(p.len());
                out.extend_from_slice(&p[start..end]);
                i = end;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// A numeric argument's leading `+` (more than) or `-` (less than), and the rest.
fn comparison(text: &str) -> (Cmp, &str) {
    match text.as_bytes().first() {
        Some(b'+') => (Cmp::Greater, &text[1..]),
        Some(b'-') => (Cmp::Less, &text[1..]),
        _ => (Cmp::Equal, text),
    }
}

fn parse_number(text: &str) -> Option<(Cmp, u64)> {
    let (cmp, digits) = comparison(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((cmp, digits.parse().ok()?))
}

impl<'a> Parser<'a> {
    fn global_option(&mut self, name: &str) {
        if let (Some(test), true) = (&self.seen_test, self.options.warnings) {
            let text = format!(
                "warning: you have specified the global option {} after the argument {}, but global options are not positional, i.e., {} affects tests specified before it as well as those specified after it.  Please specify global options before other arguments.",
                name, test, name
            );
            self.warnings.push(text);
        }
    }

    fn depth_arg(&mut self, name: &str) -> Result<usize> {
        let v = self.arg(name)?;
        let text = String::from_utf8_lossy(v).into_owned();
        match text.parse::<usize>() {
            Ok(n) if !text.starts_with('+') => Ok(n),
            _ => err(format!("Expected a positive decimal integer argument to {}, but got {}", name, q(v))),
        }
    }

    fn numeric(&mut self, name: &str) -> Result<(Cmp, u64)> {
        let v = self.arg(name)?;
        parse_number(&String::from_utf8_lossy(v)).ok_or_else(|| ParseError(format!("invalid argument `{}' to `{}'", String::from_utf8_lossy(v), name)))
    }

    fn output_file(&mut self, name: &str) -> Result<usize> {
        let file = self.arg(name)?.to_vec();
        Ok(match self.options.files.iter().position(|f| *f == file) {
            Some(i) => i,
            None => {
                self.options.files.push(file);
                self.options.files.len() - 1
            }
        })
    }

    fn reference(&mut self, name: &str) -> Result<common::fsext::Meta> {
        let file = self.arg(name)?;
        let follow = self.options.follow != Follow::Never;
        common::fsext::metadata(std::path::Path::new(&common::args::bytes_os(file)), follow)
            .or_else(|_| common::fsext::metadata(std::path::Path::new(&common::args::bytes_os(file)), false))
            .map_err(|e| ParseError(format!("{}: {}", q(file), common::strerror(&e))))
    }

    fn regex(&mut self, name: &str, icase: bool) -> Result<Expr> {
        let pattern = self.arg(name)?;
        let (source, flavor) = match self.regex_type {
            RegexType::Emacs => (emacs_to_ere(pattern), Flavor::Extended),
            RegexType::Basic => (pattern.to_vec(), Flavor::Basic),
            RegexType::Extended => (pattern.to_vec(), Flavor::Extended),
        };
        let flags = Flags { icase, newline: false, whole_line: true, whole_word: false };
        match Regex::new(&source, flavor, flags) {
            Ok(re) => Ok(Expr::Regex(Box::new(re))),
            Err(e) => err(format!("{}", e)),
        }
    }

    fn exec(&mut self, name: &str, in_dir: bool) -> Result<Expr> {
        let mut argv = Vec::new();
        let mut batch = false;
        loop {
            let word = match self.args.get(self.pos) {
                Some(w) => os_bytes(w),
                None => return err(format!("missing argument to `{}'", name)),
            };
            self.pos += 1;
            if word == b";" {
                break;
            }
            if word == b"+" && argv.last().map_or(false, |l: &Vec<u8>| l.as_slice() == b"{}") {
                batch = true;
                break;
            }
            argv.push(word.to_vec());
        }
        if argv.is_empty() {
            return err(format!("missing argument to `{}'", name));
        }
        if batch && argv[..argv.len() - 1].iter().any(|a| a.windows(2).any(|w| w == b"{}")) {
            return err(format!("Only one instance of {{}} is supported with {} ... +", name));
        }
        let spec = ExecSpec { argv, batch, in_dir, slot: self.options.execs.len() };
        self.options.execs.push(spec.clone());
        Ok(Expr::Exec(spec))
    }

    fn time(&mut self, name: &str, stamp: Stamp, minutes: bool) -> Result<Expr> {
        let v = self.arg(name)?;
        let text = String::from_utf8_lossy(v).into_owned();
        let (cmp, digits) = comparison(&text);
        let n: f64 = match digits.parse::<f64>() {
            Ok(n) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.') => n,
            _ => return err(format!("invalid argument `{}' to `{}'", text, name)),
        };
        // GNU's origins: minutes count from now, days from 24 hours ago (or the start of
        // today with -daystart); "-n" days ends at the last second of that day.
        let unit: i128 = if minutes { 60_000_000_000 } else { 86_400_000_000_000 };
        let mut origin = if minutes { self.day_start + 86_400_000_000_000 } else { self.day_start };
        if !minutes && cmp == Cmp::Less {
            origin += 86_399_000_000_000;
        }
        let reference = origin - (n * unit as f64) as i128;
        Ok(Expr::Time { stamp, cmp, reference, window: unit })
    }

    fn perm(&mut self) -> Result<Expr> {
        let v = self.arg("-perm")?;
        let text = String::from_utf8_lossy(v).into_owned();
        let (kind, spec) = match text.as_bytes().first() {
            Some(b'-') => (PermKind::All, &text[1..]),
            Some(b'/') => (PermKind::Any, &text[1..]),
            _ => (PermKind::Exact, &text[..]),
        };
        let change = if spec.starts_with('+') { None } else { common::modes::ModeChange::parse(spec) };
        match change {
            Some(c) if !spec.is_empty() => Ok(Expr::Perm { kind, mode: [c.apply(0, false, 0) & 0o7777, c.apply(0, true, 0) & 0o7777] }),
            _ => err(format!("invalid mode {}", q(v))),
        }
    }

    fn note_test(&mut self, name: &str) {
        if self.seen_test.is_none() {
            self.seen_test = Some(name.to_string());
        }
    }

    pub(super) fn primary(&mut self, token: &'a [u8]) -> Result<Expr> {
        let name = String::from_utf8_lossy(token).into_owned();
        let is_option = matches!(
            name.as_str(),
            "-maxdepth" | "-mindepth" | "-depth" | "-d" | "-xdev" | "-mount" | "-noleaf" | "-ignore_readdir_race" | "-noignore_readdir_race" | "-follow" | "-warn" | "-nowarn" | "-regextype" | "-daystart" | "-help" | "--help" | "-version" | "--version"
        );
        if is_option {
            return self.option(token, &name);
        }
        self.note_test(&name);
        let e = match name.as_str() {
            "-true" => Expr::True,
            "-false" => Expr::False,
            "-name" | "-iname" => {
                let pattern = self.arg(&name)?.to_vec();
                if self.options.warnings && pattern.contains(&b'/') && pattern != b"/" {
                    let text = format!("warning: ‘{}’ matches against basenames only, but the given pattern contains a directory separator (‘/’), thus the expression will evaluate to false all the time.  Did you mean ‘-wholename’?", name);
                    self.warnings.push(text);
                }
                Expr::Name { pattern, icase: name == "-iname" }
            }
            "-path" | "-wholename" | "-ipath" | "-iwholename" => Expr::Path { pattern: self.arg(&name)?.to_vec(), icase: name.starts_with("-i") },
            "-lname" | "-ilname" => Expr::LinkName { pattern: self.arg(&name)?.to_vec(), icase: name == "-ilname" },
            "-regex" => self.regex(&name, false)?,
            "-iregex" => self.regex(&name, true)?,
            "-type" | "-xtype" => {
                let v = self.arg(&name)?;
                let mut types = Vec::new();
                for (k, part) in v.split(|b| *b == b',').enumerate() {
                    if part.len() != 1 || !b"fdlpscbD".contains(&part[0]) {
                        if part.len() > 1 && k == 0 && v.iter().all(|c| b"fdlpscbD".contains(c)) {
                            return err(format!("Must separate multiple arguments to {} using: ','", name));
                        }
                        let shown = if part.is_empty() { v } else { part };
                        return err(format!("Unknown argument to {}: {}", name, String::from_utf8_lossy(shown)));
                    }
                    types.push(part[0]);
                }
                Expr::Type { types, xtype: name == "-xtype" }
            }
            "-size" => self.size(&name)?,
            "-empty" => Expr::Empty,
            "-mtime" => self.time(&name, Stamp::Modify, false)?,
            "-atime" => self.time(&name, Stamp::Access, false)?,
            "-ctime" => self.time(&name, Stamp::Change, false)?,
            "-mmin" => self.time(&name, Stamp::Modify, true)?,
            "-amin" => self.time(&name, Stamp::Access, true)?,
            "-cmin" => self.time(&name, Stamp::Change, true)?,
            "-used" => {
                // Days between the last status change and the last access, from a zero
                // origin as GNU computes it.
                let (cmp, n) = self.numeric(&name)?;
                Expr::Time { stamp: Stamp::Used, cmp, reference: -(n as i128) * 86_400_000_000_000, window: 86_400_000_000_000 }
            }
            "-newer" => Expr::Newer { stamp: Stamp::Modify, reference: self.reference(&name)?.mtime_ns },
            "-anewer" => Expr::Newer { stamp: Stamp::Access, reference: self.reference(&name)?.mtime_ns },
            "-cnewer" => Expr::Newer { stamp: Stamp::Change, reference: self.reference(&name)?.mtime_ns },
            n if n.starts_with("-newer") && n.len() == 8 => self.newer_xy(n)?,
            "-perm" => self.perm()?,
            "-user" | "-group" => {
                let v = self.arg(&name)?;
                let text = String::from_utf8_lossy(v).into_owned();
                let table = if name == "-user" { "/etc/passwd" } else { "/etc/group" };
                let id = lookup_id(table, &text).or_else(|| if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() { text.parse().ok() } else { None });
                match id {
                    Some(id) if name == "-user" => Expr::Uid(Cmp::Equal, id),
                    Some(id) => Expr::Gid(Cmp::Equal, id),
                    None if name == "-user" => return err(format!("{} is not the name of a known user", q(v))),
                    None => return err(format!("{} is not the name of an existing group", q(v))),
                }
            }
            "-uid" | "-gid" | "-links" | "-inum" => {
                let (c, n) = self.numeric(&name)?;
                let test: fn(Cmp, u64) -> Expr = match name.as_str() {
                    "-uid" => Expr::Uid,
                    "-gid" => Expr::Gid,
                    "-links" => Expr::Links,
                    _ => Expr::Inum,
                };
                test(c, n)
            }
            "-nouser" => Expr::NoUser,
            "-nogroup" => Expr::NoGroup,
            "-samefile" => {
                let m = self.reference(&name)?;
                Expr::SameFile { dev: m.dev, ino: m.ino }
            }
            "-readable" => Expr::Access(Access::Read),
            "-writable" => Expr::Access(Access::Write),
            "-executable" => Expr::Access(Access::Execute),
            "-print" => Expr::Print { zero: false, file: None },
            "-print0" => Expr::Print { zero: true, file: None },
            "-fprint" => Expr::Print { zero: false, file: Some(self.output_file(&name)?) },
            "-fprint0" => Expr::Print { zero: true, file: Some(self.output_file(&name)?) },
            "-printf" => {
                let f = self.arg(&name)?;
                Expr::Printf { format: printf::compile_with_warnings(f, &mut self.warnings).map_err(ParseError)?, file: None }
            }
            "-fprintf" => {
                let file = self.output_file(&name)?;
                let f = self.arg(&name)?;
                Expr::Printf { format: printf::compile_with_warnings(f, &mut self.warnings).map_err(ParseError)?, file: Some(file) }
            }
            "-ls" => Expr::Ls { file: None },
            "-fls" => Expr::Ls { file: Some(self.output_file(&name)?) },
            "-delete" => {
                self.options.depth_first = true;
                Expr::Delete
            }
            "-exec" => self.exec(&name, false)?,
            "-execdir" => self.exec(&name, true)?,
            "-ok" | "-okdir" => return err(format!("option not supported in the sandbox: {} (there is no terminal to ask; use {})", name, if name == "-ok" { "-exec" } else { "-execdir" })),
            "-prune" => Expr::Prune,
            "-quit" => Expr::Quit,
            "-fstype" => {
                let v = self.arg(&name)?;
                if v == b"airlock" || v == b"ext4" {
                    Expr::True
                } else {
                    Expr::False
                }
            }
            _ => return unknown(token, &name),
        };
        Ok(e)
    }

    /// The options that look like tests (`-maxdepth`, `-daystart`, ...).
    fn option(&mut self, token: &[u8], name: &str) -> Result<Expr> {
        let name = name.to_string();
        Ok(match name.as_str() {
            "-maxdepth" => {
                self.global_option(&name);
                self.options.max_depth = Some(self.depth_arg(&name)?);
                Expr::True
            }
            "-mindepth" => {
                self.global_option(&name);
                self.options.min_depth = self.depth_arg(&name)?;
                Expr::True
            }
            "-depth" | "-d" => {
                self.global_option(&name);
                self.options.depth_first = true;
                Expr::True
            }
            "-xdev" | "-mount" => {
                self.global_option(&name);
                self.options.same_fs = true;
                Expr::True
            }
            "-noleaf" | "-ignore_readdir_race" | "-noignore_readdir_race" => Expr::True,
            "-follow" => {
                self.options.follow = Follow::Always;
                Expr::True
            }
            "-warn" => {
                self.options.warnings = true;
                Expr::True
            }
            "-nowarn" => {
                self.options.warnings = false;
                Expr::True
            }
            "-daystart" => {
                // The start of today (UTC or TZ's fixed offset).
                let offset = common::timefmt::local_offset() as i128 * 1_000_000_000;
                let local = self.now + offset;
                self.day_start = local - local.rem_euclid(86_400_000_000_000) - offset;
                Expr::True
            }
            "-regextype" => {
                let v = self.arg(&name)?;
                self.regex_type = match v {
                    b"findutils-default" | b"emacs" => RegexType::Emacs,
                    b"ed" | b"grep" | b"posix-basic" | b"posix-minimal-basic" | b"sed" => RegexType::Basic,
                    b"gnu-awk" | b"posix-awk" | b"awk" | b"posix-egrep" | b"egrep" | b"posix-extended" => RegexType::Extended,
                    _ => return err(format!("Unknown regular expression type {}; valid types are {}.", q(v), REGEX_TYPES)),
                };
                Expr::True
            }
            _ => return unknown(token, &name),
        })
    }

    /// `-size [+-]N[bcwkMG]`.
    fn size(&mut self, name: &str) -> Result<Expr> {
        let v = self.arg(name)?;
        let text = String::from_utf8_lossy(v).into_owned();
        let (cmp, rest) = comparison(&text);
        let digits_end = rest.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(rest.len());
        let unit = match &rest[digits_end..] {
            "" | "b" => 512,
            "c" => 1,
            "w" => 2,
            "k" => 1024,
            "M" => 1 << 20,
            "G" => 1 << 30,
            _ => return err(format!("invalid -size type `{}'", &rest[digits_end..])),
        };
        if digits_end == 0 {
            return err(format!("invalid -size type `{}'", text));
        }
        Ok(Expr::Size { cmp, n: rest[..digits_end].parse().unwrap_or(u64::MAX), unit })
    }

    /// `-newerXY REF`: X is the stamp compared, Y that of REF (`t`: REF is a date).
    fn newer_xy(&mut self, n: &str) -> Result<Expr> {
        let (x, y) = (n.as_bytes()[6], n.as_bytes()[7]);
        let stamp = |c: u8| match c {
            b'a' => Some(Stamp::Access),
            b'c' => Some(Stamp::Change),
            b'm' => Some(Stamp::Modify),
            _ => None,
        };
        let which = stamp(x).ok_or_else(|| ParseError(format!("invalid predicate `{}'", n)))?;
        let reference = if y == b't' {
            let v = self.arg(n)?;
            let text = String::from_utf8_lossy(v).into_owned();
            let now = common::timefmt::split_ns(self.now);
            match common::timefmt::parse_date(&text, now) {
                Some((s, ns)) => s as i128 * 1_000_000_000 + ns as i128,
                None => return err(format!("I cannot figure out how to interpret {} as a date or time", q(v))),
            }
        } else {
            let m = self.reference(n)?;
            match stamp(y) {
                Some(Stamp::Access) => m.atime_ns,
                Some(Stamp::Change) => m.ctime_ns,
                Some(Stamp::Modify) => m.mtime_ns,
                _ => return err(format!("invalid predicate `{}'", n)),
            }
        };
        Ok(Expr::Newer { stamp: which, reference })
    }
}

/// A word that is no primary: an unknown one, or an operand after the expression began.
fn unknown(token: &[u8], name: &str) -> Result<Expr> {
    if token.first() == Some(&b'-') {
        return err(format!("unknown predicate `{}'", name));
    }
    err(format!("paths must precede expression: `{}'", name))
}

/// A name's id in /etc/passwd or /etc/group.
fn lookup_id(table: &str, name: &str) -> Option<u64> {
    let text = std::fs::read(table).ok()?;
    for line in text.split(|b| *b == b'\n') {
        let mut fields = line.split(|b| *b == b':');
        if fields.next() == Some(name.as_bytes()) {
            let _ = fields.next();
            return std::str::from_utf8(fields.next()?).ok()?.parse().ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emacs_regex_translation() {
        let cases: [(&[u8], &[u8]); 3] = [(b"\\(a\\|b\\)+", b"(a|b)+"), (b"a(b)|{c}", b"a\\(b\\)\\|\\{c\\}"), (b"[]()]x", b"[]()]x")];
        for (emacs, ere) in cases {
            assert_eq!(emacs_to_ere(emacs), ere.to_vec(), "{}", String::from_utf8_lossy(emacs));
        }
    }
}
