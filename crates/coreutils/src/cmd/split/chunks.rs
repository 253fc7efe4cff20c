//! split -n: N chunks of bytes (the last takes the remainder), of whole lines (`l/`), or
//! lines dealt round robin (`r/`); `K/N` sends only chunk K to standard output.

use std::io::Write;

use super::output::Outputs;
use super::Failure;

pub fn split_chunks(data: &[u8], kind: u8, k: u64, n: u64, separator: u8, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    match kind {
        b'l' => lines(data, k, n, separator, outputs, stdout),
        b'r' => round_robin(data, k, n, separator, outputs, stdout),
        _ => bytes(data, k, n, outputs, stdout),
    }
}

fn emit(k: u64, chunk: u64, piece: &[u8], new_file: bool, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    if k == 0 {
        if piece.is_empty() && new_file {
            return outputs.empty(stdout);
        }
        return outputs.write(new_file, piece, stdout);
    }
    if chunk == k {
        stdout.write_all(piece).map_err(|e| Failure::Output(common::strerror(&e)))?;
    }
    Ok(())
}

fn bytes(data: &[u8], k: u64, n: u64, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    let size = data.len() as u64;
    // GNU 9.1: at least one byte per chunk; the last chunk takes the rest.
    let chunk_size = (size / n).max(1);
    for chunk in 1..=n {
        let start = ((chunk - 1).saturating_mul(chunk_size)).min(size);
        let end = if chunk == n { size } else { chunk.saturating_mul(chunk_size).min(size) };
        emit(k, chunk, &data[start as usize..end as usize], true, outputs, stdout)?;
    }
    Ok(())
}

/// GNU's lines_chunk_split: chunk boundaries at multiples of size/N, moved forward to
/// the end of the line they fall in; a long line can leave chunks empty.
fn lines(data: &[u8], k: u64, n: u64, separator: u8, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    let size = data.len() as u64;
    let chunk_size = size / n;
    let mut chunk = 1u64;
    let mut chunk_end: i128 = chunk_size as i128 - 1;
    let mut written: u64 = 0;
    let mut new_file = true;
    let mut files = 0u64;
    while written < size {
        let skip = (chunk_end - written as i128).max(0) as u64;
        let from = (written + skip).min(size) as usize;
        let (end, next) = match data[from..].iter().position(|c| *c == separator) {
            Some(p) => (from + p + 1, true),
            None => (size as usize, false),
        };
        emit(k, chunk, &data[written as usize..end], new_file, outputs, stdout)?;
        files += new_file as u64;
        new_file = false;
        written = end as u64;
        let mut next = next;
        while next || chunk_end <= written as i128 - 1 {
            if !next && written == size {
                break;
            }
            chunk += 1;
            if k != 0 && chunk > k {
                return Ok(());
            }
            chunk_end = if chunk == n { size as i128 - 1 } else { chunk_end + chunk_size as i128 };
            new_file = true;
            if chunk_end <= written as i128 - 1 {
                emit(k, chunk, &[], true, outputs, stdout)?;
                files += 1;
            } else {
                next = false;
            }
        }
    }
    // Chunks never reached still get (empty) files.
    if k == 0 {
        while files < n {
            files += 1;
            outputs.empty(stdout)?;
        }
    }
    Ok(())
}

fn round_robin(data: &[u8], k: u64, n: u64, separator: u8, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    let mut pieces: Vec<Vec<u8>> = vec![Vec::new(); n as usize];
    let mut i = 0usize;
    for line in data.split_inclusive(|c| *c == separator) {
        pieces[i].extend_from_slice(line);
        i = (i + 1) % n as usize;
    }
    for (index, piece) in pieces.iter().enumerate() {
        emit(k, index as u64 + 1, piece, true, outputs, stdout)?;
    }
    Ok(())
}
