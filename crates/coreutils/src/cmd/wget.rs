//! `wget`: downloads through the sandbox's network policy. `-q`, `-O FILE` (`-` for stdout),
//! and otherwise a file named after the URL (index.html for `/`), as GNU wget does.
//! Exit codes as wget's: 4 network failure (including a refused request), 8 server error.

use std::ffi::OsString;
use std::io::Write;

use common::args::{ArgError, Command, Parsed, UsageError};
use airlock_sys::net::CopyError;
use common::{Io, UError};

const SPEC: &str = "quiet,q output-document,O: timeout,T: user-agent,U: header: post-data: no-verbose,n help version,V";

const HELP: &str = "Usage: wget [OPTION]... [URL]...\n  -q, --quiet                 quiet (no output)\n  -O, --output-document=FILE  write documents to FILE ('-' for stdout)\n  -T, --timeout=SECONDS       set all timeout values to SECONDS\n      --header=STRING         insert STRING among the headers\n      --post-data=STRING      use the POST method; send STRING as the data\nRequests go through the sandbox's network policy.\n";

/// wget's own hint after a bad option, status 2.
fn usage_error(io: &mut Io, error: ArgError) -> UError {
    io.error(error);
    let _ = writeln!(io.stderr, "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.");
    UError::exit(2)
}

const WGET: Command = Command { version: "GNU Wget 1.21.3 (Airlock, through the sandbox's network policy)\n", usage_error: Some(UsageError(usage_error)), usage_status: 2, ..Command::compact("wget", SPEC, HELP) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut quiet = false;
    let mut output: Option<String> = None;
    let mut timeout_ms = 0u32;
    let mut headers: Vec<(String, String)> = vec![("User-Agent".into(), "Wget/1.21.3".into())];
    let mut post: Option<Vec<u8>> = None;
    let mut urls = Vec::new();
    WGET.options(&args, io, &mut |_, item| {
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
                    _ => {}
                }
            }
        }
        Ok(())
    })?;
    if urls.is_empty() {
        io.error("missing URL");
        let _ = writeln!(io.stderr, "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.");
        return Ok(1);
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
        let (total, ended) = response.copy_to(&mut *sink);
        match ended {
            Ok(()) => {}
            Err(CopyError::Write(_)) => status = 3,
            Err(CopyError::Read(e)) => {
                drop(sink);
                let _ = writeln!(io.stderr, "wget: read error: {}", e.message);
                status = 4;
            }
        }
        if !quiet && name != "-" {
            let _ = writeln!(io.stderr, "'{}' saved [{}]", name, total);
        }
    }
    Ok(status)
}
