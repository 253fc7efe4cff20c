//! `curl`: HTTP through the sandbox's network policy (the host performs the request; see
//! docs/network.md). The options agents use, curl's output shapes (-i, -I, -w) and its exit
//! codes: 7 for a refused request (as for an unreachable host), 22 with -f on HTTP >= 400,
//! 28 on timeout, 6 for an unknown host, 3 for a bad URL, 63 for a too-large response.

use std::ffi::OsString;
use std::io::Write;

use airlock_sys::net::CopyError;
use common::args::{ArgError, Parsed, UsageError};
use common::{Command, Io, Seen, UError};

const SPEC: &str = "silent,s show-error,S fail,f fail-with-body location,L output,o: remote-name,O request,X: header,H: data,d: data-ascii: data-raw: data-binary: data-urlencode: json: include,i head,I write-out,w: user,u: max-time,m: user-agent,A: get,G verbose,v insecure,k compressed url: max-redirs: referer,e: version,V";

#[derive(Default)]
struct Options {
    silent: bool,
    show_error: bool,
    fail: bool,
    fail_with_body: bool,
    follow: bool,
    output: Option<String>,
    remote_name: bool,
    method: Option<String>,
    headers: Vec<(String, String)>,
    data: Vec<Vec<u8>>,
    json: bool,
    include: bool,
    head: bool,
    write_out: Option<String>,
    user: Option<String>,
    max_time_ms: u32,
    user_agent: Option<String>,
    get: bool,
    verbose: bool,
    urls: Vec<String>,
}

const USAGE: &str = "Usage: curl [options...] <url>
 -d, --data <data>           HTTP POST data (@FILE reads a file)
     --data-raw, --data-binary, --data-urlencode <data>
     --json <data>           HTTP POST JSON
 -f, --fail                  Fail silently (no output at all) on HTTP errors
 -G, --get                   Put the post data in the URL and use GET
 -H, --header <header>       Pass custom header(s) to server
 -i, --include               Include protocol response headers in the output
 -I, --head                  Show document info only
 -L, --location              Follow redirects
 -m, --max-time <seconds>    Maximum time allowed for transfer
 -o, --output <file>         Write to file instead of stdout
 -O, --remote-name           Write output to a file named as the remote file
 -s, --silent                Silent mode
 -S, --show-error            Show error even when -s is used
 -u, --user <user:password>  Server user and password
 -A, --user-agent <name>     Send User-Agent <name> to server
 -w, --write-out <format>    Use output FORMAT after completion
 -X, --request <method>      Specify request method to use
Requests go through the sandbox's network policy; a refused request fails with exit 7.
";

/// curl's words for a bad option, exit 2 (curl's CURLE_FAILED_INIT is not used for them).
fn usage(io: &mut Io, message: &str) -> UError {
    io.error(message);
    io.error("try 'curl --help' for more information");
    UError::exit(2)
}

fn bad_option(io: &mut Io, error: ArgError) -> UError {
    let message = match error {
        ArgError::InvalidShort(c) => format!("option -{}: is unknown", c),
        ArgError::UnrecognizedLong(name) => format!("option {}: is unknown", name),
        ArgError::MissingShortArg(c) => format!("option -{}: requires parameter", c),
        ArgError::MissingLongArg(name) => format!("option --{}: requires parameter", name),
        other => format!("option {}", other),
    };
    usage(io, &message)
}

const VERSION: &str = "curl 8.0.0 (wasm32-wasi) airlock\nProtocols: http https\nFeatures: \n";

const CURL: Command = Command { usage_error: Some(UsageError(bad_option)), version: VERSION, ..Command::compact("curl", SPEC, USAGE) };

/// `-m SECONDS` in milliseconds, rounded up; None unless a positive number.
fn max_time(value: Option<&OsString>) -> Option<u32> {
    let seconds = value?.to_str()?.parse::<f64>().ok().filter(|s| *s > 0.0)?;
    Some((seconds * 1000.0).ceil() as u32)
}

fn text(value: Option<&OsString>) -> Option<String> {
    value.map(|v| v.to_string_lossy().into_owned())
}

/// The options: switches and last values from what was seen, headers, data and URLs in
/// the order given.
fn options(seen: &Seen) -> Result<Options, UError> {
    let flag = |id| seen.flag(id);
    let value = |id| text(seen.value(id));
    let mut o = Options { silent: flag("silent"), show_error: flag("show-error"), fail: flag("fail"), fail_with_body: flag("fail-with-body"), follow: flag("location"), output: value("output"), remote_name: flag("remote-name"), method: value("request"), json: flag("json"), include: flag("include"), head: flag("head"), write_out: value("write-out"), user: value("user"), max_time_ms: max_time(seen.value("max-time")).unwrap_or(0), user_agent: value("user-agent"), get: flag("get"), verbose: flag("verbose"), ..Options::default() };
    for (id, given) in &seen.opts {
        let given = text(given.as_ref()).unwrap_or_default();
        match *id {
            "header" => {
                if let Some((name, text)) = given.split_once(':') {
                    o.headers.push((name.trim().to_string(), text.trim().to_string()));
                }
            }
            "referer" => o.headers.push(("Referer".into(), given)),
            "data" | "data-ascii" | "data-binary" | "json" => {
                let data = read_data(&given, *id != "data-binary" && *id != "json").map_err(|code| error(&o, code, "Failed to open/read local data from file/application"))?;
                o.data.push(data);
            }
            "data-raw" => o.data.push(given.into_bytes()),
            "data-urlencode" => o.data.push(urlencode_data(&given).into_bytes()),
            "url" => o.urls.push(given),
            _ => {}
        }
    }
    Ok(o)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut seen = Seen::default();
    CURL.options(&args, io, &mut |io, parsed| {
        // URLs, as operands or --url, are fetched in the order given.
        let (id, value) = match parsed {
            Parsed::Opt { id, value } => (id, value),
            Parsed::Operand(url) => ("url", Some(url)),
        };
        // A bad -m is reported where curl's loop meets it, before a later --help.
        if id == "max-time" && max_time(value.as_ref()).is_none() {
            return Err(usage(io, "option -m: expected a proper numerical parameter"));
        }
        seen.opts.push((id, value));
        Ok(())
    })?;
    let mut o = options(&seen)?;
    if o.urls.is_empty() {
        return Err(usage(io, "no URL specified!"));
    }
    let urls = std::mem::take(&mut o.urls);
    let mut status = 0;
    // Each URL is its own transfer: its error is reported before its -w output, and the
    // next one still runs; the last one's status is curl's.
    for url in urls {
        let mut done = None;
        let result = fetch(io, &o, &url, &mut done);
        status = io.finish(result.map(|()| 0));
        if let Some(transfer) = done {
            write_out(io, &o, &transfer);
        }
    }
    Ok(status)
}

/// `-d @file` reads a file (`-` for stdin); -d strips newlines like curl does, --data-binary keeps them.
fn read_data(value: &str, strip_newlines: bool) -> Result<Vec<u8>, i32> {
    let mut data = if let Some(path) = value.strip_prefix('@') {
        if path == "-" {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map_err(|_| 26)?;
            buf
        } else {
            std::fs::read(path).map_err(|_| 26)?
        }
    } else {
        value.as_bytes().to_vec()
    };
    if strip_newlines && value.starts_with('@') {
        data.retain(|b| *b != b'\n' && *b != b'\r');
    }
    Ok(data)
}

fn urlencode_data(value: &str) -> String {
    match value.find('=') {
        Some(eq) => format!("{}={}", &value[..eq], percent_encode(&value[eq + 1..])),
        None => percent_encode(value),
    }
}

fn percent_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{:02X}", b));
        }
    }
    out
}

fn base64(input: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// curl's `curl: (CODE) message`, which -s silences unless -S is given too.
fn error(o: &Options, code: i32, message: &str) -> UError {
    match !o.silent || o.show_error {
        true => UError::new(code, format!("({}) {}", code, message)),
        false => UError::exit(code),
    }
}

/// What -w reports of a transfer.
struct Transfer {
    status: u16,
    url: String,
    size: u64,
    content_type: String,
}

fn host_and_port(url: &str) -> (String, u16) {
    let rest = url.splitn(2, "://").nth(1).unwrap_or(url);
    let authority = rest.split(|c| c == '/' || c == '?' || c == '#').next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let default = if url.starts_with("https") { 443 } else { 80 };
    match authority.rfind(':') {
        Some(colon) if !authority.ends_with(']') => (authority[..colon].to_string(), authority[colon + 1..].parse().unwrap_or(default)),
        _ => (authority.to_string(), default),
    }
}

/// One transfer; `done` is set where curl prints its -w output (after the error, if any).
fn fetch(io: &mut Io, o: &Options, raw_url: &str, done: &mut Option<Transfer>) -> Result<(), UError> {
    let mut url = if raw_url.contains("://") { raw_url.to_string() } else { format!("http://{}", raw_url) };
    let mut body: Vec<u8> = Vec::new();
    if !o.data.is_empty() {
        body = o.data.join(&b'&');
    }
    if o.get && !body.is_empty() {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&String::from_utf8_lossy(&body));
        body.clear();
    }
    let method = match &o.method {
        Some(m) => m.clone(),
        None if o.head => "HEAD".into(),
        None if !body.is_empty() => "POST".into(),
        None => "GET".into(),
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    headers.push(("User-Agent".into(), o.user_agent.clone().unwrap_or_else(|| "curl/8.0.0".into())));
    headers.push(("Accept".into(), if o.json { "application/json".into() } else { "*/*".into() }));
    if let Some(user) = &o.user {
        headers.push(("Authorization".into(), format!("Basic {}", base64(user.as_bytes()))));
    }
    if !body.is_empty() {
        let content_type = if o.json { "application/json" } else { "application/x-www-form-urlencoded" };
        headers.push(("Content-Type".into(), content_type.into()));
    }
    for (name, value) in &o.headers {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if !value.is_empty() {
            headers.push((name.clone(), value.clone()));
        }
    }
    if o.verbose {
        let _ = writeln!(io.stderr, "> {} {} HTTP/1.1", method, url);
        for (name, value) in &headers {
            let _ = writeln!(io.stderr, "> {}: {}", name, value);
        }
    }
    let request = airlock_sys::net::Request {
        method: &method,
        url: &url,
        headers,
        body,
        flags: if o.follow { airlock_sys::net::FOLLOW_REDIRECTS } else { 0 },
        timeout_ms: o.max_time_ms,
    };
    let mut response = match airlock_sys::net::send(&request) {
        Ok(r) => r,
        Err(e) => {
            let (host, port) = host_and_port(&url);
            let message = match e.curl_code() {
                7 => format!("Failed to connect to {} port {}: {}", host, port, e.message),
                6 => format!("Could not resolve host: {}", host),
                28 => format!("Operation timed out: {}", e.message),
                3 => format!("URL rejected: {}", e.message),
                47 => format!("Maximum redirects followed: {}", e.message),
                63 => format!("Maximum file size exceeded: {}", e.message),
                _ => format!("Failure when receiving data from the peer: {}", e.message),
            };
            *done = Some(Transfer { status: 0, url, size: 0, content_type: String::new() });
            return Err(error(o, e.curl_code(), &message));
        }
    };
    let http_error = response.status >= 400;
    if http_error && o.fail && !o.fail_with_body {
        *done = Some(Transfer { status: response.status, url: response.url.clone(), size: 0, content_type: response.header("content-type").unwrap_or("").to_string() });
        return Err(error(o, 22, &format!("The requested URL returned error: {}", response.status)));
    }
    let head_text = {
        let mut text = format!("HTTP/1.1 {} {}\r\n", response.status, response.reason);
        for (name, value) in &response.headers {
            text.push_str(&format!("{}: {}\r\n", name, value));
        }
        text.push_str("\r\n");
        text
    };
    let mut out_file: Option<std::fs::File> = None;
    let target = if o.remote_name {
        let name = response.url.split('?').next().unwrap_or("").rsplit('/').next().unwrap_or("").to_string();
        if name.is_empty() {
            return Err(error(o, 23, "Remote file name has no length"));
        }
        Some(name)
    } else {
        o.output.clone().filter(|p| p != "-")
    };
    if let Some(path) = &target {
        match std::fs::File::create(path) {
            Ok(f) => out_file = Some(f),
            Err(e) => return Err(error(o, 23, &format!("Failure writing output to destination: {}: {}", path, common::strerror(&e)))),
        }
    }
    let mut size: u64 = 0;
    {
        let mut sink: Box<dyn Write + '_> = match out_file.as_mut() {
            Some(f) => Box::new(f),
            None => Box::new(&mut *io.stdout),
        };
        if o.include || o.head {
            if sink.write_all(head_text.as_bytes()).is_err() {
                return Err(UError::exit(23));
            }
        }
        if !o.head {
            let (copied, result) = response.copy_to(&mut *sink);
            size = copied;
            match result {
                Ok(()) => {}
                Err(CopyError::Write(_)) => return Err(UError::exit(23)),
                Err(CopyError::Read(e)) => return Err(error(o, e.curl_code(), &format!("Failure when receiving data from the peer: {}", e.message))),
            }
        }
        let _ = sink.flush();
    }
    let content_type = response.header("content-type").unwrap_or("").to_string();
    *done = Some(Transfer { status: response.status, url: response.url.clone(), size, content_type });
    if http_error && o.fail_with_body {
        return Err(error(o, 22, &format!("The requested URL returned error: {}", response.status)));
    }
    Ok(())
}

/// `-w FORMAT`: curl's %{variable} and backslash escapes.
fn write_out(io: &mut Io, o: &Options, t: &Transfer) {
    let format = match &o.write_out {
        Some(f) => f,
        None => return,
    };
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '%' if chars.peek() == Some(&'{') => {
                chars.next();
                let name: String = chars.by_ref().take_while(|c| *c != '}').collect();
                match name.as_str() {
                    "http_code" | "response_code" => out.push_str(&format!("{:03}", t.status)),
                    "url_effective" | "url" => out.push_str(&t.url),
                    "size_download" => out.push_str(&t.size.to_string()),
                    "content_type" => out.push_str(&t.content_type),
                    "exitcode" => out.push('0'),
                    "time_total" => out.push_str("0.000000"),
                    _ => {}
                }
            }
            '%' if chars.peek() == Some(&'%') => {
                chars.next();
                out.push('%');
            }
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('\\') => out.push('\\'),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            _ => out.push(c),
        }
    }
    let _ = io.out(out.as_bytes());
}
