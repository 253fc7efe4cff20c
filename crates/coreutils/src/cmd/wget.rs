//! `wget`: downloads through the sandbox's network policy. `-q`, `-O FILE` (`-` for stdout),
//! and otherwise a file named after the URL (index.html for `/`), as GNU wget does.
//! Exit codes as wget's: 4 network failure (including a refused request), 8 server error.

use std::ffi::OsString;
use std::io::Write;

use common::args::{parse, HasArg, OptSpec, Order, Parsed};
use common::Io;

const SPEC: &[OptSpec] = &[
    OptSpec::flag("quiet", 'q', "quiet"),
    OptSpec::both("output-document", 'O', "output-document", HasArg::Required),
    OptSpec::both("timeout", 'T', "timeout", HasArg::Required),
    OptSpec::both("user-agent", 'U', "user-agent", HasArg::Required),
    OptSpec::long("header", "header", HasArg::Required),
    OptSpec::long("post-data", "post-data", HasArg::Required),
    OptSpec::flag("no-verbose", 'n', "no-verbose"),
    OptSpec::long("help", "help", HasArg::No),
    OptSpec::flag("version", 'V', "version"),
];

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], SPEC, Order::Permute) {
        Ok(p) => p,
        Err(e) => {
            io.error(e);
            let _ = writeln!(io.stderr, "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.");
            return 2;
        }
    };
    let mut quiet = false;
    let mut output: Option<String> = None;
    let mut timeout_ms = 0u32;
    let mut headers: Vec<(String, String)> = vec![("User-Agent".into(), "Wget/1.21.3".into())];
    let mut post: Option<Vec<u8>> = None;
    let mut urls = Vec::new();
    for item in parsed {
        match item {
            Parsed::Operand(u) => urls.push(u.to_string_lossy().into_owned()),
            Parsed::Opt { id, value } => {
                let value = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
                match id {
                    "quiet" | "no-verbose" => quiet = true,
                    "output-document" => output = Some(value),
                    "timeout" => timeout_ms = value.parse::<f64>().map(|s| (s * 1000.0) as u32).unwrap_or(0),
                    "user-agent" => headers[0].1 = value,
                    "header" => {
                        if let Some(colon) = value.find(':') {
                            headers.push((value[..colon].trim().into(), value[colon + 1..].trim().into()));
                        }
                    }
                    "post-data" => post = Some(value.into_bytes()),
                    "help" => {
                        let _ = io.out(b"Usage: wget [OPTION]... [URL]...\n  -q, --quiet                 quiet (no output)\n  -O, --output-document=FILE  write documents to FILE ('-' for stdout)\n  -T, --timeout=SECONDS       set all timeout values to SECONDS\n      --header=STRING         insert STRING among the headers\n      --post-data=STRING      use the POST method; send STRING as the data\nRequests go through the sandbox's network policy.\n");
                        return 0;
                    }
                    "version" => {
                        let _ = io.out(b"GNU Wget 1.21.3 (Airlock, through the sandbox's network policy)\n");
                        return 0;
                    }
                    _ => {}
                }
            }
        }
    }
    if urls.is_empty() {
        io.error("missing URL");
        let _ = writeln!(io.stderr, "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.");
        return 1;
    }
    let mut status = 0;
    for raw in urls {
        let url = if raw.contains("://") { raw.clone() } else { format!("http://{}", raw) };
        if !quiet {
            let _ = writeln!(io.stderr, "--  {}", url);
        }
        let request = airlock_sys::net::Request {
            method: if post.is_some() { "POST" } else { "GET" },
            url: &url,
            headers: headers.clone(),
            body: post.clone().unwrap_or_default(),
            flags: airlock_sys::net::FOLLOW_REDIRECTS,
            timeout_ms,
        };
        let mut response = match airlock_sys::net::send(&request) {
            Ok(r) => r,
            Err(e) => {
                if !quiet {
                    let _ = writeln!(io.stderr, "failed: {}.", e.message);
                }
                status = 4;
                continue;
            }
        };
        if response.status >= 400 {
            if !quiet {
                let _ = writeln!(io.stderr, "ERROR {}: {}.", response.status, response.reason);
            }
            status = 8;
            continue;
        }
        let name = match &output {
            Some(o) => o.clone(),
            None => {
                let path = response.url.split('?').next().unwrap_or("");
                let last = path.splitn(2, "://").nth(1).and_then(|p| p.split_once('/')).map(|(_, p)| p.rsplit('/').next().unwrap_or("")).unwrap_or("");
                if last.is_empty() { "index.html".to_string() } else { last.to_string() }
            }
        };
        let mut sink: Box<dyn Write + '_> = if name == "-" {
            Box::new(&mut *io.stdout)
        } else {
            match std::fs::File::create(&name) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    let _ = writeln!(io.stderr, "{}: {}", name, common::strerror(&e));
                    status = 3;
                    continue;
                }
            }
        };
        let mut buf = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        loop {
            match response.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    total += n as u64;
                    if sink.write_all(&buf[..n]).is_err() {
                        status = 3;
                        break;
                    }
                }
                Err(e) => {
                    drop(sink);
                    let _ = writeln!(io.stderr, "wget: read error: {}", e.message);
                    status = 4;
                    break;
                }
            }
        }
        if !quiet && name != "-" {
            let _ = writeln!(io.stderr, "'{}' saved [{}]", name, total);
        }
    }
    status
}
