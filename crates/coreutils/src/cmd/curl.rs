//! `curl`: HTTP through the sandbox's network policy (the host performs the request; see
//! docs/network.md). The options agents use, curl's output shapes (-i, -I, -w) and its exit
//! codes: 7 for a refused request (as for an unreachable host), 22 with -f on HTTP >= 400,
//! 28 on timeout, 6 for an unknown host, 3 for a bad URL, 63 for a too-large response.

use std::ffi::OsString;
use std::io::Write;

use common::args::{os_bytes, parse, Order, Parsed};
use common::Io;

const SPEC: &str = "silent,s show-error,S fail,f fail-with-body location,L output,o: remote-name,O request,X: header,H: data,d: data-ascii: data-raw: data-binary: data-urlencode: json: include,i head,I write-out,w: user,u: max-time,m: user-agent,A: get,G verbose,v insecure,k compressed url: max-redirs: referer,e: help version,V";

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

pub fn run(args: Vec<OsString>, io: &mut Io) -> i32 {
    let parsed = match parse(&args[1..], &common::args::table(SPEC), Order::Permute) {
        Ok(p) => p,
        Err(e) => {
            io.error(format!("option {}", e));
            io.error("try 'curl --help' for more information");
            return 2;
        }
    };
    let mut o = Options { max_time_ms: 0, ..Options::default() };
    for item in parsed {
        let (id, value) = match item {
            Parsed::Operand(url) => {
                o.urls.push(url.to_string_lossy().into_owned());
                continue;
            }
            Parsed::Opt { id, value } => (id, value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default()),
        };
        match id {
            "silent" => o.silent = true,
            "show-error" => o.show_error = true,
            "fail" => o.fail = true,
            "fail-with-body" => o.fail_with_body = true,
            "location" => o.follow = true,
            "output" => o.output = Some(value),
            "remote-name" => o.remote_name = true,
            "request" => o.method = Some(value),
            "header" => match value.find(':') {
                Some(colon) => o.headers.push((value[..colon].trim().to_string(), value[colon + 1..].trim().to_string())),
                None => {}
            },
            "data" | "data-ascii" => match read_data(&value, true) {
                Ok(d) => o.data.push(d),
                Err(code) => return fail(io, &o, code, &format!("Failed to open/read local data from file/application")),
            },
            "data-binary" => match read_data(&value, false) {
                Ok(d) => o.data.push(d),
                Err(code) => return fail(io, &o, code, "Failed to open/read local data from file/application"),
            },
            "data-raw" => o.data.push(value.into_bytes()),
            "data-urlencode" => o.data.push(urlencode_data(&value).into_bytes()),
            "json" => {
                o.json = true;
                match read_data(&value, false) {
                    Ok(d) => o.data.push(d),
                    Err(code) => return fail(io, &o, code, "Failed to open/read local data from file/application"),
                }
            }
            "include" => o.include = true,
            "head" => o.head = true,
            "write-out" => o.write_out = Some(value),
            "user" => o.user = Some(value),
            "max-time" => match value.parse::<f64>() {
                Ok(seconds) if seconds > 0.0 => o.max_time_ms = (seconds * 1000.0).ceil() as u32,
                _ => {
                    io.error("option --max-time: expected a proper numerical parameter");
                    return 2;
                }
            },
            "user-agent" => o.user_agent = Some(value),
            "get" => o.get = true,
            "verbose" => o.verbose = true,
            "url" => o.urls.push(value),
            "referer" => o.headers.push(("Referer".into(), value)),
            "insecure" | "compressed" | "max-redirs" => {}
            "help" => {
                let _ = io.out(USAGE.as_bytes());
                return 0;
            }
            "version" => {
                let _ = io.out(b"curl 8.0.0 (wasm32-wasi) airlock\nProtocols: http https\nFeatures: \n");
                return 0;
            }
            _ => {}
        }
    }
    if o.urls.is_empty() {
        io.error("no URL specified");
        io.error("try 'curl --help' for more information");
        return 2;
    }
    let urls = std::mem::take(&mut o.urls);
    let mut status = 0;
    for url in urls {
        status = fetch(io, &o, &url);
    }
    status
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

fn fail(io: &mut Io, o: &Options, code: i32, message: &str) -> i32 {
    if !o.silent || o.show_error {
        let _ = writeln!(io.stderr, "curl: ({}) {}", code, message);
    }
    code
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

fn fetch(io: &mut Io, o: &Options, raw_url: &str) -> i32 {
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
            let code = e.curl_code();
            let status = fail(io, o, code, &message);
            write_out(io, o, 0, &url, 0, "");
            return status;
        }
    };
    let http_error = response.status >= 400;
    if http_error && o.fail && !o.fail_with_body {
        let status = fail(io, o, 22, &format!("The requested URL returned error: {}", response.status));
        write_out(io, o, response.status, &response.url, 0, response.header("content-type").unwrap_or(""));
        return status;
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
            return fail(io, o, 23, "Remote file name has no length");
        }
        Some(name)
    } else {
        o.output.clone().filter(|p| p != "-")
    };
    if let Some(path) = &target {
        match std::fs::File::create(path) {
            Ok(f) => out_file = Some(f),
            Err(e) => return fail(io, o, 23, &format!("Failure writing output to destination: {}: {}", path, common::strerror(&e))),
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
                return 23;
            }
        }
        if !o.head {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match response.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        size += n as u64;
                        if sink.write_all(&buf[..n]).is_err() {
                            return 23;
                        }
                    }
                    Err(e) => {
                        drop(sink);
                        return fail(io, o, e.curl_code(), &format!("Failure when receiving data from the peer: {}", e.message));
                    }
                }
            }
        }
        let _ = sink.flush();
    }
    let content_type = response.header("content-type").unwrap_or("").to_string();
    write_out(io, o, response.status, &response.url, size, &content_type);
    if http_error && o.fail_with_body {
        return fail(io, o, 22, &format!("The requested URL returned error: {}", response.status));
    }
    let _ = os_bytes;
    0
}

/// `-w FORMAT`: curl's %{variable} and backslash escapes.
fn write_out(io: &mut Io, o: &Options, status: u16, url: &str, size: u64, content_type: &str) {
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
                    "http_code" | "response_code" => out.push_str(&format!("{:03}", status)),
                    "url_effective" | "url" => out.push_str(url),
                    "size_download" => out.push_str(&size.to_string()),
                    "content_type" => out.push_str(content_type),
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
