//! The gzip file format (RFC 1952): writing a member (header with name and mtime, deflate
//! data, CRC-32 and size), and reading any number of members with GNU gzip's checks and
//! its treatment of what follows the last one.

use std::io::{self, BufRead, Read, Write};

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

const FTEXT: u8 = 1;
const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

/// What a member header says.
#[derive(Debug, Default, Clone)]
pub struct Header {
    pub name: Option<Vec<u8>>,
    pub mtime: u32,
    /// Bytes the header takes.
    pub len: usize,
}

#[derive(Debug)]
pub enum GzError {
    Io(io::Error),
    /// Not gzip data at the very start.
    NotGzip,
    UnexpectedEof,
    Crc,
    Length,
    Corrupt,
    /// Unknown method or reserved flags.
    Format(String),
}

impl From<io::Error> for GzError {
    fn from(e: io::Error) -> GzError {
        GzError::Io(e)
    }
}

/// Compresses everything from `input` into one gzip member written to `out`; returns
/// (bytes in, bytes out).
pub fn compress(input: &mut dyn Read, out: &mut dyn Write, level: u32, name: Option<&[u8]>, mtime: u32) -> io::Result<(u64, u64)> {
    let mut header = vec![0x1f, 0x8b, 8, if name.is_some() { FNAME } else { 0 }];
    header.extend_from_slice(&mtime.to_le_bytes());
    header.push(match level {
        9 => 2,
        1 => 4,
        _ => 0,
    });
    header.push(3);
    if let Some(n) = name {
        header.extend_from_slice(n);
        header.push(0);
    }
    out.write_all(&header)?;
    let mut written = header.len() as u64;
    let mut encoder = Compress::new(Compression::new(level), false);
    let mut crc = crc32fast::Hasher::new();
    let mut total_in = 0u64;
    let mut inbuf = vec![0u8; 64 * 1024];
    let mut outbuf = vec![0u8; 64 * 1024];
    loop {
        let n = loop {
            match input.read(&mut inbuf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        crc.update(&inbuf[..n]);
        total_in += n as u64;
        let flush = if n == 0 { FlushCompress::Finish } else { FlushCompress::None };
        let mut data = &inbuf[..n];
        loop {
            let before_in = encoder.total_in();
            let before_out = encoder.total_out();
            let status = encoder.compress(data, &mut outbuf, flush).map_err(|e| io::Error::new(io::ErrorKind::Other, e))?;
            let consumed = (encoder.total_in() - before_in) as usize;
            let produced = (encoder.total_out() - before_out) as usize;
            data = &data[consumed..];
            out.write_all(&outbuf[..produced])?;
            written += produced as u64;
            if n == 0 {
                if status == Status::StreamEnd {
                    break;
                }
            } else if data.is_empty() && produced < outbuf.len() {
                break;
            }
        }
        if n == 0 {
            break;
        }
    }
    out.write_all(&crc.finalize().to_le_bytes())?;
    out.write_all(&(total_in as u32).to_le_bytes())?;
    Ok((total_in, written + 8))
}

fn read_byte(input: &mut dyn BufRead) -> Result<Option<u8>, GzError> {
    let buf = input.fill_buf()?;
    if buf.is_empty() {
        return Ok(None);
    }
    let b = buf[0];
    input.consume(1);
    Ok(Some(b))
}

fn need_byte(input: &mut dyn BufRead) -> Result<u8, GzError> {
    read_byte(input)?.ok_or(GzError::UnexpectedEof)
}

/// Reads a member header. Ok(None): no more data at all.
pub fn read_header(input: &mut dyn BufRead, first: bool) -> Result<Option<Header>, GzError> {
    let m1 = match read_byte(input)? {
        None => return if first { Err(GzError::UnexpectedEof) } else { Ok(None) },
        Some(b) => b,
    };
    let m2 = match read_byte(input)? {
        None => return if first { Err(GzError::NotGzip) } else { Err(GzError::Format("trailing garbage".into())) },
        Some(b) => b,
    };
    if m1 != 0x1f || m2 != 0x8b {
        return Err(GzError::NotGzip);
    }
    let method = need_byte(input)?;
    if method != 8 {
        return Err(GzError::Format(format!("unknown method {} -- not supported", method)));
    }
    let flags = need_byte(input)?;
    let mut fixed = [0u8; 6];
    for b in fixed.iter_mut() {
        *b = need_byte(input)?;
    }
    let mut header = Header { mtime: u32::from_le_bytes([fixed[0], fixed[1], fixed[2], fixed[3]]), len: 10, name: None };
    let _ = FTEXT;
    if flags & 0xe0 != 0 {
        return Err(GzError::Format("has flags 0x.. -- not supported".into()));
    }
    if flags & FEXTRA != 0 {
        let lo = need_byte(input)? as usize;
        let hi = need_byte(input)? as usize;
        for _ in 0..(lo | hi << 8) {
            need_byte(input)?;
        }
        header.len += 2 + (lo | hi << 8);
    }
    if flags & FNAME != 0 {
        let mut name = Vec::new();
        loop {
            let b = need_byte(input)?;
            header.len += 1;
            if b == 0 {
                break;
            }
            name.push(b);
        }
        header.name = Some(name);
    }
    if flags & FCOMMENT != 0 {
        while need_byte(input)? != 0 {
            header.len += 1;
        }
        header.len += 1;
    }
    if flags & FHCRC != 0 {
        need_byte(input)?;
        need_byte(input)?;
        header.len += 2;
    }
    Ok(Some(header))
}

/// Inflates one member's data and checks its trailer; returns the bytes written.
pub fn inflate_member(input: &mut dyn BufRead, out: &mut dyn Write) -> Result<u64, GzError> {
    let mut inflater = Decompress::new(false);
    let mut crc = crc32fast::Hasher::new();
    let mut outbuf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let (consumed, produced, status) = {
            let data = input.fill_buf()?;
            let eof = data.is_empty();
            let before_in = inflater.total_in();
            let before_out = inflater.total_out();
            let status = inflater.decompress(data, &mut outbuf, FlushDecompress::None).map_err(|_| GzError::Corrupt)?;
            let consumed = (inflater.total_in() - before_in) as usize;
            let produced = (inflater.total_out() - before_out) as usize;
            if eof && produced == 0 && status != Status::StreamEnd {
                return Err(GzError::UnexpectedEof);
            }
            (consumed, produced, status)
        };
        input.consume(consumed);
        crc.update(&outbuf[..produced]);
        out.write_all(&outbuf[..produced])?;
        total += produced as u64;
        if status == Status::StreamEnd {
            break;
        }
    }
    let mut trailer = [0u8; 8];
    for b in trailer.iter_mut() {
        *b = need_byte(input)?;
    }
    if u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]) != crc.finalize() {
        return Err(GzError::Crc);
    }
    if u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]) != total as u32 {
        return Err(GzError::Length);
    }
    Ok(total)
}

/// How decompression ended.
pub enum Ending {
    Clean,
    /// Bytes after the last member that are not a gzip header.
    TrailingGarbage,
}

/// Decompresses every member; returns (first header, bytes written, ending).
pub fn decompress(input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(Header, u64, Ending), GzError> {
    let first = match read_header(input, true)? {
        Some(h) => h,
        None => return Err(GzError::UnexpectedEof),
    };
    let mut total = inflate_member(input, out)?;
    loop {
        // gzip ignores zero bytes padding the end of the input.
        let rest = input.fill_buf()?;
        if rest.is_empty() {
            return Ok((first, total, Ending::Clean));
        }
        if rest.iter().all(|b| *b == 0) {
            let n = rest.len();
            input.consume(n);
            continue;
        }
        match read_header(input, false) {
            Ok(Some(_)) => total += inflate_member(input, out)?,
            Ok(None) => return Ok((first, total, Ending::Clean)),
            Err(GzError::NotGzip) | Err(GzError::Format(_)) => {
                // Swallow the rest so the caller sees a finished input.
                loop {
                    let n = input.fill_buf()?.len();
                    if n == 0 {
                        break;
                    }
                    input.consume(n);
                }
                return Ok((first, total, Ending::TrailingGarbage));
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_two_members() {
        let mut gz = Vec::new();
        compress(&mut &b"hello "[..], &mut gz, 6, Some(b"a"), 1).unwrap();
        compress(&mut &b"world"[..], &mut gz, 9, None, 0).unwrap();
        let mut out = Vec::new();
        let (header, n, _) = decompress(&mut &gz[..], &mut out).unwrap();
        assert_eq!(out, b"hello world");
        assert_eq!(n, 11);
        assert_eq!(header.name.as_deref(), Some(&b"a"[..]));
    }
}
