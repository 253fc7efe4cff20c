//! `cksum`: POSIX CRC-32 checksums and sizes (coreutils 9.1's default), or with `-a` any of
//! sum's BSD/SysV checksums and the md5sum family (tagged output by default, `-c` checking).
//! The BSD and SysV sums live here too; `sum` uses them.

use std::ffi::OsString;
use std::io::{self, BufRead};

use common::args::{os_bytes, Command};
use common::io::{for_each_block, open_input};
use common::{strerror, Io, UError};

use super::cmd_md5sum::{self as digest, Algo, Opts};

fn crc_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    for (i, slot) in table.iter_mut().enumerate() {
        let mut crc = (i as u32) << 24;
        for _ in 0..8 {
            crc = if crc & 0x8000_0000 != 0 { crc << 1 ^ 0x04C1_1DB7 } else { crc << 1 };
        }
        *slot = crc;
    }
    table
}

/// POSIX cksum: CRC-32 (MSB first) over the data and then its length; returns (crc, size).
pub fn posix_crc(reader: &mut dyn BufRead) -> io::Result<(u32, u64)> {
    let table = crc_table();
    let mut crc = 0u32;
    let mut size = 0u64;
    for_each_block(reader, |block| {
        size += block.len() as u64;
        for &b in block {
            crc = crc << 8 ^ table[((crc >> 24) as u8 ^ b) as usize];
        }
    })?;
    let mut n = size;
    while n > 0 {
        crc = crc << 8 ^ table[((crc >> 24) as u8 ^ n as u8) as usize];
        n >>= 8;
    }
    Ok((!crc, size))
}

/// BSD `sum -r`: a 16-bit rotating checksum; returns (checksum, size).
pub fn bsd_sum(reader: &mut dyn BufRead) -> io::Result<(u32, u64)> {
    let mut sum = 0u32;
    let mut size = 0u64;
    for_each_block(reader, |block| {
        size += block.len() as u64;
        for &b in block {
            sum = (sum >> 1) + ((sum & 1) << 15);
            sum = (sum + b as u32) & 0xffff;
        }
    })?;
    Ok((sum, size))
}

/// System V `sum -s`: the byte sum folded to 16 bits; returns (checksum, size).
pub fn sysv_sum(reader: &mut dyn BufRead) -> io::Result<(u32, u64)> {
    let mut total = 0u64;
    let mut size = 0u64;
    for_each_block(reader, |block| {
        size += block.len() as u64;
        total += block.iter().map(|b| *b as u64).sum::<u64>();
    })?;
    let r = (total & 0xffff) + ((total >> 16) & 0xffff) + ((total >> 32) & 0xffff) + (total >> 48);
    let r = (r & 0xffff) + (r >> 16);
    Ok(((r & 0xffff) as u32, size))
}

/// The line for one of the legacy checksums; `name` is None when reading implicit stdin.
pub fn legacy_line(algo: Algo, sum: u32, size: u64, name: Option<&[u8]>, delim: u8) -> Vec<u8> {
    let mut line = match algo {
        Algo::Bsd => format!("{:05} {:5}", sum, (size + 1023) / 1024),
        Algo::Sysv => format!("{} {}", sum, (size + 511) / 512),
        _ => format!("{} {}", sum, size),
    }
    .into_bytes();
    if let Some(n) = name {
        line.push(b' ');
        line.extend_from_slice(n);
    }
    line.push(delim);
    line
}

/// Prints the legacy checksum of each operand (stdin when none); the status to exit with.
pub fn run_legacy(io: &mut Io, algo: Algo, files: &[OsString], delim: u8) -> i32 {
    let implicit = files.is_empty();
    let stdin_name = [OsString::from("-")];
    let list = if implicit { &stdin_name[..] } else { files };
    let mut status = 0;
    for file in list {
        let result = {
            let stdin = &mut *io.stdin;
            open_input(file, stdin).and_then(|mut input| match algo {
                Algo::Bsd => bsd_sum(input.reader()),
                Algo::Sysv => sysv_sum(input.reader()),
                _ => posix_crc(input.reader()),
            })
        };
        match result {
            Ok((sum, size)) => {
                let name = if implicit { None } else { Some(os_bytes(file)) };
                if io.out(&legacy_line(algo, sum, size, name, delim)).is_err() {
                    return 1;
                }
            }
            Err(e) => {
                digest::warn(io, format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                status = 1;
            }
        }
    }
    status
}

const SPEC: &str = "algorithm,a: check,c length,l: tag untagged zero,z ignore-missing quiet status strict warn,w debug";

const CKSUM: Command = Command::compact("", SPEC, HELP);

const ALGORITHMS: &[&str] = &["bsd", "sysv", "crc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3"];

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut opts = Opts { algo: Algo::Crc, binary: false, tag: true, zero: false, check: false, quiet: false, status: false, strict: false, warn: false, ignore_missing: false, cksum_any_algo: true };
    let mut algo_given = false;
    let mut length = false;
    let files = CKSUM.operands(&args, io, &mut |io, id, value| {
        match id {
            "algorithm" => {
                let text = value.unwrap_or_default().to_string_lossy().into_owned();
                // Exact names only: GNU matches --algorithm without abbreviations.
                let name = match ALGORITHMS.iter().find(|a| **a == text) {
                    Some(a) => *a,
                    None => {
                        io.error(format!("invalid argument '{}' for '--algorithm'", text));
                        let mut list = String::from("Valid arguments are:");
                        for a in ALGORITHMS {
                            list.push_str(&format!("\n  - '{}'", a));
                        }
                        let _ = writeln_err(io, &list);
                        io.try_help();
                        return Err(UError::exit(1));
                    }
                };
                opts.algo = match name {
                    "bsd" => Algo::Bsd,
                    "sysv" => Algo::Sysv,
                    "crc" => Algo::Crc,
                    "md5" => Algo::Md5,
                    "sha1" => Algo::Sha1,
                    "sha224" => Algo::Sha224,
                    "sha256" => Algo::Sha256,
                    "sha384" => Algo::Sha384,
                    "sha512" => Algo::Sha512,
                    other => {
                        return Err(UError::new(1, format!("option not supported in the sandbox: --algorithm={}", other)));
                    }
                };
                algo_given = true;
            }
            "length" => length = true,
            "untagged" => opts.tag = false,
            "debug" => {}
            other => {
                if !opts.set_flag(other) {
                    let _ = io.out(common::version_text(&io.name).as_bytes());
                    return Err(UError::exit(0));
                }
            }
        }
        Ok(())
    })?;
    if length {
        return Err(UError::new(1, "--length is only supported with --algorithm=blake2b"));
    }
    let legacy = matches!(opts.algo, Algo::Bsd | Algo::Sysv | Algo::Crc);
    if opts.check && legacy && algo_given {
        return Ok(digest::usage(io, &format!("--check is not supported with --algorithm={{bsd,sysv,crc}}")));
    }
    if let Some(message) = digest::check_only_options(&opts) {
        return Ok(digest::usage(io, &message));
    }
    if legacy && !opts.check {
        return Ok(run_legacy(io, opts.algo, &files, if opts.zero { 0 } else { b'\n' }));
    }
    // With -a, untagged check lines are accepted for that algorithm.
    opts.cksum_any_algo = !algo_given;
    Ok(digest::run_files(io, &opts, files))
}

fn writeln_err(io: &mut Io, text: &str) -> io::Result<()> {
    writeln!(io.stderr, "{}", text)
}

const HELP: &str = "Usage: cksum [OPTION]... [FILE]...
Print or verify checksums.
By default use the 32 bit CRC algorithm.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -a, --algorithm=TYPE  select the digest type to use.  See DIGEST below.
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum (the default)
      --untagged        create a reversed style checksum, without digest type
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

{standard}
DIGEST determines the digest algorithm and default output format:
  sysv      (equivalent to sum -s)
  bsd       (equivalent to sum -r)
  crc       (equivalent to cksum)
  md5       (equivalent to md5sum)
  sha1      (equivalent to sha1sum)
  sha224    (equivalent to sha224sum)
  sha256    (equivalent to sha256sum)
  sha384    (equivalent to sha384sum)
  sha512    (equivalent to sha512sum)

When checking, the input should be a former output of this program,
or equivalent standalone program.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_crc_of_abc() {
        let mut r: &[u8] = b"abc";
        assert_eq!(posix_crc(&mut r).unwrap(), (1219131554, 3));
    }
}
