//! `tar -t` and `tar -x`: reads headers (gzip detected by its magic), applies GNU long
//! names and pax records, selects members by operand and --exclude, and lists them (GNU's
//! `-tv` columns) or writes them out; directory modes and times are set last.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use common::args::{bytes_os, os_bytes};
use common::fsops::{self, SetTime};
use common::{strerror, Io};

use super::header::{self, Block, Entry, Kind, BLOCK};
use super::{excluded, Mode, Options};

/// GNU tar's quoting of names in listings: control characters and `\` escaped.
pub fn quote_name(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            7 => out.extend_from_slice(b"\\a"),
            8 => out.extend_from_slice(b"\\b"),
            11 => out.extend_from_slice(b"\\v"),
            12 => out.extend_from_slice(b"\\f"),
            b if b < 0x20 || b == 0x7f => out.extend_from_slice(format!("\\{:03o}", b).as_bytes()),
            _ => out.push(b),
        }
    }
    out
}

struct Reader<'r> {
    input: Box<dyn Read + 'r>,
    offset: u64,
}

impl<'r> Reader<'r> {
    /// A whole block; Ok(None) at a clean end of input.
    fn block(&mut self) -> io::Result<Option<[u8; BLOCK]>> {
        let mut buf = [0u8; BLOCK];
        let mut got = 0;
        while got < BLOCK {
            match self.input.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.offset += got as u64;
        if got == 0 {
            return Ok(None);
        }
        if got < BLOCK {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "Unexpected EOF in archive"));
        }
        Ok(Some(buf))
    }

    /// A member's data (padded to blocks) into `out`.
    fn data(&mut self, size: u64, out: &mut dyn Write) -> io::Result<()> {
        let mut left = size;
        while left > 0 {
            let block = self.block()?.ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "Unexpected EOF in archive"))?;
            let take = left.min(BLOCK as u64) as usize;
            out.write_all(&block[..take])?;
            left -= take as u64;
        }
        Ok(())
    }

    fn bytes(&mut self, size: u64) -> io::Result<Vec<u8>> {
        let mut v = Vec::with_capacity(size.min(1 << 20) as usize);
        self.data(size, &mut v)?;
        Ok(v)
    }
}

struct Session<'o> {
    opts: &'o Options,
    status: i32,
    width: usize,
    matched: Vec<bool>,
    delayed: Vec<(PathBuf, u32, i64)>,
    warned: Vec<String>,
}

pub fn run(io: &mut Io, o: &Options) -> i32 {
    let from_stdin = o.archive.as_ref().map_or(true, |a| os_bytes(a) == b"-");
    let file_reader: Option<BufReader<File>> = if from_stdin {
        None
    } else {
        let path = o.archive.clone().unwrap_or_default();
        match File::open(&path) {
            Ok(f) => Some(BufReader::with_capacity(common::io::BUFFER_SIZE, f)),
            Err(e) => {
                io.error(format!("{}: Cannot open: {}", path.to_string_lossy(), strerror(&e)));
                io.error("Error is not recoverable: exiting now");
                return 2;
            }
        }
    };
    let Io { stdin, stdout, stderr, .. } = io;
    let mut file_reader = file_reader;
    let raw: &mut dyn BufRead = match file_reader.as_mut() {
        Some(r) => r,
        None => &mut **stdin,
    };
    let is_gzip = raw.fill_buf().map(|b| b.starts_with(&[0x1f, 0x8b])).unwrap_or(false);
    if o.gzip && !is_gzip && !raw.fill_buf().map(|b| b.is_empty()).unwrap_or(true) {
        let _ = writeln!(stderr, "\ngzip: stdin: not in gzip format\ntar: Child returned status 1\ntar: Error is not recoverable: exiting now");
        return 2;
    }
    let input: Box<dyn Read> = if is_gzip { Box::new(flate2::bufread::MultiGzDecoder::new(raw)) } else { Box::new(raw) };
    let mut reader = Reader { input, offset: 0 };
    let mut session = Session { opts: o, status: 0, width: 19, matched: vec![false; o.operands.len()], delayed: Vec::new(), warned: Vec::new() };
    let result = session.members(&mut reader, &mut **stdout, &mut **stderr);
    if let Err(e) = result {
        if common::error::is_broken_pipe(&e) {
            return 2;
        }
        let _ = stdout.flush();
        if e.kind() == io::ErrorKind::UnexpectedEof {
            let _ = writeln!(stderr, "tar: Unexpected EOF in archive");
            let _ = writeln!(stderr, "tar: Error is not recoverable: exiting now");
        } else {
            let _ = writeln!(stderr, "tar: {}", strerror(&e));
        }
        return 2;
    }
    session.finish_dirs();
    for (i, (_, name)) in o.operands.iter().enumerate() {
        if !session.matched[i] {
            let _ = stdout.flush();
            let _ = writeln!(stderr, "tar: {}: Not found in archive", name.to_string_lossy());
            session.status = 2;
        }
    }
    session.status
}

impl<'o> Session<'o> {
    fn members(&mut self, reader: &mut Reader, stdout: &mut dyn Write, stderr: &mut dyn Write) -> io::Result<()> {
        let mut long_name: Option<Vec<u8>> = None;
        let mut long_link: Option<Vec<u8>> = None;
        let mut pax: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut first = true;
        let mut skipping = false;
        loop {
            let block = match reader.block()? {
                Some(b) => b,
                None => return Ok(()),
            };
            let raw = match header::decode(&block) {
                Block::Zero => {
                    if self.opts.ignore_zeros {
                        continue;
                    }
                    return Ok(());
                }
                Block::Invalid => {
                    if first {
                        let _ = writeln!(stderr, "tar: This does not look like a tar archive");
                    }
                    if !skipping {
                        let _ = writeln!(stderr, "tar: Skipping to next header");
                        skipping = true;
                    }
                    self.status = 2;
                    first = false;
                    continue;
                }
                Block::Header(h) => h,
            };
            first = false;
            skipping = false;
            match raw.kind {
                // GNU long name and long link records: the text, NUL-padded.
                Kind::Other(flag @ (b'L' | b'K')) => {
                    let mut text = reader.bytes(raw.size)?;
                    while text.last() == Some(&0) {
                        text.pop();
                    }
                    if flag == b'L' {
                        long_name = Some(text);
                    } else {
                        long_link = Some(text);
                    }
                    continue;
                }
                Kind::Other(b'x') => {
                    pax = header::pax_records(&reader.bytes(raw.size)?);
                    continue;
                }
                Kind::Other(b'g') => {
                    reader.bytes(raw.size)?;
                    continue;
                }
                _ => {}
            }
            let mut entry = *raw;
            if let Some(name) = long_name.take() {
                entry.name = name;
            }
            if let Some(link) = long_link.take() {
                entry.link = link;
            }
            for (k, v) in pax.drain(..) {
                let text = String::from_utf8_lossy(&v).into_owned();
                match &k[..] {
                    b"path" => entry.name = v,
                    b"linkpath" => entry.link = v,
                    b"size" => entry.size = text.parse().unwrap_or(entry.size),
                    b"mtime" => entry.mtime = text.split('.').next().and_then(|t| t.parse().ok()).unwrap_or(entry.mtime),
                    b"uid" => entry.uid = text.parse().unwrap_or(entry.uid),
                    b"gid" => entry.gid = text.parse().unwrap_or(entry.gid),
                    b"uname" => entry.uname = v,
                    b"gname" => entry.gname = v,
                    _ => {}
                }
            }
            let data_size = if matches!(entry.kind, Kind::File | Kind::Other(_)) { entry.size } else { 0 };
            if !self.selected(&entry.name) || excluded(&self.opts.excludes, &entry.name) {
                reader.data(data_size, &mut io::sink())?;
                continue;
            }
            match self.opts.mode {
                Mode::List => {
                    self.list(&entry, stdout)?;
                    reader.data(data_size, &mut io::sink())?;
                }
                _ => self.extract(&entry, data_size, reader, stdout, stderr)?,
            }
        }
    }

    /// Whether a member is wanted: no operands, or it is one of them or inside one.
    fn selected(&mut self, name: &[u8]) -> bool {
        if self.opts.operands.is_empty() {
            return true;
        }
        let trimmed = name.strip_suffix(b"/").unwrap_or(name);
        let mut any = false;
        for (i, (_, op)) in self.opts.operands.iter().enumerate() {
            let op = os_bytes(op);
            let op = op.strip_suffix(b"/").unwrap_or(op);
            if trimmed == op || (trimmed.len() > op.len() && trimmed.starts_with(op) && trimmed[op.len()] == b'/') {
                self.matched[i] = true;
                any = true;
            }
        }
        any
    }

    fn list(&mut self, e: &Entry, out: &mut dyn Write) -> io::Result<()> {
        let mut line = Vec::new();
        if self.opts.verbose > 0 {
            let type_char = match e.kind {
                Kind::Directory => 'd',
                Kind::Symlink => 'l',
                Kind::HardLink => 'h',
                Kind::CharDevice => 'c',
                Kind::BlockDevice => 'b',
                Kind::Fifo => 'p',
                _ => '-',
            };
            let mode_text = common::modes::mode_string(e.mode & 0o7777);
            let perms: String = mode_text.chars().skip(1).collect();
            let user = if e.uname.is_empty() || self.opts.numeric_owner { e.uid.to_string() } else { String::from_utf8_lossy(&e.uname).into_owned() };
            let group = if e.gname.is_empty() || self.opts.numeric_owner { e.gid.to_string() } else { String::from_utf8_lossy(&e.gname).into_owned() };
            let size = match e.kind {
                Kind::CharDevice | Kind::BlockDevice => format!("{},{}", e.devmajor, e.devminor),
                _ => e.size.to_string(),
            };
            let pad = user.len() + 1 + group.len() + 1 + size.len();
            if pad > self.width {
                self.width = pad;
            }
            let tm = common::timefmt::Tm::at(e.mtime, 0, common::timefmt::local_offset());
            let date = format!("{:04}-{:02}-{:02} {:02}:{:02}", tm.year, tm.month, tm.day, tm.hour, tm.minute);
            line.extend_from_slice(format!("{}{} {}/{} {:>w$} {} ", type_char, perms, user, group, size, date, w = self.width - pad + size.len()).as_bytes());
        }
        line.extend_from_slice(&quote_name(&e.name));
        if self.opts.verbose > 0 {
            match e.kind {
                Kind::Symlink => {
                    line.extend_from_slice(b" -> ");
                    line.extend_from_slice(&quote_name(&e.link));
                }
                Kind::HardLink => {
                    line.extend_from_slice(b" link to ");
                    line.extend_from_slice(&quote_name(&e.link));
                }
                _ => {}
            }
        }
        line.push(b'\n');
        out.write_all(&line)
    }

    fn warn_once(&mut self, stderr: &mut dyn Write, text: String) {
        if !self.warned.contains(&text) {
            let _ = writeln!(stderr, "{}", text);
            self.warned.push(text);
        }
    }

    /// Where a member goes: components stripped, leading `/` and `..` prefixes removed.
    fn destination(&mut self, name: &[u8], stderr: &mut dyn Write) -> Option<Vec<u8>> {
        let mut parts: Vec<&[u8]> = name.split(|b| *b == b'/').filter(|p| !p.is_empty()).collect();
        if parts.len() <= self.opts.strip {
            return None;
        }
        parts.drain(..self.opts.strip);
        let mut rel = parts.join(&b'/');
        if !self.opts.absolute {
            if let Some(last) = parts.iter().rposition(|p| *p == b"..") {
                let prefix: Vec<u8> = parts[..=last].join(&b'/');
                self.warn_once(stderr, format!("tar: Removing leading `{}/' from member names", String::from_utf8_lossy(&prefix)));
                rel = parts[last + 1..].join(&b'/');
                if rel.is_empty() {
                    return None;
                }
            }
            if name.first() == Some(&b'/') && self.opts.strip == 0 {
                self.warn_once(stderr, "tar: Removing leading `/' from member names".to_string());
            }
        } else if name.first() == Some(&b'/') {
            let mut abs = b"/".to_vec();
            abs.extend_from_slice(&rel);
            rel = abs;
        }
        Some(rel)
    }

    fn extract(&mut self, e: &Entry, data_size: u64, reader: &mut Reader, stdout: &mut dyn Write, stderr: &mut dyn Write) -> io::Result<()> {
        let o = self.opts;
        let rel = match self.destination(&e.name, stderr) {
            Some(r) => r,
            None => return reader.data(data_size, &mut io::sink()),
        };
        if o.to_stdout {
            if e.kind == Kind::File {
                return reader.data(data_size, stdout);
            }
            return reader.data(data_size, &mut io::sink());
        }
        if o.verbose > 0 {
            stdout.write_all(&quote_name(&e.name))?;
            stdout.write_all(b"\n")?;
        }
        let path = match &o.directory {
            Some(d) => Path::new(d).join(bytes_os(&rel)),
            None => PathBuf::from(bytes_os(&rel)),
        };
        let shown = String::from_utf8_lossy(&e.name).into_owned();
        let link_dest = if e.kind == Kind::HardLink { self.destination(&e.link, stderr).unwrap_or_default() } else { Vec::new() };
        let mut fail = |session: &mut Session, what: &str, err: &io::Error, stdout: &mut dyn Write| {
            let _ = stdout.flush();
            let _ = writeln!(stderr, "tar: {}: {}: {}", shown, what, strerror(err));
            session.status = 2;
        };
        if let Some(parent) = path.parent() {
            if !parent.as_os_str().is_empty() && !parent.exists() {
                if let Err(err) = fs::create_dir_all(parent) {
                    fail(self, "Cannot mkdir", &err, stdout);
                    return reader.data(data_size, &mut io::sink());
                }
            }
        }
        let exists = common::fsext::metadata(&path, false).ok();
        if let Some(m) = &exists {
            if e.kind != Kind::Directory || !m.is_dir() {
                if o.skip_old {
                    return reader.data(data_size, &mut io::sink());
                }
                if o.keep_old {
                    fail(self, "Cannot open", &io::Error::from_raw_os_error(airlock_sys::errno::os::EXIST), stdout);
                    return reader.data(data_size, &mut io::sink());
                }
                if !m.is_dir() {
                    let _ = fs::remove_file(&path);
                } else if e.kind != Kind::Directory {
                    let _ = fs::remove_dir(&path);
                }
            }
        }
        let umask = if o.preserve { 0 } else { common::fsext::umask(None) };
        match e.kind {
            Kind::Directory => {
                if exists.as_ref().map_or(true, |m| !m.is_dir()) {
                    if let Err(err) = fs::create_dir(&path) {
                        fail(self, "Cannot mkdir", &err, stdout);
                        return Ok(());
                    }
                }
                self.delayed.push((path, e.mode & !umask & 0o7777, e.mtime));
                Ok(())
            }
            Kind::Symlink => {
                if let Err(err) = fsops::symlink(Path::new(&bytes_os(&e.link)), &path) {
                    fail(self, "Cannot create symlink to", &err, stdout);
                }
                Ok(())
            }
            Kind::HardLink => {
                let target = match &o.directory {
                    Some(d) => Path::new(d).join(bytes_os(&link_dest)),
                    None => PathBuf::from(bytes_os(&link_dest)),
                };
                if fs::hard_link(&target, &path).is_err() {
                    // The sandbox has no hard links: a copy is the closest thing.
                    if let Err(err) = fs::copy(&target, &path) {
                        fail(self, "Cannot hard link", &err, stdout);
                    }
                }
                Ok(())
            }
            Kind::File | Kind::Other(_) => {
                let mut file = match File::create(&path) {
                    Ok(f) => io::BufWriter::new(f),
                    Err(err) => {
                        fail(self, "Cannot open", &err, stdout);
                        return reader.data(data_size, &mut io::sink());
                    }
                };
                reader.data(data_size, &mut file)?;
                file.flush()?;
                drop(file);
                let _ = common::fsext::set_mode(&path, e.mode & !umask & 0o7777);
                if !o.touch {
                    let _ = fsops::set_times(&path, SetTime::Now, SetTime::At(e.mtime, 0), true);
                }
                Ok(())
            }
            Kind::Fifo | Kind::CharDevice | Kind::BlockDevice => {
                fail(self, "Cannot mknod", &io::Error::from_raw_os_error(airlock_sys::errno::os::PERM), stdout);
                Ok(())
            }
        }
    }

    /// Directory modes and times, deepest first, once their contents are written.
    fn finish_dirs(&mut self) {
        for (path, mode, mtime) in self.delayed.drain(..).rev() {
            let _ = common::fsext::set_mode(&path, mode);
            if !self.opts.touch {
                let _ = fsops::set_times(&path, SetTime::Now, SetTime::At(mtime, 0), true);
            }
        }
    }
}
