//! `md5sum`: print or check MD5 checksums. This file is also the engine of `sha1sum`,
//! `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum` and of `cksum -a ALGO` (output in
//! GNU's plain, `--tag` (BSD) and `-z` forms, and `-c` checking with GNU's messages).

#[path = "md5sum/check.rs"]
mod check;

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead};

use common::args::{os_bytes, Parsed};
use common::io::{for_each_block, open_input};
use common::{strerror, Command, Io, UError};
use sha2::digest::DynDigest;

/// Every algorithm `cksum -a` knows; the first three are cksum's and sum's own checksums.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Algo {
    Bsd,
    Sysv,
    Crc,
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Algo {
    /// The name used by `--tag` lines.
    pub fn tag(self) -> &'static str {
        match self {
            Algo::Md5 => "MD5",
            Algo::Sha1 => "SHA1",
            Algo::Sha224 => "SHA224",
            Algo::Sha256 => "SHA256",
            Algo::Sha384 => "SHA384",
            Algo::Sha512 => "SHA512",
            Algo::Bsd => "BSD",
            Algo::Sysv => "SYSV",
            Algo::Crc => "CRC",
        }
    }
    pub fn from_tag(tag: &[u8]) -> Option<Algo> {
        [Algo::Md5, Algo::Sha1, Algo::Sha224, Algo::Sha256, Algo::Sha384, Algo::Sha512].iter().copied().find(|a| a.tag().as_bytes() == tag)
    }
    /// Length of the digest in hex digits.
    pub fn hex_len(self) -> usize {
        match self {
            Algo::Md5 => 32,
            Algo::Sha1 => 40,
            Algo::Sha224 => 56,
            Algo::Sha256 => 64,
            Algo::Sha384 => 96,
            Algo::Sha512 => 128,
            _ => 0,
        }
    }
    fn hasher(self) -> Box<dyn DynDigest> {
        match self {
            Algo::Md5 => Box::new(md5::Md5::default()),
            Algo::Sha1 => Box::new(sha1::Sha1::default()),
            Algo::Sha224 => Box::new(sha2::Sha224::default()),
            Algo::Sha384 => Box::new(sha2::Sha384::default()),
            Algo::Sha512 => Box::new(sha2::Sha512::default()),
            _ => Box::new(sha2::Sha256::default()),
        }
    }
}

/// Hashes everything `reader` yields and returns the digest in lowercase hex.
pub fn hex_digest(algo: Algo, reader: &mut dyn BufRead) -> io::Result<String> {
    let mut hasher = algo.hasher();
    for_each_block(reader, |buf| hasher.update(buf))?;
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(digest.len() * 2);
    for b in digest.iter() {
        hex.push_str(&format!("{:02x}", b));
    }
    Ok(hex)
}

/// Options shared by the *sum commands and `cksum -a`.
pub struct Opts {
    pub algo: Algo,
    pub binary: bool,
    pub tag: bool,
    pub zero: bool,
    pub check: bool,
    pub quiet: bool,
    pub status: bool,
    pub strict: bool,
    pub warn: bool,
    pub ignore_missing: bool,
    /// `cksum`: without -a, -c accepts only tagged lines and finds the algorithm in them.
    pub cksum_any_algo: bool,
}

impl Opts {
    /// Sets the flag option `id` that md5sum and cksum share; false when it is not one.
    pub fn set_flag(&mut self, id: &str) -> bool {
        match id {
            "check" => self.check = true,
            "tag" => self.tag = true,
            "zero" => self.zero = true,
            "ignore-missing" => self.ignore_missing = true,
            "quiet" => self.quiet = true,
            "status" => self.status = true,
            "strict" => self.strict = true,
            "warn" => self.warn = true,
            _ => return false,
        }
        true
    }
}

/// Whether a file name needs GNU's `\`-escaping in computed output.
fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// The name with `\\`, `\n`, `\r` escaped.
pub fn escape_name(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 2);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    out
}

/// One output line for a computed digest, as md5sum/cksum -a print it.
pub fn format_line(opts: &Opts, hex: &str, name: &[u8]) -> Vec<u8> {
    let escape = !opts.zero && needs_escape(name);
    let shown = if escape { escape_name(name) } else { name.to_vec() };
    let mut line = Vec::new();
    if escape {
        line.push(b'\\');
    }
    if opts.tag {
        line.extend_from_slice(opts.algo.tag().as_bytes());
        line.extend_from_slice(b" (");
        line.extend_from_slice(&shown);
        line.extend_from_slice(b") = ");
        line.extend_from_slice(hex.as_bytes());
    } else {
        line.extend_from_slice(hex.as_bytes());
        line.push(b' ');
        line.push(if opts.binary { b'*' } else { b' ' });
        line.extend_from_slice(&shown);
    }
    line.push(if opts.zero { 0 } else { b'\n' });
    line
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    run_digest(args, io, Algo::Md5)
}

const SPEC: &str = "binary,b check,c tag text,t zero,z ignore-missing quiet status strict warn,w";

/// The entry point of md5sum and the sha*sum commands.
pub fn run_digest(args: Vec<OsString>, io: &mut Io, algo: Algo) -> Result<i32, UError> {
    let help = help_text(&io.name, algo);
    let parsed = Command::compact("", SPEC, &help).parse(&args, io)?;
    let mut opts = Opts { algo, binary: false, tag: false, zero: false, check: false, quiet: false, status: false, strict: false, warn: false, ignore_missing: false, cksum_any_algo: false };
    let mut mode: Option<bool> = None;
    let mut files = Vec::new();
    for p in parsed {
        match p {
            Parsed::Opt { id, .. } => match id {
                "binary" => mode = Some(true),
                "text" => mode = Some(false),
                other => {
                    opts.set_flag(other);
                }
            },
            Parsed::Operand(f) => files.push(f),
        }
    }
    if opts.tag && mode == Some(false) {
        return Ok(usage(io, "--tag does not support --text mode"));
    }
    if opts.tag && opts.check {
        return Ok(usage(io, "the --tag option is meaningless when verifying checksums"));
    }
    if mode.is_some() && opts.check {
        return Ok(usage(io, "the --binary and --text options are meaningless when verifying checksums"));
    }
    opts.binary = mode == Some(true);
    if let Some(message) = check_only_options(&opts) {
        return Ok(usage(io, &message));
    }
    Ok(run_files(io, &opts, files))
}

/// The `--quiet`-style options that make sense only with -c.
pub fn check_only_options(opts: &Opts) -> Option<String> {
    if opts.check {
        return None;
    }
    let name = [(opts.ignore_missing, "--ignore-missing"), (opts.status, "--status"), (opts.warn, "--warn"), (opts.quiet, "--quiet"), (opts.strict, "--strict")].iter().find(|(set, _)| *set).map(|(_, n)| *n)?;
    Some(format!("the {} option is meaningful only when verifying checksums", name))
}

/// An error message after flushing stdout, as glibc's error() does, so that messages and
/// output interleave in the order they happened.
pub fn warn(io: &mut Io, message: impl std::fmt::Display) {
    let _ = io.stdout.flush();
    io.error(message);
}

pub fn usage(io: &mut Io, message: &str) -> i32 {
    io.error(message);
    io.try_help();
    1
}

/// Computes (or with -c checks) every operand; stdin when there is none.
pub fn run_files(io: &mut Io, opts: &Opts, mut files: Vec<OsString>) -> i32 {
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let mut status = 0;
    for file in &files {
        let ok = if opts.check { check::check_file(io, opts, file) } else { print_digest(io, opts, file) };
        match ok {
            Ok(true) => {}
            Ok(false) => status = 1,
            Err(_) => return 1,
        }
    }
    status
}

/// Prints one file's digest line; Ok(false) when it could not be read; Err on EPIPE.
fn print_digest(io: &mut Io, opts: &Opts, file: &OsStr) -> io::Result<bool> {
    let digest = {
        let stdin = &mut *io.stdin;
        open_input(file, stdin).and_then(|mut input| hex_digest(opts.algo, input.reader()))
    };
    match digest {
        Ok(hex) => {
            let line = format_line(opts, &hex, os_bytes(file));
            io.out(&line)?;
            Ok(true)
        }
        Err(e) => {
            warn(io, format!("{}: {}", file.to_string_lossy(), strerror(&e)));
            Ok(false)
        }
    }
}

fn help_text(name: &str, algo: Algo) -> String {
    let (what, rfc) = match algo {
        Algo::Md5 => ("MD5 (128-bit)", "The sums are computed as described in RFC 1321."),
        Algo::Sha1 => ("SHA1 (160-bit)", "The sums are computed as described in FIPS-180-1."),
        Algo::Sha224 => ("SHA224 (224-bit)", "The sums are computed as described in RFC 3874."),
        Algo::Sha256 => ("SHA256 (256-bit)", "The sums are computed as described in FIPS-180-2."),
        Algo::Sha384 => ("SHA384 (384-bit)", "The sums are computed as described in FIPS-180-2."),
        _ => ("SHA512 (512-bit)", "The sums are computed as described in FIPS-180-2."),
    };
    format!(
        "Usage: {name} [OPTION]... [FILE]...\nPrint or check {what} checksums.\n\nWith no FILE, or when FILE is -, read standard input.\n  -b, --binary          read in binary mode\n  -c, --check           read checksums from the FILEs and check them\n      --tag             create a BSD-style checksum\n  -t, --text            read in text mode (default)\n  -z, --zero            end each output line with NUL, not newline,\n                          and disable file name escaping\n\nThe following five options are useful only when verifying checksums:\n      --ignore-missing  don't fail or report status for missing files\n      --quiet           don't print OK for each successfully verified file\n      --status          don't output anything, status code shows success\n      --strict          exit non-zero for improperly formatted checksum lines\n  -w, --warn            warn about improperly formatted checksum lines\n\n      --help        display this help and exit\n      --version     output version information and exit\n\n{rfc}\nWhen checking, the input should be a former output of this program.\nThe default mode is to print a line with: checksum, a space,\na character indicating input mode ('*' for binary, ' ' for text\nor where binary is insignificant), and name for each FILE.\n\nNote: There is no difference between binary mode and text mode on GNU systems.\n",
        name = name,
        what = what,
        rfc = rfc
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        let mut r: &[u8] = b"abc";
        assert_eq!(hex_digest(Algo::Md5, &mut r).unwrap(), "900150983cd24fb0d6963f7d28e17f72");
        let mut r: &[u8] = b"abc";
        assert_eq!(hex_digest(Algo::Sha256, &mut r).unwrap(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn escaped_names() {
        let opts = Opts { algo: Algo::Md5, binary: false, tag: false, zero: false, check: false, quiet: false, status: false, strict: false, warn: false, ignore_missing: false, cksum_any_algo: false };
        assert_eq!(format_line(&opts, "ab", b"a\\b"), b"\\ab  a\\\\b\n");
    }
}
