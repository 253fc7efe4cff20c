//! `basenc`: encode or decode data in one of RFC 4648's alphabets (and base2, Z85). `base64`
//! and `base32` are this command with a fixed encoding. Decoding follows gnulib's decoders
//! block by block, so on invalid input the bytes decoded before the bad block (and the
//! valid part of it) are written, as GNU does, before `invalid input` and status 1.

use std::ffi::OsString;
use std::io::BufRead;

use common::args::{HasArg, OptSpec, Parsed};
use common::io::{open_input, quote};
use common::{strerror, Command, Io, UError};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Encoding {
    Base64,
    Base64Url,
    Base32,
    Base32Hex,
    Base16,
    Base2Msbf,
    Base2Lsbf,
    Z85,
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B32HEX: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";
const B16: &[u8; 16] = b"0123456789ABCDEF";
const Z85: &[u8; 85] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

impl Encoding {
    fn alphabet(self) -> &'static [u8] {
        match self {
            Encoding::Base64 => B64,
            Encoding::Base64Url => B64URL,
            Encoding::Base32 => B32,
            Encoding::Base32Hex => B32HEX,
            Encoding::Base16 => B16,
            Encoding::Base2Msbf | Encoding::Base2Lsbf => b"01",
            Encoding::Z85 => Z85,
        }
    }
    /// Input bytes per encoded block and encoded characters per block.
    fn block(self) -> (usize, usize) {
        match self {
            Encoding::Base64 | Encoding::Base64Url => (3, 4),
            Encoding::Base32 | Encoding::Base32Hex => (5, 8),
            Encoding::Base16 => (1, 2),
            Encoding::Base2Msbf | Encoding::Base2Lsbf => (1, 8),
            Encoding::Z85 => (4, 5),
        }
    }
    fn has_padding(self) -> bool {
        matches!(self, Encoding::Base64 | Encoding::Base64Url | Encoding::Base32 | Encoding::Base32Hex)
    }
}

/// A reverse lookup table: 255 for bytes outside the alphabet.
fn decode_table(alphabet: &[u8]) -> [u8; 256] {
    let mut table = [255u8; 256];
    for (i, c) in alphabet.iter().enumerate() {
        table[*c as usize] = i as u8;
    }
    table
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    run_codec(args, io, None)
}

/// The shared entry point: `fixed` is the encoding of `base64`/`base32`; None for basenc.
pub fn run_codec(args: Vec<OsString>, io: &mut Io, fixed: Option<Encoding>) -> Result<i32, UError> {
    let mut spec = vec![
        OptSpec::flag("decode", 'd', "decode"),
        OptSpec::flag("ignore", 'i', "ignore-garbage"),
        OptSpec::both("wrap", 'w', "wrap", HasArg::Required),
    ];
    if fixed.is_none() {
        for (id, long) in [("base64", "base64"), ("base64url", "base64url"), ("base32", "base32"), ("base32hex", "base32hex"), ("base16", "base16"), ("base2msbf", "base2msbf"), ("base2lsbf", "base2lsbf"), ("z85", "z85")] {
            spec.push(OptSpec::long(id, long, HasArg::No));
        }
    }
    let help = help_text(&io.name, fixed.is_none());
    let parsed = Command::new("", &spec, &help).parse(&args, io)?;
    let mut encoding = fixed;
    let mut decode = false;
    let mut ignore = false;
    let mut wrap = 76usize;
    let mut files = Vec::new();
    for p in parsed {
        match p {
            Parsed::Opt { id: "decode", .. } => decode = true,
            Parsed::Opt { id: "ignore", .. } => ignore = true,
            Parsed::Opt { id: "wrap", value } => {
                let text = value.unwrap_or_default();
                match text.to_str().and_then(|t| t.parse::<u64>().ok()) {
                    Some(w) => wrap = w.min(usize::MAX as u64) as usize,
                    None => {
                        return Err(UError::new(1, format!("invalid wrap size: {}", quote(&text))));
                    }
                }
            }
            Parsed::Opt { id, .. } => {
                encoding = Some(match id {
                    "base64" => Encoding::Base64,
                    "base64url" => Encoding::Base64Url,
                    "base32" => Encoding::Base32,
                    "base32hex" => Encoding::Base32Hex,
                    "base16" => Encoding::Base16,
                    "base2msbf" => Encoding::Base2Msbf,
                    "base2lsbf" => Encoding::Base2Lsbf,
                    _ => Encoding::Z85,
                })
            }
            Parsed::Operand(f) => files.push(f),
        }
    }
    let encoding = match encoding {
        Some(e) => e,
        None => {
            return Err(UError::usage(1, "missing encoding type"));
        }
    };
    if files.len() > 1 {
        return Err(UError::usage(1, format!("extra operand {}", quote(&files[1]))));
    }
    let path = files.pop().unwrap_or_else(|| OsString::from("-"));
    let name = io.name.clone();
    let stdin = &mut *io.stdin;
    let mut input = match open_input(&path, stdin) {
        Ok(i) => i,
        Err(e) => {
            let _ = writeln_err(io.stderr, &format!("{}: {}: {}", name, path.to_string_lossy(), strerror(&e)));
            return Ok(1);
        }
    };
    let reader = input.reader();
    let result = if decode { decode_stream(reader, io.stdout, encoding, ignore) } else { encode_stream(reader, io.stdout, encoding, wrap) };
    Ok(match result {
        Ok(()) => 0,
        Err(CodecError::Invalid) => {
            let _ = io.stdout.flush();
            let _ = writeln_err(io.stderr, &format!("{}: invalid input", name));
            1
        }
        Err(CodecError::Z85Length) => {
            let _ = writeln_err(io.stderr, &format!("{}: invalid input (length must be multiple of 4 characters)", name));
            1
        }
        Err(CodecError::Read(e)) => {
            let _ = writeln_err(io.stderr, &format!("{}: {}: {}", name, path.to_string_lossy(), strerror(&e)));
            1
        }
        Err(CodecError::Write(e)) => {
            if common::error::is_broken_pipe(&e) {
                return Ok(1);
            }
            let _ = writeln_err(io.stderr, &format!("{}: write error: {}", name, strerror(&e)));
            1
        }
    })
}

use std::io::Write;

fn writeln_err(stderr: &mut dyn Write, text: &str) -> std::io::Result<()> {
    writeln!(stderr, "{}", text)
}

enum CodecError {
    Invalid,
    Z85Length,
    Read(std::io::Error),
    Write(std::io::Error),
}

fn read_chunk(reader: &mut dyn BufRead, buf: &mut [u8]) -> Result<usize, CodecError> {
    loop {
        match reader.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CodecError::Read(e)),
        }
    }
}

/// Encodes in blocks, wrapping output lines at `wrap` columns (0: never).
fn encode_stream(reader: &mut dyn BufRead, out: &mut dyn Write, encoding: Encoding, wrap: usize) -> Result<(), CodecError> {
    let (in_block, _) = encoding.block();
    let mut buf = vec![0u8; 60 * 1024];
    let mut pending = Vec::new();
    let mut encoded = Vec::new();
    let mut column = 0usize;
    let mut wrote_any = false;
    loop {
        let n = read_chunk(reader, &mut buf)?;
        let eof = n == 0;
        pending.extend_from_slice(&buf[..n]);
        let usable = if eof { pending.len() } else { pending.len() / in_block * in_block };
        if encoding == Encoding::Z85 && eof && usable % 4 != 0 {
            return Err(CodecError::Z85Length);
        }
        encoded.clear();
        encode(&pending[..usable], encoding, &mut encoded);
        pending.drain(..usable);
        if !encoded.is_empty() {
            wrote_any = true;
        }
        write_wrapped(out, &encoded, wrap, &mut column).map_err(CodecError::Write)?;
        if eof {
            break;
        }
    }
    if wrap > 0 && wrote_any && column > 0 {
        out.write_all(b"\n").map_err(CodecError::Write)?;
    }
    Ok(())
}

fn write_wrapped(out: &mut dyn Write, mut data: &[u8], wrap: usize, column: &mut usize) -> std::io::Result<()> {
    if wrap == 0 {
        return out.write_all(data);
    }
    while !data.is_empty() {
        let room = wrap - *column;
        let take = room.min(data.len());
        out.write_all(&data[..take])?;
        *column += take;
        data = &data[take..];
        if *column == wrap {
            out.write_all(b"\n")?;
            *column = 0;
        }
    }
    Ok(())
}

fn encode(data: &[u8], encoding: Encoding, out: &mut Vec<u8>) {
    let alphabet = encoding.alphabet();
    match encoding {
        Encoding::Base64 | Encoding::Base64Url => {
            for chunk in data.chunks(3) {
                let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
                let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
                for i in 0..4 {
                    if i <= chunk.len() {
                        out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize]);
                    } else {
                        out.push(b'=');
                    }
                }
            }
        }
        Encoding::Base32 | Encoding::Base32Hex => {
            for chunk in data.chunks(5) {
                let mut n = 0u64;
                for i in 0..5 {
                    n = n << 8 | *chunk.get(i).unwrap_or(&0) as u64;
                }
                let chars = [0, 2, 4, 5, 7, 8][chunk.len()];
                for i in 0..8 {
                    if i < chars {
                        out.push(alphabet[(n >> (35 - 5 * i) & 31) as usize]);
                    } else {
                        out.push(b'=');
                    }
                }
            }
        }
        Encoding::Base16 => {
            for b in data {
                out.push(alphabet[(b >> 4) as usize]);
                out.push(alphabet[(b & 15) as usize]);
            }
        }
        Encoding::Base2Msbf | Encoding::Base2Lsbf => {
            for b in data {
                for i in 0..8 {
                    let bit = if encoding == Encoding::Base2Msbf { b >> (7 - i) & 1 } else { b >> i & 1 };
                    out.push(b'0' + bit);
                }
            }
        }
        Encoding::Z85 => {
            for chunk in data.chunks(4) {
                let mut n = 0u32;
                for b in chunk {
                    n = n << 8 | *b as u32;
                }
                let mut digits = [0u8; 5];
                for d in digits.iter_mut().rev() {
                    *d = alphabet[(n % 85) as usize];
                    n /= 85;
                }
                out.extend_from_slice(&digits);
            }
        }
    }
}

/// Decodes: newlines are skipped (with -i, every byte outside the alphabet except padding).
fn decode_stream(reader: &mut dyn BufRead, out: &mut dyn Write, encoding: Encoding, ignore: bool) -> Result<(), CodecError> {
    let table = decode_table(encoding.alphabet());
    let (_, block) = encoding.block();
    let mut buf = vec![0u8; 64 * 1024];
    let mut pending: Vec<u8> = Vec::new();
    let mut decoded = Vec::new();
    loop {
        let n = read_chunk(reader, &mut buf)?;
        let eof = n == 0;
        for &c in &buf[..n] {
            if c == b'\n' || (ignore && table[c as usize] == 255 && !(c == b'=' && encoding.has_padding())) {
                continue;
            }
            pending.push(c);
        }
        let usable = if eof { pending.len() } else { pending.len() / block * block };
        decoded.clear();
        let ok = decode(&pending[..usable], encoding, &table, &mut decoded);
        out.write_all(&decoded).map_err(CodecError::Write)?;
        if !ok {
            return Err(CodecError::Invalid);
        }
        pending.drain(..usable);
        if eof {
            return Ok(());
        }
    }
}

/// Decodes whole blocks (and a final partial one); false at the first invalid block, after
/// pushing what gnulib would have written of it.
fn decode(data: &[u8], encoding: Encoding, table: &[u8; 256], out: &mut Vec<u8>) -> bool {
    let (_, block) = encoding.block();
    for chunk in data.chunks(block) {
        let ok = match encoding {
            Encoding::Base64 | Encoding::Base64Url => decode_4(chunk, table, out),
            Encoding::Base32 | Encoding::Base32Hex => decode_8(chunk, table, out),
            Encoding::Base16 => {
                if chunk.len() < 2 || table[chunk[0] as usize] == 255 || table[chunk[1] as usize] == 255 {
                    false
                } else {
                    out.push(table[chunk[0] as usize] << 4 | table[chunk[1] as usize]);
                    true
                }
            }
            Encoding::Base2Msbf | Encoding::Base2Lsbf => {
                if chunk.len() < 8 || chunk.iter().any(|c| table[*c as usize] == 255) {
                    false
                } else {
                    let mut b = 0u8;
                    for (i, c) in chunk.iter().enumerate() {
                        let bit = table[*c as usize];
                        b |= if encoding == Encoding::Base2Msbf { bit << (7 - i) } else { bit << i };
                    }
                    out.push(b);
                    true
                }
            }
            Encoding::Z85 => {
                if chunk.len() < 5 || chunk.iter().any(|c| table[*c as usize] == 255) {
                    false
                } else {
                    let n = chunk.iter().fold(0u64, |n, c| n * 85 + table[*c as usize] as u64);
                    if n > u32::MAX as u64 {
                        false
                    } else {
                        out.extend_from_slice(&(n as u32).to_be_bytes());
                        true
                    }
                }
            }
        };
        if !ok {
            return false;
        }
    }
    true
}

/// gnulib's decode_4: a short or malformed block still yields its leading bytes.
fn decode_4(c: &[u8], t: &[u8; 256], out: &mut Vec<u8>) -> bool {
    let v = |i: usize| t[c[i] as usize];
    if c.len() < 2 || v(0) == 255 || v(1) == 255 {
        return false;
    }
    out.push(v(0) << 2 | v(1) >> 4);
    if c.len() == 2 {
        return false;
    }
    if c[2] == b'=' {
        return c.len() == 4 && c[3] == b'=';
    }
    if v(2) == 255 {
        return false;
    }
    out.push(v(1) << 4 | v(2) >> 2);
    if c.len() == 3 {
        return false;
    }
    if c[3] == b'=' {
        return true;
    }
    if v(3) == 255 {
        return false;
    }
    out.push(v(2) << 6 | v(3));
    true
}

/// gnulib's decode_8 for base32.
fn decode_8(c: &[u8], t: &[u8; 256], out: &mut Vec<u8>) -> bool {
    if c.len() < 8 {
        return false;
    }
    let v = |i: usize| t[c[i] as usize];
    let pad_from = |i: usize| c[i..].iter().all(|b| *b == b'=');
    if v(0) == 255 || v(1) == 255 {
        return false;
    }
    out.push(v(0) << 3 | v(1) >> 2);
    if c[2] == b'=' {
        return pad_from(2);
    }
    if v(2) == 255 || v(3) == 255 {
        return false;
    }
    out.push(v(1) << 6 | v(2) << 1 | v(3) >> 4);
    if c[4] == b'=' {
        return pad_from(4);
    }
    if v(4) == 255 {
        return false;
    }
    out.push(v(3) << 4 | v(4) >> 1);
    if c[5] == b'=' {
        return pad_from(5);
    }
    if v(5) == 255 || v(6) == 255 {
        return false;
    }
    out.push(v(4) << 7 | v(5) << 2 | v(6) >> 3);
    if c[7] == b'=' {
        return true;
    }
    if v(7) == 255 {
        return false;
    }
    out.push(v(6) << 5 | v(7));
    true
}

fn help_text(name: &str, basenc: bool) -> String {
    let what = match name {
        "base32" => "Base32",
        _ if basenc => "basenc",
        _ => "Base64",
    };
    let mut text = format!(
        "Usage: {} [OPTION]... [FILE]\n{} encode or decode FILE, or standard input, to standard output.\n\nWith no FILE, or when FILE is -, read standard input.\n\nMandatory arguments to long options are mandatory for short options too.\n",
        name, what
    );
    if basenc {
        text.push_str("      --base64          same as 'base64' program (RFC4648 section 4)\n      --base64url       file- and url-safe base64 (RFC4648 section 5)\n      --base32          same as 'base32' program (RFC4648 section 6)\n      --base32hex       extended hex alphabet base32 (RFC4648 section 7)\n      --base16          hex encoding (RFC4648 section 8)\n      --base2msbf       bit string with most significant bit (msb) first\n      --base2lsbf       bit string with least significant bit (lsb) first\n");
    }
    text.push_str("  -d, --decode          decode data\n  -i, --ignore-garbage  when decoding, ignore non-alphabet characters\n  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76).\n                          Use 0 to disable line wrapping\n");
    if basenc {
        text.push_str("      --z85             ascii85-like encoding (ZeroMQ spec:32/Z85);\n                        when encoding, input length must be a multiple of 4;\n                        when decoding, input length must be a multiple of 5\n");
    }
    text.push_str("      --help        display this help and exit\n      --version     output version information and exit\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(data: &[u8], e: Encoding) -> Vec<u8> {
        let mut out = Vec::new();
        encode(data, e, &mut out);
        out
    }

    #[test]
    fn rfc4648_vectors() {
        assert_eq!(enc(b"foobar", Encoding::Base64), b"Zm9vYmFy");
        assert_eq!(enc(b"fo", Encoding::Base64), b"Zm8=");
        assert_eq!(enc(b"foob", Encoding::Base32), b"MZXW6YQ=");
        assert_eq!(enc(b"f", Encoding::Base32Hex), b"CO======");
        assert_eq!(enc(&[0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B], Encoding::Z85), b"HelloWorld");
    }

    #[test]
    fn partial_blocks_keep_leading_bytes() {
        let t = decode_table(B64);
        let mut out = Vec::new();
        assert!(!decode(b"aGVsbG8", Encoding::Base64, &t, &mut out));
        assert_eq!(out, b"hello");
    }
}
