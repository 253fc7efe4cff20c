//! `conformance-rs DIR`: the Rust side of the WASI conformance programs. It reaches WASI
//! preview1 the way most Rust programs do, through std (args, env, fs, time, thread::sleep
//! as poll_oneoff on a clock, process::exit as proc_exit), plus `random_get` directly (std
//! has no random API). One line per check, `name: result`, compared by
//! tests/wasi/conformance.test.ts with the same program under Node's node:wasi. DIR is a
//! preopened empty directory.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    fn random_get(buf: *mut u8, len: usize) -> u16;
}

extern "C" {
    /// wasi-libc's symlink(3) (std's is unstable on wasi in Rust 1.63): path_symlink on the
    /// preopen the path falls in.
    fn symlink(target: *const std::os::raw::c_char, path: *const std::os::raw::c_char) -> i32;
}

fn make_symlink(target: &str, path: &Path) -> io::Result<()> {
    let target = std::ffi::CString::new(target).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let path = std::ffi::CString::new(path.to_string_lossy().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: both are NUL-terminated strings that live across the call.
    if unsafe { symlink(target.as_ptr(), path.as_ptr()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn outcome<T>(result: io::Result<T>, show: impl FnOnce(T) -> String) -> String {
    match result {
        Ok(value) => show(value),
        Err(error) => match error.raw_os_error() {
            Some(code) => format!("errno{}", code),
            None => format!("error {:?}", error.kind()),
        },
    }
}

fn line(name: &str, text: String) {
    println!("{}: {}", name, text);
}

fn files(dir: &Path) {
    let path = dir.join("f");
    let created = File::create(&path).and_then(|mut f| f.write_all(b"hello world").map(|_| f));
    line("create-write", outcome(created.as_ref().map(|_| ()).map_err(|e| io::Error::from(e.kind())), |_| "ok".into()));
    let mut file = match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(file) => file,
        Err(error) => return line("open", format!("{}", error)),
    };
    line("seek-end", outcome(file.seek(SeekFrom::End(-5)), |p| format!("ok {}", p)));
    let mut text = String::new();
    line("read-to-end", outcome(file.read_to_string(&mut text), |n| format!("ok {} {}", n, text)));
    line("seek-start", outcome(file.seek(SeekFrom::Start(6)), |p| format!("ok {}", p)));
    line("stream-position", outcome(file.stream_position(), |p| format!("ok {}", p)));
    line("metadata", outcome(file.metadata(), |m| format!("ok file={} len={}", m.is_file(), m.len())));
    line("set-len", outcome(file.set_len(3).and_then(|_| file.metadata()), |m| format!("ok len={}", m.len())));
    line("set-len-grow", outcome(file.set_len(6).and_then(|_| fs::read(&path)), |b| format!("ok {:?}", b)));
    drop(file);
    let mut appender = OpenOptions::new().append(true).open(&path).expect("append open");
    line("append", outcome(appender.write_all(b"++").and_then(|_| fs::read(&path)), |b| format!("ok {:?}", b)));
    line("create-new-existing", outcome(OpenOptions::new().write(true).create_new(true).open(&path), |_| "ok".into()));
    line("open-missing", outcome(File::open(dir.join("missing")), |_| "ok".into()));
}

fn directories(dir: &Path) {
    let sub = dir.join("d");
    line("create-dir", outcome(fs::create_dir(&sub), |_| "ok".into()));
    line("create-dir-existing", outcome(fs::create_dir(&sub), |_| "ok".into()));
    for name in ["c", "a", "b"] {
        let _ = fs::write(sub.join(name), name);
    }
    let listing = fs::read_dir(&sub).map(|entries| {
        let mut names: Vec<String> = entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names.join(" ")
    });
    line("read-dir", outcome(listing, |names| format!("ok {}", names)));
    line("remove-dir-not-empty", outcome(fs::remove_dir(&sub), |_| "ok".into()));
    line("remove-file-directory", outcome(fs::remove_file(&sub), |_| "ok".into()));
    line("remove-dir-all", outcome(fs::remove_dir_all(&sub), |_| "ok".into()));
    line("metadata-removed", outcome(fs::metadata(&sub), |_| "ok".into()));
    line("file-with-slash", outcome(fs::metadata(format!("{}/", dir.join("f").display())), |_| "ok".into()));
}

fn links(dir: &Path) {
    let link = dir.join("l");
    line("symlink", outcome(make_symlink("f", &link), |_| "ok".into()));
    line("read-link", outcome(fs::read_link(&link), |t| format!("ok {}", t.display())));
    line("symlink-metadata", outcome(fs::symlink_metadata(&link), |m| format!("ok symlink={}", m.file_type().is_symlink())));
    line("metadata-through-link", outcome(fs::metadata(&link), |m| format!("ok file={} len={}", m.is_file(), m.len())));
    let _ = fs::write(dir.join("g"), "G");
    line("rename-over-existing", outcome(fs::rename(dir.join("g"), dir.join("f")), |_| "ok".into()));
    line("renamed-content", outcome(fs::read_to_string(&link), |t| format!("ok {}", t)));
    line("remove-link", outcome(fs::remove_file(&link), |_| "ok".into()));
}

fn time_and_random() {
    let start = Instant::now();
    std::thread::sleep(Duration::from_millis(20));
    line("sleep", format!("{}", if start.elapsed() >= Duration::from_millis(20) { "enough" } else { "short" }));
    let since = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() > 1_600_000_000).unwrap_or(false);
    line("system-time", format!("{}", if since { "plausible" } else { "implausible" }));
    let mut a = [0u8; 16];
    let mut b = [0u8; 16];
    // SAFETY: each buffer is valid for writes of its length.
    let status = unsafe { random_get(a.as_mut_ptr(), a.len()) + random_get(b.as_mut_ptr(), b.len()) };
    line("random-get", format!("{} {}", if status == 0 { "ok" } else { "failed" }, if a != b && a != [0; 16] { "distinct" } else { "repeated" }));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    println!("args: {}", args[1..].iter().map(|a| format!("[{}]", a)).collect::<Vec<_>>().join(" "));
    line("environ", std::env::var("CONFORMANCE_VAR").unwrap_or_else(|_| "(unset)".into()));
    let dir = match args.get(1) {
        Some(dir) => Path::new(dir).to_path_buf(),
        None => {
            eprintln!("usage: conformance-rs DIR");
            std::process::exit(2);
        }
    };
    files(&dir);
    directories(&dir);
    links(&dir);
    time_and_random();
    line("exit", "7".into());
    let _ = io::stdout().flush();
    std::process::exit(7);
}
