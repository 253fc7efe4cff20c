//! HTTP through the host (docs/abi.md, "Network"). The sandbox never connects anywhere
//! itself: the request goes to the host, whose network policy decides, and the answer comes
//! back. Refusals and failures are errnos shaped like curl's failure classes.

use crate::{check, raw, Errno};

/// What went wrong, with curl's exit code for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetError {
    pub errno: Errno,
    /// The host's explanation (e.g. which policy refused the request).
    pub message: String,
}

impl NetError {
    /// curl's exit code for this failure.
    pub fn curl_code(&self) -> i32 {
        match self.errno.0 {
            crate::errno::CONNREFUSED => 7,
            crate::errno::INVAL => 3,
            crate::errno::NOENT => 6,
            crate::errno::TIMEDOUT => 28,
            crate::errno::FBIG => 63,
            crate::errno::LOOP => 47,
            _ => 56,
        }
    }
}

/// Follow redirects (each hop is checked against the policy again).
pub const FOLLOW_REDIRECTS: u32 = 1;

pub struct Request<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub flags: u32,
    /// 0: the run's remaining time.
    pub timeout_ms: u32,
}

pub struct Response {
    handle: u32,
    pub status: u16,
    pub reason: String,
    /// The URL of the final hop (after redirects).
    pub url: String,
    pub headers: Vec<(String, String)>,
}

fn error_of(handle: u32, errno: Errno) -> NetError {
    let mut buf = vec![0u8; 2048];
    let mut len: u32 = 0;
    let _ = unsafe { raw::net_error(handle, buf.as_mut_ptr(), buf.len() as u32, &mut len) };
    buf.truncate(len as usize);
    NetError { errno, message: String::from_utf8_lossy(&buf).into_owned() }
}

/// Sends the request and waits for the response head.
pub fn send(request: &Request) -> Result<Response, NetError> {
    let mut wire = format!("{} {}\n", request.method, request.url).into_bytes();
    for (name, value) in &request.headers {
        if name.contains('\n') || value.contains('\n') {
            return Err(NetError { errno: Errno(crate::errno::INVAL), message: "header contains a newline".into() });
        }
        wire.extend_from_slice(format!("{}: {}\n", name, value).as_bytes());
    }
    wire.push(b'\n');
    wire.extend_from_slice(&request.body);
    let mut handle: u32 = 0;
    check(unsafe { raw::net_request(wire.as_ptr(), wire.len() as u32, request.flags, request.timeout_ms, &mut handle) })
        .map_err(|errno| NetError { errno, message: errno.to_string() })?;
    let mut buf = vec![0u8; 16 * 1024];
    let mut len: u32 = 0;
    let mut code = unsafe { raw::net_response(handle, buf.as_mut_ptr(), buf.len() as u32, &mut len) };
    if code == crate::errno::NOBUFS {
        buf = vec![0u8; len as usize];
        code = unsafe { raw::net_response(handle, buf.as_mut_ptr(), buf.len() as u32, &mut len) };
    }
    if code != 0 {
        let error = error_of(handle, Errno(code));
        unsafe { raw::net_close(handle) };
        return Err(error);
    }
    buf.truncate(len as usize);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let mut lines = text.split('\n');
    let status_line = lines.next().unwrap_or("");
    let (status, reason) = match status_line.find(' ') {
        Some(space) => (status_line[..space].parse().unwrap_or(0), status_line[space + 1..].to_string()),
        None => (status_line.parse().unwrap_or(0), String::new()),
    };
    let url = lines.next().unwrap_or("").to_string();
    let headers = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| l.find(':').map(|c| (l[..c].to_string(), l[c + 1..].trim_start().to_string())))
        .collect();
    Ok(Response { handle, status, reason, url, headers })
}

impl Response {
    /// Reads body bytes into `buf`; 0 at the end.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, NetError> {
        let mut n: u32 = 0;
        let code = unsafe { raw::net_read(self.handle, buf.as_mut_ptr(), buf.len() as u32, &mut n) };
        if code != 0 {
            return Err(error_of(self.handle, Errno(code)));
        }
        Ok(n as usize)
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Copies the rest of the body into `sink` in 64 KiB blocks: the bytes read (a block
    /// counts before it is written) and how the copy ended.
    pub fn copy_to(&mut self, sink: &mut dyn std::io::Write) -> (u64, Result<(), CopyError>) {
        let mut buf = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        loop {
            match self.read(&mut buf) {
                Ok(0) => return (total, Ok(())),
                Ok(n) => {
                    total += n as u64;
                    if let Err(e) = sink.write_all(&buf[..n]) {
                        return (total, Err(CopyError::Write(e)));
                    }
                }
                Err(e) => return (total, Err(CopyError::Read(e))),
            }
        }
    }
}

/// Why [`Response::copy_to`] stopped early: the sink refused a write, or reading the body failed.
pub enum CopyError {
    Write(std::io::Error),
    Read(NetError),
}

impl Drop for Response {
    fn drop(&mut self) {
        unsafe {
            raw::net_close(self.handle);
        }
    }
}

impl std::io::Read for Response {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Response::read(self, buf).map_err(|e| std::io::Error::new(std::io::ErrorKind::Other, e.message))
    }
}

