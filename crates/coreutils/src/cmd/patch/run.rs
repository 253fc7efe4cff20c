//! Applying one file's section of a patch: choosing the file to patch (GNU's naming
//! rules, creation and deletion), the "can't find file" and reversed-patch questions
//! answered as without a terminal, hunk by hunk application with offset and fuzz
//! messages, backups, rejects, and writing or removing the result.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

use common::args::bytes_os;
use common::quotearg::shell_quote_str;
use common::{strerror, Io};

use super::apply::{self, Applier};
use super::parse::{FilePatch, Hunk, Kind};
use super::{Fatal, Options};

fn path(p: &[u8]) -> PathBuf {
    PathBuf::from(bytes_os(p))
}

/// Output and bookkeeping across the file sections of one run.
pub struct Run<'o> {
    pub opts: &'o Options,
    pub say: Vec<u8>,
    pub to_stderr: bool,
    pub somefailed: bool,
    pub backed_up: HashSet<Vec<u8>>,
    pub rejects_created: HashSet<Vec<u8>>,
    pub stdout_file: Vec<u8>,
}

/// GNU's best_name: fewest directory components, then shortest base name, then shortest
/// name, among the names not ignored.
fn best_name(names: &[Option<Vec<u8>>; 3], ignore: [bool; 3]) -> Option<usize> {
    let comps = |n: &[u8]| n.iter().enumerate().filter(|(i, &c)| c == b'/' && *i + 1 < n.len() && (*i == 0 || n[i - 1] != b'/')).count();
    let base_len = |n: &[u8]| n.len() - n.iter().rposition(|&c| c == b'/').map_or(0, |p| p + 1);
    let candidates: Vec<usize> = (0..3).filter(|&i| names[i].is_some() && !ignore[i]).collect();
    let key = |i: usize| {
        let n = names[i].as_deref().unwrap_or(b"");
        (comps(n), base_len(n), n.len())
    };
    let best = candidates.iter().map(|&i| key(i)).min()?;
    candidates.into_iter().find(|&i| key(i) == best)
}

/// Directories that creating `name` would have to make.
fn new_dirs(name: &[u8]) -> usize {
    let mut count = 0;
    for (i, &c) in name.iter().enumerate() {
        if c == b'/' && i > 0 && name[i - 1] != b'/' && !path(&name[..i]).is_dir() {
            count += 1;
        }
    }
    count
}

impl<'o> Run<'o> {
    fn say(&mut self, text: &str) {
        self.say.extend_from_slice(text.as_bytes());
    }

    pub fn flush(&mut self, io: &mut Io) {
        if self.to_stderr {
            let _ = io.stderr.write_all(&self.say);
        } else {
            let _ = io.stdout.write_all(&self.say);
        }
        self.say.clear();
    }

    /// A question with no terminal to answer it: the prompt, a newline, the default.
    fn ask(&mut self, prompt: &str) {
        self.say(prompt);
        self.say("\n");
    }

    /// GNU's ok_to_reverse. Returns (reverse?, skip the rest?).
    fn ok_to_reverse(&mut self, message: &str, reverse: bool) -> (bool, bool) {
        let o = self.opts;
        if o.forward || !(o.force && o.silent) {
            self.say(message);
        }
        if o.forward {
            self.say("  Skipping patch.\n");
            return (false, true);
        }
        if o.force {
            if !o.silent {
                self.say("  Applying it anyway.\n");
            }
            return (false, false);
        }
        if o.batch {
            self.say(if reverse { "  Ignoring -R.\n" } else { "  Assuming -R.\n" });
            return (true, false);
        }
        self.ask(if reverse { "  Ignore -R? [n] " } else { "  Assume -R? [n] " });
        self.ask("Apply anyway? [n] ");
        if !o.silent {
            self.say("Skipping patch.\n");
        }
        (false, true)
    }

    fn backup_name(&self, name: &[u8]) -> Vec<u8> {
        let (dir, base) = match name.iter().rposition(|&c| c == b'/') {
            Some(p) => (&name[..=p], &name[p + 1..]),
            None => (&b""[..], name),
        };
        let mut out = self.opts.prefix.clone().unwrap_or_default();
        out.extend_from_slice(dir);
        if let Some(bp) = &self.opts.basename_prefix {
            out.extend_from_slice(bp);
        }
        out.extend_from_slice(base);
        // With -B or -Y the suffix is added only when -z was given too.
        if (self.opts.prefix.is_none() && self.opts.basename_prefix.is_none()) || self.opts.suffix_given {
            out.extend_from_slice(&self.opts.suffix);
        }
        out
    }

    /// Saves the current contents of `name` (an empty file when it does not exist), once.
    fn make_backup(&mut self, name: &[u8]) -> Result<(), Fatal> {
        if self.opts.dry_run || !self.backed_up.insert(name.to_vec()) {
            return Ok(());
        }
        let target = self.backup_name(name);
        let contents = std::fs::read(path(name)).unwrap_or_default();
        if let Some(p) = path(&target).parent() {
            let _ = std::fs::create_dir_all(p);
        }
        std::fs::write(path(&target), contents).map_err(|e| Fatal(format!("Can't create file {} : {}", shell_quote_str(&target), strerror(&e))))
    }

    /// Chooses the file to patch (GNU's intuit_diff_type naming rules). Returns the name,
    /// whether it exists, and whether the patch must be skipped.
    fn choose_file(&mut self, fp: &FilePatch, reverse: &mut bool) -> (Option<Vec<u8>>, bool, bool) {
        let mut names = fp.names.clone();
        if (names[0].is_some() || names[1].is_some()) && names[2].is_some() && !self.opts.posix {
            names[2] = None;
        }
        let meta = |n: &Option<Vec<u8>>| n.as_ref().and_then(|n| common::fsext::metadata(&path(n), false).ok());
        let metas = [meta(&names[0]), meta(&names[1]), meta(&names[2])];
        let exists = [metas[0].is_some(), metas[1].is_some(), metas[2].is_some()];
        let last_named = (0..3).rev().find(|&i| names[i].is_some());
        let mut chosen = best_name(&names, [!exists[0], !exists[1], !exists[2]]);
        let mut skip = false;
        if let Some(i0) = last_named {
            let regular = chosen.map_or(true, |i| metas[i].map_or(false, |m| !m.is_dir()));
            if regular {
                let target = chosen.unwrap_or(i0);
                let nonexistent = chosen.is_none();
                let is_empty = nonexistent || metas[target].map_or(true, |m| m.size == 0);
                let name = names[target].clone().unwrap_or_default();
                let (reversed, s) = self.maybe_reverse(fp, &name, nonexistent, is_empty, reverse);
                skip |= s;
                if reversed && chosen.is_none() {
                    chosen = Some(i0);
                }
            }
        }
        if chosen.is_none() && fp.says_nonexistent[*reverse as usize] != 0 {
            let dirs: Vec<Option<usize>> = names.iter().map(|n| n.as_ref().map(|n| new_dirs(n))).collect();
            let min = dirs.iter().flatten().min().copied();
            if let Some(min) = min {
                let ignore = [dirs[0].map_or(true, |d| d > min), dirs[1].map_or(true, |d| d > min), dirs[2].map_or(true, |d| d > min)];
                chosen = best_name(&names, ignore);
            }
        }
        match chosen {
            Some(i) => (names[i].clone(), exists[i], skip),
            None => (None, false, skip),
        }
    }

    /// GNU's maybe_reverse: a patch that creates an existing file or deletes a missing one
    /// looks reversed. Returns (looked reversed, skip).
    fn maybe_reverse(&mut self, fp: &FilePatch, name: &[u8], nonexistent: bool, is_empty: bool, reverse: &mut bool) -> (bool, bool) {
        let says = |k: bool| fp.says_nonexistent[k as usize];
        let looks_reversed = (!is_empty as u8) < says(*reverse ^ is_empty);
        if is_empty && says(*reverse ^ nonexistent) == 1 && says(!*reverse ^ nonexistent) == 2 {
            return (false, false);
        }
        if !looks_reversed {
            return (false, false);
        }
        let message = format!(
            "The next patch{} would {} the file {},\nwhich {}!",
            if *reverse { ", when reversed," } else { "" },
            if nonexistent {
                "delete"
            } else if is_empty {
                "empty out"
            } else {
                "create"
            },
            shell_quote_str(name),
            if nonexistent {
                "does not exist"
            } else if is_empty {
                "is already empty"
            } else {
                "already exists"
            }
        );
        let (r, skip) = self.ok_to_reverse(&message, *reverse);
        if r {
            *reverse = !*reverse;
        }
        (true, skip)
    }

    pub fn file(&mut self, fp: FilePatch, origfile: Option<&[u8]>) -> Result<(), Fatal> {
        let o = self.opts;
        let mut reverse = o.reverse;
        let kind = fp.kind.unwrap_or(Kind::Unified);
        let (inname, mut skip) = match origfile {
            Some(name) => {
                let meta = common::fsext::metadata(&path(name), true);
                let mut skip = false;
                if meta.as_ref().map_or(true, |m| !m.is_dir()) {
                    let missing = meta.is_err();
                    let empty = missing || meta.as_ref().map_or(true, |m| m.size == 0);
                    skip = self.maybe_reverse(&fp, name, missing, empty, &mut reverse).1;
                }
                (Some(name.to_vec()), skip)
            }
            None => {
                let (name, _, skip) = self.choose_file(&fp, &mut reverse);
                (name, skip)
            }
        };
        let total = fp.hunks.len();
        let inname = match inname {
            Some(n) => n,
            None => {
                self.no_file(&fp, kind, total);
                return Ok(());
            }
        };
        if skip {
            self.somefailed = true;
            self.say(&format!("{} out of {} hunk{} ignored\n", total, total, if total == 1 { "" } else { "s" }));
            return Ok(());
        }
        let outname = o.output.clone().unwrap_or_else(|| inname.clone());
        let input = match std::fs::read(path(&inname)) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Fatal(format!("Can't open file {} : {}", shell_quote_str(&inname), strerror(&e)))),
        };
        if !o.silent {
            let verb = if o.dry_run { "checking" } else { "patching" };
            if outname != inname {
                self.say(&format!("{} file {} (read from {})\n", verb, shell_quote_str(&outname), String::from_utf8_lossy(&inname)));
            } else {
                self.say(&format!("{} file {}\n", verb, shell_quote_str(&outname)));
            }
        }
        let mut applier = Applier::new(&input, o.ignore_whitespace);
        let mut rej: Vec<u8> = Vec::new();
        let mut failed = 0;
        let mut mismatch = false;
        let mut apply_anyway = false;
        let reject_kind = o.reject_format.unwrap_or(kind);
        for (index, original) in fp.hunks.iter().enumerate() {
            let number = index + 1;
            let mut hunk: Hunk = if reverse { original.swapped() } else { original.clone() };
            let context = hunk.prefix_context.max(hunk.suffix_context) as isize;
            let max_fuzz = o.fuzz.min(context);
            let mut where_ = 0;
            let mut fuzz: isize = 0;
            if !skip {
                loop {
                    let mut incr = 1;
                    where_ = applier.locate(&hunk, fuzz);
                    if where_ == 0 || fuzz != 0 || applier.in_offset != 0 {
                        mismatch = true;
                    }
                    if number == 1 && where_ == 0 && !(o.force || apply_anyway) && reverse == o.reverse {
                        let swapped = hunk.swapped();
                        where_ = applier.locate(&swapped, fuzz);
                        let message = if reverse { "Unreversed patch detected!" } else { "Reversed (or previously applied) patch detected!" };
                        let mut accepted = false;
                        if where_ != 0 {
                            let (r, s) = self.ok_to_reverse(message, reverse);
                            skip = s;
                            accepted = r;
                        }
                        if accepted {
                            reverse = !reverse;
                            hunk = swapped;
                        } else if where_ != 0 {
                            apply_anyway = true;
                            incr = 0;
                            where_ = 0;
                        }
                    }
                    if skip || where_ != 0 {
                        break;
                    }
                    fuzz += incr;
                    if fuzz > max_fuzz {
                        break;
                    }
                }
            }
            let newwhere = if where_ != 0 { where_ } else { hunk.first as isize } + applier.out_offset;
            let ok = !skip && where_ != 0 && !(where_ == 1 && fp.says_nonexistent[reverse as usize] == 2 && !input.is_empty()) && applier.apply(&hunk, where_);
            if !ok {
                let header = if failed == 0 {
                    let names = fp.names.clone();
                    let line = |k: usize| {
                        let mut v = names[k].clone().unwrap_or_else(|| b"/dev/null".to_vec());
                        v.extend_from_slice(fp.timestr[k].as_deref().unwrap_or(b""));
                        v
                    };
                    Some(if reverse { [line(1), line(0)] } else { [line(0), line(1)] })
                } else {
                    None
                };
                apply::reject(&mut rej, reject_kind, header.as_ref(), fp.names[2].as_deref(), &hunk, applier.out_offset);
                failed += 1;
                if o.verbose || (!skip && !o.silent) {
                    let endings = if !skip && applier.line_endings_differ(&hunk, newwhere) { " (different line endings)" } else { "" };
                    self.say(&format!("Hunk #{} {} at {}{}.\n", number, if skip { "ignored" } else { "FAILED" }, newwhere, endings));
                }
            } else if o.verbose || (!o.silent && (fuzz != 0 || applier.in_offset != 0)) {
                let mut text = format!("Hunk #{} succeeded at {}", number, newwhere);
                if fuzz != 0 {
                    text.push_str(&format!(" with fuzz {}", fuzz));
                }
                if applier.in_offset != 0 {
                    text.push_str(&format!(" (offset {} line{})", applier.in_offset, if applier.in_offset == 1 { "" } else { "s" }));
                }
                text.push_str(".\n");
                self.say(&text);
            }
        }
        if !skip {
            self.write_result(&mut applier, fp.says_nonexistent[!reverse as usize] == 2, &outname, mismatch || failed > 0, failed < total)?;
        }
        if failed > 0 {
            self.save_rejects(&outname, &rej, failed, total, skip)?;
        }
        Ok(())
    }

    /// Writes the patched file (or removes it when the patch empties it), after a backup when
    /// one is asked for or the patch did not apply cleanly (`mismatched`).
    fn write_result(&mut self, applier: &mut Applier<'_>, says_gone: bool, outname: &[u8], mismatched: bool, some_applied: bool) -> Result<(), Fatal> {
        let o = self.opts;
        applier.finish();
        let backup = o.backup || (o.backup_if_mismatch.unwrap_or(!o.posix) && mismatched);
        if o.output.is_some() {
            if !o.dry_run {
                self.write_output(outname, &applier.out)?;
            }
        } else if applier.zero_output && (o.remove_empty || (says_gone && !o.posix)) {
            if !o.dry_run {
                if backup {
                    self.make_backup(outname)?;
                }
                if std::fs::remove_file(path(outname)).is_ok() {
                    remove_empty_parents(outname);
                }
            }
        } else {
            if !applier.zero_output && says_gone && !o.posix {
                self.somefailed = true;
                if !o.silent {
                    self.say(&format!("Not deleting file {} as content differs from patch\n", shell_quote_str(outname)));
                }
            }
            if !o.dry_run {
                if backup {
                    self.make_backup(outname)?;
                }
                if some_applied {
                    self.write_output(outname, &applier.out)?;
                }
            }
        }
        Ok(())
    }

    /// No file to patch was found: says so as GNU patch does and ignores the hunks.
    fn no_file(&mut self, fp: &FilePatch, kind: Kind, total: usize) {
        let o = self.opts;
        if !o.silent {
            self.say(&format!("can't find file to patch at input line {}\n", fp.start_line));
            if kind != Kind::Normal {
                self.say(if o.strip < 0 { "Perhaps you should have used the -p or --strip option?\n" } else { "Perhaps you used the wrong -p or --strip option?\n" });
            }
            if !fp.leading.is_empty() {
                self.say("The text leading up to this was:\n--------------------------\n");
                for l in &fp.leading {
                    self.say.push(b'|');
                    self.say.extend_from_slice(l);
                }
                self.say("--------------------------\n");
            }
        }
        if o.force || o.batch {
            self.say("No file to patch.  Skipping patch.\n");
        } else {
            self.ask("File to patch: ");
            self.ask("Skip this patch? [y] ");
            if !o.silent {
                self.say("Skipping patch.\n");
            }
        }
        self.somefailed = true;
        self.say(&format!("{} out of {} hunk{} ignored\n", total, total, if total == 1 { "" } else { "s" }));
    }

    /// Reports the failed hunks and writes them to the reject file (appending after the first
    /// file of the run that used it).
    fn save_rejects(&mut self, outname: &[u8], rej: &[u8], failed: usize, total: usize, skip: bool) -> Result<(), Fatal> {
        let o = self.opts;
        self.somefailed = true;
        self.say(&format!("{} out of {} hunk{} {}", failed, total, if total == 1 { "" } else { "s" }, if skip { "ignored" } else { "FAILED" }));
        let rejname = match &o.reject_file {
            Some(r) => r.clone(),
            None => {
                let mut r = outname.to_vec();
                r.extend_from_slice(b".rej");
                r
            }
        };
        if rejname.as_slice() == b"-" || o.dry_run {
            self.say("\n");
        } else {
            self.say(&format!(" -- saving rejects to file {}\n", shell_quote_str(&rejname)));
            let append = !self.rejects_created.insert(rejname.clone());
            let result = if append {
                std::fs::OpenOptions::new().append(true).open(path(&rejname)).and_then(|mut f| f.write_all(rej))
            } else {
                std::fs::write(path(&rejname), rej)
            };
            result.map_err(|e| Fatal(format!("Can't create file {} : {}", shell_quote_str(&rejname), strerror(&e))))?;
        }
        Ok(())
    }

    fn write_output(&mut self, name: &[u8], data: &[u8]) -> Result<(), Fatal> {
        if name == b"-" {
            self.stdout_file.extend_from_slice(data);
            return Ok(());
        }
        if let Some(parent) = path(name).parent() {
            if !parent.as_os_str().is_empty() {
                let _ = std::fs::create_dir_all(parent);
            }
        }
        std::fs::write(path(name), data).map_err(|e| Fatal(format!("Can't create file {} : {}", shell_quote_str(name), strerror(&e))))
    }
}

/// After deleting a file, removes the directories it leaves empty (GNU does too).
fn remove_empty_parents(name: &[u8]) {
    let mut p = path(name);
    while p.pop() {
        if p.as_os_str().is_empty() || std::fs::remove_dir(&p).is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_names() {
        let names = [Some(b"a/b/f".to_vec()), Some(b"b/f".to_vec()), None];
        assert_eq!(best_name(&names, [false, false, true]), Some(1));
        assert_eq!(best_name(&names, [false, true, true]), Some(0));
        assert_eq!(best_name(&names, [true, true, true]), None);
    }
}
