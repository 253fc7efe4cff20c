//! `tail -f` / `-F`: polls the followed files and prints what was appended. By descriptor
//! (-f) it keeps reading the file it opened; by name (-F, --follow=name) it reopens the path
//! when the file is replaced, removed or appears. It ends at the run's deadline in the
//! sandbox (there are no signals to stop it), natively only when no file is left.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::time::Duration;

use common::fsext;
use common::io::quote;
use common::write::write_failed;
use common::{strerror, Io};

pub struct Settings {
    pub by_name: bool,
    pub retry: bool,
    pub sleep: Duration,
    pub show_headers: bool,
}

pub struct Followed {
    path: OsString,
    display: String,
    file: Option<File>,
    pos: u64,
    ino: u64,
}

impl Followed {
    pub fn open(path: OsString, display: String, mut file: File) -> Followed {
        let pos = file.seek(SeekFrom::Current(0)).unwrap_or(0);
        let ino = fsext::metadata(path.as_ref(), true).map(|m| m.ino).unwrap_or(0);
        Followed { path, display, file: Some(file), pos, ino }
    }

    pub fn missing(path: OsString, display: String) -> Followed {
        Followed { path, display, file: None, pos: 0, ino: 0 }
    }
}

/// Follows until the deadline (or, without --retry, until no file is left).
pub fn follow(io: &mut Io, mut files: Vec<Followed>, s: Settings, mut status: i32) -> i32 {
    if files.is_empty() {
        // Only pipes (nothing to follow) or files that failed to open.
        if status != 0 {
            io.error("no files remaining");
        }
        return status;
    }
    let mut last_shown = Some(files.len() - 1);
    loop {
        if files.iter().all(|f| f.file.is_none()) && !(s.by_name && s.retry) {
            io.error("no files remaining");
            return 1;
        }
        if let Some(ms) = airlock_sys::deadline_remaining_ms() {
            if ms <= s.sleep.as_millis() as u64 + 100 {
                return status;
            }
        }
        std::thread::sleep(s.sleep);
        for index in 0..files.len() {
            if s.by_name {
                check_name(io, &mut files[index], s.retry);
            }
            match poll(&mut files[index]) {
                Ok(Poll::Nothing) => {}
                Ok(Poll::Truncated) => {
                    io.error(format!("{}: file truncated", files[index].display));
                    if let Err(e) = print_new(io, &mut files, index, &mut last_shown, s.show_headers) {
                        return write_failed(io, &e);
                    }
                }
                Ok(Poll::Grew) => {
                    if let Err(e) = print_new(io, &mut files, index, &mut last_shown, s.show_headers) {
                        return write_failed(io, &e);
                    }
                }
                Err(e) => {
                    io.error(format!("error reading {}: {}", quote(&files[index].path), strerror(&e)));
                    files[index].file = None;
                    status = 1;
                }
            }
        }
        if let Err(e) = io.stdout.flush() {
            return write_failed(io, &e);
        }
    }
}

enum Poll {
    Nothing,
    Grew,
    Truncated,
}

fn poll(f: &mut Followed) -> io::Result<Poll> {
    let file = match f.file.as_mut() {
        Some(file) => file,
        None => return Ok(Poll::Nothing),
    };
    let size = file.metadata()?.len();
    if size < f.pos {
        f.pos = 0;
        file.seek(SeekFrom::Start(0))?;
        return Ok(Poll::Truncated);
    }
    Ok(if size > f.pos { Poll::Grew } else { Poll::Nothing })
}

/// Reads what was appended to `files[index]` and prints it (after a header when it is not
/// the file printed last).
fn print_new(io: &mut Io, files: &mut [Followed], index: usize, last_shown: &mut Option<usize>, headers: bool) -> io::Result<()> {
    let f = &mut files[index];
    let file = match f.file.as_mut() {
        Some(file) => file,
        None => return Ok(()),
    };
    file.seek(SeekFrom::Start(f.pos))?;
    let mut data = Vec::new();
    file.read_to_end(&mut data)?;
    f.pos += data.len() as u64;
    if data.is_empty() {
        return Ok(());
    }
    if headers && *last_shown != Some(index) {
        io.stdout.write_all(format!("\n==> {} <==\n", f.display).as_bytes())?;
    }
    *last_shown = Some(index);
    io.stdout.write_all(&data)
}

/// -F: notices a path that vanished, appeared or now names another file.
fn check_name(io: &mut Io, f: &mut Followed, retry: bool) {
    match fsext::metadata(f.path.as_ref(), true) {
        Err(e) => {
            if f.file.is_some() {
                io.error(format!("{} has become inaccessible: {}", quote(&f.path), strerror(&e)));
                f.file = None;
                f.ino = 0;
            }
        }
        Ok(meta) => {
            if f.file.is_some() && meta.ino == f.ino {
                return;
            }
            if f.file.is_none() && !retry {
                return;
            }
            match File::open(&f.path) {
                Ok(file) => {
                    let what = if f.file.is_some() { "has been replaced" } else { "has appeared" };
                    io.error(format!("{} {};  following new file", quote(&f.path), what));
                    f.file = Some(file);
                    f.pos = 0;
                    f.ino = meta.ino;
                }
                Err(e) => io.error(format!("cannot open {} for reading: {}", quote(&f.path), strerror(&e))),
            }
        }
    }
}
