//! `tar -c`: walks the operands (depth first, directories in read order or by name) and
//! writes GNU-format headers and data, padded to GNU's 10240-byte records, optionally
//! through gzip.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use common::args::os_bytes;
use common::fsext::{self, Meta};
use common::users::Names;
use common::{strerror, Io};

use super::header::{self, Entry, Kind, BLOCK, RECORD};
use super::{excluded, Options};

/// Counts what goes out so the end can be padded to a whole record.
struct Counter<W: Write> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Where verbose names and messages go: verbose to stdout, or to stderr when the archive
/// itself is written on stdout.
struct Outputs<'a> {
    stdout: &'a mut dyn Write,
    stderr: &'a mut dyn Write,
    verbose_to_stderr: bool,
}

impl<'a> Outputs<'a> {
    fn verbose(&mut self, line: &[u8]) -> io::Result<()> {
        if self.verbose_to_stderr {
            self.stderr.write_all(line)
        } else {
            self.stdout.write_all(line)
        }
    }

    fn message(&mut self, text: String) {
        let _ = self.stdout.flush();
        let _ = self.stderr.write_all(text.as_bytes());
    }
}

struct Creator<'o> {
    opts: &'o Options,
    names: Names,
    status: i32,
    /// (dev, ino, stored name) of files with several links, for hard link entries.
    links: Vec<(u64, u64, Vec<u8>)>,
    archive_id: Option<(u64, u64)>,
    warned_slash: bool,
    warned_dots: Vec<Vec<u8>>,
}

pub fn run(io: &mut Io, o: &Options) -> i32 {
    if o.operands.is_empty() {
        io.error("Cowardly refusing to create an empty archive");
        let _ = writeln!(io.stderr, "Try 'tar --help' or 'tar --usage' for more information.");
        return 2;
    }
    let to_stdout = o.archive.as_ref().map_or(true, |a| os_bytes(a) == b"-");
    let file = if to_stdout {
        None
    } else {
        let path = o.archive.clone().unwrap_or_default();
        match File::create(&path) {
            Ok(f) => Some(f),
            Err(e) => {
                io.error(format!("{}: Cannot open: {}", path.to_string_lossy(), strerror(&e)));
                io.error("Error is not recoverable: exiting now");
                return 2;
            }
        }
    };
    let archive_id = o.archive.as_ref().filter(|_| !to_stdout).and_then(|a| fsext::metadata(Path::new(a), true).ok()).map(|m| (m.dev, m.ino));
    let mut creator = Creator { opts: o, names: Names::load(), status: 0, links: Vec::new(), archive_id, warned_slash: false, warned_dots: Vec::new() };
    let Io { stdout, stderr, .. } = io;
    let result = match file {
        Some(f) => {
            let mut outs = Outputs { stdout: &mut **stdout, stderr: &mut **stderr, verbose_to_stderr: false };
            creator.write_archive(BufWriter::with_capacity(common::io::BUFFER_SIZE, f), &mut outs)
        }
        None => {
            let mut nothing = io::sink();
            let mut outs = Outputs { stdout: &mut nothing, stderr: &mut **stderr, verbose_to_stderr: true };
            creator.write_archive(&mut **stdout, &mut outs)
        }
    };
    if let Err(e) = result {
        if !common::error::is_broken_pipe(&e) {
            let _ = writeln!(stderr, "tar: {}", strerror(&e));
        }
        return 2;
    }
    creator.status
}

impl<'o> Creator<'o> {
    fn write_archive<W: Write>(&mut self, out: W, outs: &mut Outputs) -> io::Result<()> {
        if self.opts.gzip {
            let gz = flate2::GzBuilder::new().operating_system(3).write(out, flate2::Compression::default());
            let mut counter = Counter { inner: gz, written: 0 };
            self.add_all(&mut counter, outs)?;
            finish(&mut counter)?;
            counter.inner.finish()?.flush()
        } else {
            let mut counter = Counter { inner: out, written: 0 };
            self.add_all(&mut counter, outs)?;
            finish(&mut counter)?;
            counter.inner.flush()
        }
    }

    fn add_all(&mut self, out: &mut dyn Write, outs: &mut Outputs) -> io::Result<()> {
        let o = self.opts;
        for (dir, operand) in &o.operands {
            let fs_path = match dir {
                Some(d) => Path::new(d).join(operand),
                None => PathBuf::from(operand),
            };
            let name = self.stored_name(os_bytes(operand), outs);
            self.add(out, &fs_path, os_bytes(operand), name, outs)?;
        }
        Ok(())
    }

    /// The member name for an operand: leading `/` and everything up to a `..` removed.
    fn stored_name(&mut self, given: &[u8], outs: &mut Outputs) -> Vec<u8> {
        let mut name = given.to_vec();
        if self.opts.absolute {
            return name;
        }
        let parts: Vec<&[u8]> = name.split(|b| *b == b'/').collect();
        if let Some(last_dots) = parts.iter().rposition(|p| *p == b"..") {
            let prefix_len: usize = parts[..=last_dots].iter().map(|p| p.len() + 1).sum();
            let prefix = name[..prefix_len.min(name.len())].to_vec();
            if !self.warned_dots.contains(&prefix) {
                outs.message(format!("tar: Removing leading `{}' from member names\n", String::from_utf8_lossy(&prefix)));
                self.warned_dots.push(prefix);
            }
            name = name[prefix_len.min(name.len())..].to_vec();
        }
        if name.first() == Some(&b'/') {
            if !self.warned_slash {
                outs.message("tar: Removing leading `/' from member names\n".to_string());
                self.warned_slash = true;
            }
            while name.first() == Some(&b'/') {
                name.remove(0);
            }
        }
        name
    }

    fn add(&mut self, out: &mut dyn Write, fs_path: &Path, shown: &[u8], name: Vec<u8>, outs: &mut Outputs) -> io::Result<()> {
        let o = self.opts;
        let meta = match fsext::metadata(fs_path, o.dereference) {
            Ok(m) => m,
            Err(e) => {
                outs.message(format!("tar: {}: Cannot stat: {}\n", String::from_utf8_lossy(shown), strerror(&e)));
                self.status = 2;
                return Ok(());
            }
        };
        if excluded(&o.excludes, &name) && !name.is_empty() {
            return Ok(());
        }
        if self.archive_id == Some((meta.dev, meta.ino)) {
            outs.message(format!("tar: {}: file is the archive; not dumped\n", String::from_utf8_lossy(shown)));
            return Ok(());
        }
        let mut entry = self.entry_for(&meta, name.clone());
        if meta.is_dir() {
            entry.kind = Kind::Directory;
            if !entry.name.ends_with(b"/") && !entry.name.is_empty() {
                entry.name.push(b'/');
            }
            if !entry.name.is_empty() {
                out.write_all(&header::encode(&entry))?;
                self.verbose(&entry, outs)?;
            }
            if o.recursion {
                let mut children: Vec<OsString> = match std::fs::read_dir(fs_path) {
                    Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.file_name()).collect(),
                    Err(e) => {
                        outs.message(format!("tar: {}: Cannot open: {}\n", String::from_utf8_lossy(shown), strerror(&e)));
                        self.status = 2;
                        return Ok(());
                    }
                };
                if o.sort_names {
                    children.sort_by(|a, b| os_bytes(a).cmp(os_bytes(b)));
                }
                for child in children {
                    let mut child_name = entry.name.clone();
                    child_name.extend_from_slice(os_bytes(&child));
                    let mut child_shown = shown.to_vec();
                    if !child_shown.ends_with(b"/") {
                        child_shown.push(b'/');
                    }
                    child_shown.extend_from_slice(os_bytes(&child));
                    self.add(out, &fs_path.join(&child), &child_shown, child_name, outs)?;
                }
            }
        } else if meta.is_symlink() {
            entry.kind = Kind::Symlink;
            entry.link = std::fs::read_link(fs_path).map(|l| os_bytes(l.as_os_str()).to_vec()).unwrap_or_default();
            out.write_all(&header::encode(&entry))?;
            self.verbose(&entry, outs)?;
        } else if meta.is_file() {
            if meta.nlink > 1 {
                if let Some((_, _, first)) = self.links.iter().find(|(d, i, _)| *d == meta.dev && *i == meta.ino) {
                    entry.kind = Kind::HardLink;
                    entry.link = first.clone();
                    entry.size = 0;
                    out.write_all(&header::encode(&entry))?;
                    self.verbose(&entry, outs)?;
                    return Ok(());
                }
                self.links.push((meta.dev, meta.ino, entry.name.clone()));
            }
            let mut file = match File::open(fs_path) {
                Ok(f) => f,
                Err(e) => {
                    outs.message(format!("tar: {}: Cannot open: {}\n", String::from_utf8_lossy(shown), strerror(&e)));
                    self.status = 2;
                    return Ok(());
                }
            };
            out.write_all(&header::encode(&entry))?;
            self.verbose(&entry, outs)?;
            let copied = copy_exact(&mut file, out, entry.size)?;
            if copied < entry.size {
                outs.message(format!("tar: {}: File shrank by {} bytes; padding with zeros\n", String::from_utf8_lossy(shown), entry.size - copied));
                self.status = 2;
                write_zeros(out, (entry.size - copied) as usize)?;
            }
            let rem = (entry.size % BLOCK as u64) as usize;
            if rem != 0 {
                write_zeros(out, BLOCK - rem)?;
            }
        } else {
            let kind = match meta.file_type() {
                fsext::S_IFCHR => Kind::CharDevice,
                fsext::S_IFBLK => Kind::BlockDevice,
                fsext::S_IFIFO => Kind::Fifo,
                _ => {
                    outs.message(format!("tar: {}: socket ignored\n", String::from_utf8_lossy(shown)));
                    return Ok(());
                }
            };
            entry.kind = kind;
            entry.size = 0;
            out.write_all(&header::encode(&entry))?;
            self.verbose(&entry, outs)?;
        }
        if o.remove_files {
            let _ = if meta.is_dir() { std::fs::remove_dir(fs_path) } else { std::fs::remove_file(fs_path) };
        }
        Ok(())
    }

    fn entry_for(&self, meta: &Meta, name: Vec<u8>) -> Entry {
        let o = self.opts;
        let (uname, uid) = match &o.owner {
            Some((n, id)) => (n.clone(), id.unwrap_or(if n.is_empty() { meta.uid as u64 } else { meta.uid as u64 })),
            None => (self.names.user_name(meta.uid).unwrap_or_default(), meta.uid as u64),
        };
        let (gname, gid) = match &o.group {
            Some((n, id)) => (n.clone(), id.unwrap_or(meta.gid as u64)),
            None => (self.names.group_name(meta.gid).unwrap_or_default(), meta.gid as u64),
        };
        // `--owner=NAME` without an id takes the id of that name when it has one.
        let uid = match &o.owner {
            Some((n, None)) if !n.is_empty() => id_of("/etc/passwd", n).unwrap_or(uid),
            _ => uid,
        };
        let gid = match &o.group {
            Some((n, None)) if !n.is_empty() => id_of("/etc/group", n).unwrap_or(gid),
            _ => gid,
        };
        let (uname, gname) = if o.numeric_owner { (String::new(), String::new()) } else { (uname, gname) };
        let uname = if uname.is_empty() && !o.numeric_owner { self.names.user_name(uid as u32).unwrap_or_default() } else { uname };
        let gname = if gname.is_empty() && !o.numeric_owner { self.names.group_name(gid as u32).unwrap_or_default() } else { gname };
        Entry {
            name,
            link: Vec::new(),
            kind: Kind::File,
            mode: meta.permissions(),
            uid,
            gid,
            uname: uname.into_bytes(),
            gname: gname.into_bytes(),
            size: if meta.is_file() { meta.size } else { 0 },
            mtime: o.mtime.unwrap_or((meta.mtime_ns.div_euclid(1_000_000_000)) as i64),
            devmajor: 0,
            devminor: 0,
        }
    }

    fn verbose(&self, entry: &Entry, outs: &mut Outputs) -> io::Result<()> {
        if self.opts.verbose == 0 {
            return Ok(());
        }
        let mut line = super::extract::quote_name(&entry.name);
        line.push(b'\n');
        outs.verbose(&line)
    }
}

fn write_zeros(out: &mut dyn Write, n: usize) -> io::Result<()> {
    out.write_all(&vec![0u8; n])
}

/// Copies up to `size` bytes; returns how many there were.
fn copy_exact(file: &mut File, out: &mut dyn Write, size: u64) -> io::Result<u64> {
    let mut left = size;
    let mut buf = vec![0u8; 64 * 1024];
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let n = match file.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        out.write_all(&buf[..n])?;
        left -= n as u64;
    }
    Ok(size - left)
}

/// The end-of-archive blocks and padding to a whole record.
fn finish<W: Write>(out: &mut Counter<W>) -> io::Result<()> {
    write_zeros(out, 2 * BLOCK)?;
    let rem = (out.written % RECORD as u64) as usize;
    if rem != 0 {
        write_zeros(out, RECORD - rem)?;
    }
    Ok(())
}

/// The id of a user or group name in /etc/passwd or /etc/group.
fn id_of(table: &str, name: &str) -> Option<u64> {
    let text = std::fs::read(table).ok()?;
    text.split(|b| *b == b'\n').find_map(|line| {
        let mut fields = line.split(|b| *b == b':');
        if fields.next()? != name.as_bytes() {
            return None;
        }
        fields.next();
        std::str::from_utf8(fields.next()?).ok()?.parse().ok()
    })
}
