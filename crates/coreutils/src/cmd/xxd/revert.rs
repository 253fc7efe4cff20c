//! `xxd -r`: a hex dump (normal or `-p` plain) read back into bytes, patched into a file
//! it may seek in or written to a stream with gaps filled.

use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom, Write};

use super::options::{Mode, Options};


/// Where -r writes: a file it may seek in (patching), or a stream gaps are filled with NULs.
pub enum Patch<'a> {
    File(&'a mut io::BufWriter<File>),
    Stream(&'a mut dyn Write),
}

/// xxd's `huntype`: reads a hex dump back into bytes. Ok(false): it would have to seek
/// backwards in a stream.
pub fn revert(reader: &mut dyn BufRead, out: &mut Patch, o: &Options, base: i64) -> io::Result<bool> {
    let plain = o.mode == Mode::Plain;
    let cols = if o.cols == i64::MAX { 30 } else { o.cols };
    let mut ignore_garbage = true;
    let (mut n1, mut n2): (i32, i32) = (-1, 0);
    let mut n3: i32;
    let mut p = cols;
    let mut have = 0i64;
    let mut want = 0i64;
    let mut bytes = reader.bytes();
    while let Some(c) = bytes.next() {
        let c = c?;
        if c == b'\r' {
            continue;
        }
        if plain && (c == b' ' || c == b'\n' || c == b'\t') {
            continue;
        }
        n3 = n2;
        n2 = n1;
        n1 = (c as char).to_digit(16).map_or(-1, |d| d as i32);
        if n1 == -1 && ignore_garbage {
            continue;
        }
        ignore_garbage = false;
        if !plain && p >= cols {
            if n1 < 0 {
                p = 0;
                continue;
            }
            want = (want << 4) | n1 as i64;
            continue;
        }
        if base + want != have {
            match out {
                Patch::File(w) => {
                    w.seek(SeekFrom::Start((base + want).max(0) as u64))?;
                }
                Patch::Stream(w) => {
                    if base + want < have {
                        return Ok(false);
                    }
                    w.write_all(&vec![0u8; (base + want - have) as usize])?;
                }
            }
            have = base + want;
        }
        let mut end_of_line = !plain && c == b'\n';
        if n2 >= 0 && n1 >= 0 {
            let byte = ((n2 << 4) | n1) as u8;
            match out {
                Patch::File(w) => w.write_all(&[byte])?,
                Patch::Stream(w) => w.write_all(&[byte])?,
            }
            have += 1;
            want += 1;
            n1 = -1;
            if !plain {
                p += 1;
                if p >= cols {
                    // The rest of the line is the ASCII column.
                    skip_line(&mut bytes)?;
                    end_of_line = true;
                }
            }
        } else if n1 < 0 && n2 < 0 && n3 < 0 {
            // Two non-hex characters in a row: the data of this line is over.
            if c != b'\n' {
                skip_line(&mut bytes)?;
            }
            end_of_line = !plain;
            ignore_garbage = true;
        }
        if end_of_line {
            want = 0;
            p = cols;
            ignore_garbage = true;
        }
    }
    Ok(true)
}

fn skip_line(bytes: &mut dyn Iterator<Item = io::Result<u8>>) -> io::Result<()> {
    for b in bytes {
        if b? == b'\n' {
            break;
        }
    }
    Ok(())
}
