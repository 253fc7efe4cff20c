//! `probe`: a test program for the kernel. Each subcommand exercises one part of the WASI
//! host or the `airlock` imports and prints what it observed, so tests in
//! `src/kernel/**/*.test.ts` can assert behaviour from outside the process.

mod raw_wasi;
mod sys;

use std::io::{self, BufRead, Read, Seek, SeekFrom, Write};

fn main() {
    airlock_sys::init_process();
    let args: Vec<String> = std::env::args().collect();
    let status = match run(&args[1..]) {
        Ok(status) => status,
        Err(err) => {
            let _ = writeln!(io::stderr(), "probe: {}", err);
            1
        }
    };
    let _ = io::stdout().flush();
    std::process::exit(status);
}

type Outcome = io::Result<i32>;

fn arg(args: &[String], index: usize) -> io::Result<&str> {
    args.get(index)
        .map(|s| s.as_str())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "missing argument"))
}

fn number(args: &[String], index: usize) -> io::Result<u64> {
    arg(args, index)?
        .parse()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "not a number"))
}

/// Prints an io::Result as `ok` or `err <raw errno>` so tests can match exact errnos.
fn report<T>(out: &mut impl Write, result: io::Result<T>) -> io::Result<()> {
    match result {
        Ok(_) => writeln!(out, "ok"),
        Err(e) => writeln!(out, "err {}", e.raw_os_error().unwrap_or(-1)),
    }
}

fn run(args: &[String]) -> Outcome {
    let command = arg(args, 0)?;
    let rest = &args[1..];
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match command {
        "echo" => {
            writeln!(out, "{}", rest.join(" "))?;
        }
        "env" => {
            for (key, value) in std::env::vars() {
                writeln!(out, "{}={}", key, value)?;
            }
        }
        "exit" => return Ok(number(args, 1)? as i32),
        "cat" => {
            let mut input: Box<dyn Read> = match rest.first() {
                Some(path) => Box::new(std::fs::File::open(path)?),
                None => Box::new(io::stdin()),
            };
            // 64 KiB reads like the real cat (io::copy's 8 KiB would measure syscall count).
            let mut buf = vec![0u8; 65536];
            loop {
                let n = input.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                out.write_all(&buf[..n])?;
            }
        }
        "yes" => {
            let line = format!("{}\n", rest.first().map(|s| s.as_str()).unwrap_or("y"));
            let block = line.repeat(4096 / line.len().max(1));
            loop {
                out.write_all(block.as_bytes())?;
            }
        }
        "head1" => {
            let mut line = String::new();
            io::stdin().lock().read_line(&mut line)?;
            out.write_all(line.as_bytes())?;
        }
        "count" => {
            // Counts bytes on stdin: a reader for throughput and EOF tests.
            let mut total: u64 = 0;
            let mut buf = vec![0u8; 65536];
            let mut stdin = io::stdin();
            loop {
                let n = stdin.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            writeln!(out, "{}", total)?;
        }
        "emit" => {
            // Writes N bytes of 'x' in 64 KiB blocks.
            let mut left = number(args, 1)?;
            let block = vec![b'x'; 65536];
            while left > 0 {
                let n = left.min(block.len() as u64) as usize;
                out.write_all(&block[..n])?;
                left -= n as u64;
            }
        }
        "spin" => {
            // No syscalls at all: only the host's hard kill can stop this.
            let mut x: u64 = 1;
            loop {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                if x == 42 {
                    break;
                }
            }
            writeln!(out, "{}", x)?;
        }
        "sleep" => std::thread::sleep(std::time::Duration::from_millis(number(args, 1)?)),
        "alloc" => {
            let megabytes = number(args, 1)? as usize;
            let mut blocks = Vec::new();
            for _ in 0..megabytes {
                blocks.push(vec![1u8; 1 << 20]);
            }
            writeln!(out, "allocated {}", blocks.len())?;
        }
        "args" => {
            for a in rest {
                writeln!(out, "[{}]", a)?;
            }
        }
        "stderr" => {
            writeln!(io::stderr(), "{}", rest.join(" "))?;
        }
        "pwd" => writeln!(out, "{}", std::env::current_dir()?.display())?,
        "write" => report(&mut out, std::fs::write(arg(args, 1)?, arg(args, 2)?))?,
        "write-many" => {
            // `write-many N PATH`: N attempts to create PATH (a refusal flood when it is
            // read-only), or PATH0, PATH1, ... when PATH ends in '/'; prints how many failed.
            let mut failed = 0u64;
            let path = arg(args, 2)?;
            for i in 0..number(args, 1)? {
                let target = if path.ends_with('/') { format!("{}{}", path, i) } else { path.to_string() };
                if std::fs::File::create(&target).is_err() {
                    failed += 1;
                }
            }
            writeln!(out, "failed {}", failed)?;
        }
        "append" => {
            let result = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(arg(args, 1)?)
                .and_then(|mut f| f.write_all(arg(args, 2)?.as_bytes()));
            report(&mut out, result)?;
        }
        "read" => match std::fs::read(arg(args, 1)?) {
            Ok(bytes) => out.write_all(&bytes)?,
            Err(e) => writeln!(out, "err {}", e.raw_os_error().unwrap_or(-1))?,
        },
        "mkdir" => report(&mut out, std::fs::create_dir(arg(args, 1)?))?,
        "rmdir" => report(&mut out, std::fs::remove_dir(arg(args, 1)?))?,
        "unlink" => report(&mut out, std::fs::remove_file(arg(args, 1)?))?,
        "rename" => report(&mut out, std::fs::rename(arg(args, 1)?, arg(args, 2)?))?,
        "symlink" => writeln!(out, "errno {}", raw_wasi::symlink(arg(args, 1)?, arg(args, 2)?))?,
        "readlink" => match std::fs::read_link(arg(args, 1)?) {
            Ok(target) => writeln!(out, "{}", target.display())?,
            Err(e) => writeln!(out, "err {}", e.raw_os_error().unwrap_or(-1))?,
        },
        "stat" | "lstat" => {
            let path = arg(args, 1)?;
            let meta = if command == "stat" { std::fs::metadata(path) } else { std::fs::symlink_metadata(path) };
            match meta {
                Ok(m) => {
                    let kind = if m.is_dir() {
                        "dir"
                    } else if m.is_symlink() {
                        "symlink"
                    } else if m.is_file() {
                        "file"
                    } else {
                        "other"
                    };
                    let mtime = m
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map(|d| d.as_secs())
                        .unwrap_or(0);
                    writeln!(out, "{} {} {}", kind, m.len(), mtime)?;
                }
                Err(e) => writeln!(out, "err {}", e.raw_os_error().unwrap_or(-1))?,
            }
        }
        "ls" => {
            let mut names: Vec<String> = std::fs::read_dir(arg(args, 1)?)?
                .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect::<io::Result<_>>()?;
            names.sort();
            for name in names {
                writeln!(out, "{}", name)?;
            }
        }
        "truncate" => {
            let file = std::fs::OpenOptions::new().write(true).open(arg(args, 1)?)?;
            report(&mut out, file.set_len(number(args, 2)?))?;
        }
        "seek" => {
            // seek PATH OFFSET: prints the byte at OFFSET and the position after reading it.
            let mut file = std::fs::File::open(arg(args, 1)?)?;
            let pos = file.seek(SeekFrom::Start(number(args, 2)?))?;
            let mut byte = [0u8; 1];
            let n = file.read(&mut byte)?;
            writeln!(out, "{} {} {}", pos, n, if n == 1 { byte[0] as char } else { '-' })?;
            writeln!(out, "end {}", file.seek(SeekFrom::End(0))?)?;
        }
        "settimes" => {
            let path = arg(args, 1)?;
            let secs = number(args, 2)?;
            let code = raw_wasi::set_times(path, secs);
            writeln!(out, "errno {}", code)?;
        }
        "clock" => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|_| io::Error::new(io::ErrorKind::Other, "clock before epoch"))?;
            let start = std::time::Instant::now();
            std::thread::sleep(std::time::Duration::from_millis(5));
            writeln!(out, "{} {}", now.as_secs() > 1_600_000_000, start.elapsed().as_millis() >= 5)?;
        }
        "random" => {
            let bytes = raw_wasi::random(16);
            writeln!(out, "{} {}", bytes.len(), bytes.iter().any(|b| *b != 0))?;
        }
        "isatty" => {
            for fd in 0..3 {
                writeln!(out, "{} {}", fd, raw_wasi::filetype(fd))?;
            }
        }
        "raw" => {
            // raw NAME: calls a WASI function that the kernel declares ENOSYS and prints its errno.
            writeln!(out, "errno {}", raw_wasi::call_unsupported(arg(args, 1)?))?;
        }
        "spawn" => {
            // spawn PROGRAM ARGS...: runs a child with inherited stdio, prints its status.
            let program = arg(args, 1)?;
            let argv: Vec<&str> = rest.iter().map(|s| s.as_str()).collect();
            let mut request = airlock_sys::SpawnRequest::new(program, &argv);
            request.env = std::env::vars().map(|(k, v)| format!("{}={}", k, v).into_bytes()).collect();
            out.flush()?;
            match airlock_sys::spawn(&request) {
                Ok(pid) => {
                    let waited = airlock_sys::wait(pid as i32, 0);
                    match waited {
                        Ok(Some(result)) => writeln!(out, "status {}", result.status)?,
                        Ok(None) => writeln!(out, "status none")?,
                        Err(e) => writeln!(out, "wait err {}", e.0)?,
                    }
                }
                Err(e) => writeln!(out, "spawn err {}", e.0)?,
            }
        }
        "pipeline" => {
            // pipeline: spawns `probe emit N` | `probe count` through a pipe made here.
            let bytes = number(args, 1)?;
            let (read_end, write_end) = airlock_sys::pipe().map_err(errno_to_io)?;
            let mut writer = airlock_sys::SpawnRequest::new("probe", &["probe", "emit", &bytes.to_string()]);
            writer.fds[1].parent_fd = write_end;
            let mut reader = airlock_sys::SpawnRequest::new("probe", &["probe", "count"]);
            reader.fds[0].parent_fd = read_end;
            out.flush()?;
            let w = airlock_sys::spawn(&writer).map_err(errno_to_io)?;
            let r = airlock_sys::spawn(&reader).map_err(errno_to_io)?;
            raw_wasi::close(read_end);
            raw_wasi::close(write_end);
            let sw = airlock_sys::wait(w as i32, 0).map_err(errno_to_io)?;
            let sr = airlock_sys::wait(r as i32, 0).map_err(errno_to_io)?;
            writeln!(out, "statuses {} {}", sw.map(|s| s.status).unwrap_or(999), sr.map(|s| s.status).unwrap_or(999))?;
        }
        "pipe3" => {
            // probe emit N | probe cat | probe count: a three-stage pipeline for throughput.
            let bytes = number(args, 1)?;
            let (r1, w1) = airlock_sys::pipe().map_err(errno_to_io)?;
            let (r2, w2) = airlock_sys::pipe().map_err(errno_to_io)?;
            let mut first = airlock_sys::SpawnRequest::new("probe", &["probe", "emit", &bytes.to_string()]);
            first.fds[1].parent_fd = w1;
            let mut middle = airlock_sys::SpawnRequest::new("probe", &["probe", "cat"]);
            middle.fds[0].parent_fd = r1;
            middle.fds[1].parent_fd = w2;
            let mut last = airlock_sys::SpawnRequest::new("probe", &["probe", "count"]);
            last.fds[0].parent_fd = r2;
            out.flush()?;
            let pids = [
                airlock_sys::spawn(&first).map_err(errno_to_io)?,
                airlock_sys::spawn(&middle).map_err(errno_to_io)?,
                airlock_sys::spawn(&last).map_err(errno_to_io)?,
            ];
            for fd in [r1, w1, r2, w2] {
                raw_wasi::close(fd);
            }
            for pid in pids {
                airlock_sys::wait(pid as i32, 0).map_err(errno_to_io)?;
            }
        }
        "yes-head" => {
            // `probe yes | probe head1`: head ends after one line, yes must then die of SIGPIPE.
            let (read_end, write_end) = airlock_sys::pipe().map_err(errno_to_io)?;
            let mut writer = airlock_sys::SpawnRequest::new("probe", &["probe", "yes"]);
            writer.fds[1].parent_fd = write_end;
            let mut reader = airlock_sys::SpawnRequest::new("probe", &["probe", "head1"]);
            reader.fds[0].parent_fd = read_end;
            out.flush()?;
            let w = airlock_sys::spawn(&writer).map_err(errno_to_io)?;
            let r = airlock_sys::spawn(&reader).map_err(errno_to_io)?;
            raw_wasi::close(read_end);
            raw_wasi::close(write_end);
            let sr = airlock_sys::wait(r as i32, 0).map_err(errno_to_io)?;
            let sw = airlock_sys::wait(w as i32, 0).map_err(errno_to_io)?;
            writeln!(out, "head {} yes {}", sr.map(|s| s.status).unwrap_or(999), sw.map(|s| s.status).unwrap_or(999))?;
        }
        "full-pipe" => {
            // A writer of more than the pipe holds must wait until someone reads.
            let bytes = number(args, 1)?;
            let (read_end, write_end) = airlock_sys::pipe().map_err(errno_to_io)?;
            let mut writer = airlock_sys::SpawnRequest::new("probe", &["probe", "emit", &bytes.to_string()]);
            writer.fds[1].parent_fd = write_end;
            let pid = airlock_sys::spawn(&writer).map_err(errno_to_io)?;
            raw_wasi::close(write_end);
            std::thread::sleep(std::time::Duration::from_millis(100));
            let still_running = airlock_sys::wait(pid as i32, airlock_sys::WNOHANG).map_err(errno_to_io)?.is_none();
            let mut total = 0u64;
            let mut buf = vec![0u8; 65536];
            let mut pipe = raw_wasi::FdReader(read_end);
            loop {
                let n = pipe.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            let status = airlock_sys::wait(pid as i32, 0).map_err(errno_to_io)?.map(|s| s.status).unwrap_or(999);
            writeln!(out, "blocked {} read {} status {}", still_running, total, status)?;
        }
        "wait-self-pipe" => {
            // Holds a pipe's write end while waiting for a child that reads it: a deadlock.
            let (read_end, write_end) = airlock_sys::pipe().map_err(errno_to_io)?;
            let mut reader = airlock_sys::SpawnRequest::new("probe", &["probe", "count"]);
            reader.fds[0].parent_fd = read_end;
            let pid = airlock_sys::spawn(&reader).map_err(errno_to_io)?;
            let _keep_open = write_end;
            match airlock_sys::wait(pid as i32, 0) {
                Ok(r) => writeln!(out, "waited {:?}", r.map(|r| r.status))?,
                Err(e) => writeln!(out, "wait err {}", e.0)?,
            }
        }
        "blob" => {
            let blob = airlock_sys::spawn_blob().map_err(errno_to_io)?;
            out.write_all(&blob)?;
        }
        "deadline" => match airlock_sys::deadline_remaining_ms() {
            Some(ms) => writeln!(out, "deadline {}", ms > 0)?,
            None => writeln!(out, "deadline none")?,
        },
        "http" => {
            // http METHOD URL [BODY]: prints the status, the final URL and the body.
            let request = airlock_sys::net::Request {
                method: arg(args, 1)?,
                url: arg(args, 2)?,
                headers: vec![("X-Probe".into(), "1".into())],
                body: args.get(3).map(|b| b.as_bytes().to_vec()).unwrap_or_default(),
                flags: airlock_sys::net::FOLLOW_REDIRECTS,
                timeout_ms: 0,
            };
            match airlock_sys::net::send(&request) {
                Ok(mut response) => {
                    writeln!(out, "{} {}", response.status, response.url)?;
                    let mut body = Vec::new();
                    response.read_to_end(&mut body)?;
                    out.write_all(&body)?;
                }
                Err(e) => {
                    writeln!(out, "error {} {}", e.curl_code(), e.message)?;
                    return Ok(e.curl_code());
                }
            }
        }
        "yield" => {
            for _ in 0..3 {
                std::thread::yield_now();
            }
            writeln!(out, "yielded")?;
        }
        "pid" => writeln!(out, "{} {}", airlock_sys::getpid(), airlock_sys::getppid())?,
        "sys" => sys::run(rest, &mut out)?,
        _ => {
            writeln!(io::stderr(), "probe: unknown command '{}'", command)?;
            return Ok(2);
        }
    }
    out.flush()?;
    Ok(0)
}

fn errno_to_io(e: airlock_sys::Errno) -> io::Error {
    io::Error::new(io::ErrorKind::Other, format!("errno {}", e.0))
}
