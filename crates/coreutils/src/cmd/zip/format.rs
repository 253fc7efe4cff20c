//! The zip file format as Info-ZIP writes it: local headers, data (stored or deflated),
//! the central directory and its end record, with the "UT" (mtime) and "ux" (owner)
//! extra fields and Unix modes in the external attributes. Reading finds the end record,
//! walks the central directory and keeps each member's raw data so that rewriting an
//! archive (zip's update and -d) copies untouched members as they are.

use std::io::{self, Read, Write};

use flate2::read::{DeflateDecoder, DeflateEncoder};
use flate2::Compression;

pub const METHOD_STORED: u16 = 0;
pub const METHOD_DEFLATED: u16 = 8;

/// One member, with its compressed bytes.
#[derive(Debug, Clone)]
pub struct Member {
    pub name: Vec<u8>,
    pub method: u16,
    pub flags: u16,
    pub crc: u32,
    pub compressed: Vec<u8>,
    pub size: u64,
    /// Seconds since the epoch (from the UT field, else the DOS time read as local time).
    pub mtime: i64,
    pub dos_time: u16,
    pub dos_date: u16,
    pub mode: Option<u32>,
    pub uid_gid: Option<(u32, u32)>,
    pub made_by: u16,
    pub needed: u16,
    pub external: u32,
    pub internal: u16,
}

impl Member {
    pub fn is_dir(&self) -> bool {
        self.name.ends_with(b"/")
    }

    /// The member's data, inflated when needed.
    pub fn data(&self) -> io::Result<Vec<u8>> {
        match self.method {
            METHOD_STORED => Ok(self.compressed.clone()),
            METHOD_DEFLATED => {
                let mut out = Vec::with_capacity(self.size as usize);
                DeflateDecoder::new(&self.compressed[..]).read_to_end(&mut out)?;
                Ok(out)
            }
            m => Err(io::Error::new(io::ErrorKind::Other, format!("unsupported compression method {}", m))),
        }
    }
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// DOS date and time of `secs` shown at `offset` seconds east of UTC (2-second steps).
pub fn dos_datetime(secs: i64, offset: i64) -> (u16, u16) {
    let tm = common::timefmt::Tm::at(secs, 0, offset);
    if tm.year < 1980 {
        return (0, (1 << 5) | 1);
    }
    let time = (tm.hour << 11 | tm.minute << 5 | tm.second / 2) as u16;
    let date = (((tm.year - 1980) as u32) << 9 | tm.month << 5 | tm.day) as u16;
    (time, date)
}

/// Seconds since the epoch of a DOS date and time taken as local time at `offset`.
pub fn dos_to_epoch(time: u16, date: u16, offset: i64) -> i64 {
    let year = 1980 + (date >> 9) as i64;
    let month = ((date >> 5) & 15).max(1) as u32;
    let day = (date & 31).max(1) as u32;
    let days = common::timefmt::days_from_civil(year, month, day);
    days * 86400 + (time >> 11) as i64 * 3600 + ((time >> 5) & 63) as i64 * 60 + (time & 31) as i64 * 2 - offset
}

/// Parses an archive held in memory. Err(message) when it is not a zip file.
pub fn read_archive(data: &[u8]) -> Result<Vec<Member>, String> {
    let min = 22;
    if data.len() < min {
        return Err("End-of-central-directory signature not found.".to_string());
    }
    let search_from = data.len().saturating_sub(65535 + min);
    let eocd = (search_from..=data.len() - min).rev().find(|&i| u32_at(data, i) == 0x0605_4b50).ok_or_else(|| "End-of-central-directory signature not found.".to_string())?;
    let count = u16_at(data, eocd + 10) as usize;
    let mut pos = u32_at(data, eocd + 16) as usize;
    let offset = common::timefmt::local_offset();
    let mut members = Vec::with_capacity(count);
    for _ in 0..count {
        if pos + 46 > data.len() || u32_at(data, pos) != 0x0201_4b50 {
            return Err("bad zipfile offset (central directory)".to_string());
        }
        let made_by = u16_at(data, pos + 4);
        let needed = u16_at(data, pos + 6);
        let flags = u16_at(data, pos + 8);
        let method = u16_at(data, pos + 10);
        let dos_time = u16_at(data, pos + 12);
        let dos_date = u16_at(data, pos + 14);
        let crc = u32_at(data, pos + 16);
        let csize = u32_at(data, pos + 20) as u64;
        let usize_ = u32_at(data, pos + 24) as u64;
        let name_len = u16_at(data, pos + 28) as usize;
        let extra_len = u16_at(data, pos + 30) as usize;
        let comment_len = u16_at(data, pos + 32) as usize;
        let internal = u16_at(data, pos + 36);
        let external = u32_at(data, pos + 38);
        let local = u32_at(data, pos + 42) as usize;
        let end = pos + 46 + name_len + extra_len + comment_len;
        if end > data.len() {
            return Err("bad zipfile offset (central directory)".to_string());
        }
        let name = data[pos + 46..pos + 46 + name_len].to_vec();
        let extra = &data[pos + 46 + name_len..pos + 46 + name_len + extra_len];
        let mut mtime = dos_to_epoch(dos_time, dos_date, offset);
        let mut uid_gid = None;
        let mut e = 0;
        while e + 4 <= extra.len() {
            let id = u16_at(extra, e);
            let len = u16_at(extra, e + 2) as usize;
            let body = &extra[e + 4..(e + 4 + len).min(extra.len())];
            if id == 0x5455 && body.len() >= 5 && body[0] & 1 != 0 {
                mtime = u32_at(body, 1) as i32 as i64;
            }
            if id == 0x7875 && body.len() >= 3 {
                let usz = body[1] as usize;
                if body.len() >= 3 + usz && usz == 4 {
                    let gsz = body[2 + usz] as usize;
                    if gsz == 4 && body.len() >= 3 + usz + gsz {
                        uid_gid = Some((u32_at(body, 2), u32_at(body, 3 + usz)));
                    }
                }
            }
            e += 4 + len;
        }
        if local + 30 > data.len() || u32_at(data, local) != 0x0403_4b50 {
            return Err("bad zipfile offset (local header sig)".to_string());
        }
        let start = local + 30 + u16_at(data, local + 26) as usize + u16_at(data, local + 28) as usize;
        if start + csize as usize > data.len() {
            return Err("bad zipfile offset (lseek)".to_string());
        }
        let mode = if made_by >> 8 == 3 && external >> 16 != 0 { Some(external >> 16) } else { None };
        members.push(Member {
            name,
            method,
            flags,
            crc,
            compressed: data[start..start + csize as usize].to_vec(),
            size: usize_,
            mtime,
            dos_time,
            dos_date,
            mode,
            uid_gid,
            made_by,
            needed,
            external,
            internal,
        });
        pos = end;
    }
    Ok(members)
}

/// Compresses data for a new member; stores it when deflate does not make it smaller.
pub fn compress(data: &[u8], level: u32) -> (u16, Vec<u8>) {
    if level == 0 || data.is_empty() {
        return (METHOD_STORED, data.to_vec());
    }
    let mut out = Vec::new();
    if DeflateEncoder::new(data, Compression::new(level)).read_to_end(&mut out).is_err() || out.len() >= data.len() {
        return (METHOD_STORED, data.to_vec());
    }
    (METHOD_DEFLATED, out)
}

/// Info-ZIP's rounded percentage of space saved.
pub fn percent(size: u64, compressed: u64) -> i64 {
    if size == 0 {
        return 0;
    }
    let n = size as i128;
    let m = compressed as i128;
    ((1 + 200 * (n - m) / n) / 2) as i64
}

/// Builds a member for new data.
pub fn new_member(name: Vec<u8>, data: &[u8], level: u32, mtime: i64, mode: u32, uid: u32, gid: u32) -> Member {
    let (method, compressed) = compress(data, level);
    let (dos_time, dos_date) = dos_datetime(mtime, common::timefmt::local_offset());
    let mut crc = crc32fast::Hasher::new();
    crc.update(data);
    let level_flags = match level {
        8 | 9 => 2,
        2 => 4,
        1 => 6,
        _ => 0,
    };
    Member {
        name,
        method,
        flags: if method == METHOD_DEFLATED { level_flags } else { 0 },
        crc: crc.finalize(),
        compressed,
        size: data.len() as u64,
        mtime,
        dos_time,
        dos_date,
        mode: Some(mode),
        uid_gid: Some((uid, gid)),
        made_by: 0x031e,
        needed: if method == METHOD_DEFLATED { 20 } else { 10 },
        external: mode << 16,
        internal: 0,
    }
}

fn extra_fields(m: &Member, central: bool) -> Vec<u8> {
    let mut e = Vec::new();
    let t = m.mtime.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32;
    e.extend_from_slice(&0x5455u16.to_le_bytes());
    if central {
        e.extend_from_slice(&5u16.to_le_bytes());
        e.push(3);
        e.extend_from_slice(&t.to_le_bytes());
    } else {
        e.extend_from_slice(&9u16.to_le_bytes());
        e.push(3);
        e.extend_from_slice(&t.to_le_bytes());
        e.extend_from_slice(&t.to_le_bytes());
    }
    if let Some((uid, gid)) = m.uid_gid {
        e.extend_from_slice(&0x7875u16.to_le_bytes());
        if central {
            e.extend_from_slice(&0u16.to_le_bytes());
        } else {
            e.extend_from_slice(&11u16.to_le_bytes());
            e.push(1);
            e.push(4);
            e.extend_from_slice(&uid.to_le_bytes());
            e.push(4);
            e.extend_from_slice(&gid.to_le_bytes());
        }
    }
    e
}

/// The fields a local header and a central directory entry share, in the same order: flags
/// (without the data-descriptor bit: sizes are known), method, time, CRC, sizes, name and
/// extra lengths.
fn common_fields(h: &mut Vec<u8>, m: &Member, extra_len: usize) {
    h.extend_from_slice(&(m.flags & !8).to_le_bytes());
    h.extend_from_slice(&m.method.to_le_bytes());
    h.extend_from_slice(&m.dos_time.to_le_bytes());
    h.extend_from_slice(&m.dos_date.to_le_bytes());
    h.extend_from_slice(&m.crc.to_le_bytes());
    h.extend_from_slice(&(m.compressed.len() as u32).to_le_bytes());
    h.extend_from_slice(&(m.size as u32).to_le_bytes());
    h.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
    h.extend_from_slice(&(extra_len as u16).to_le_bytes());
}

/// Writes a whole archive.
pub fn write_archive(out: &mut dyn Write, members: &[Member]) -> io::Result<()> {
    let mut offset = 0u64;
    let mut offsets = Vec::with_capacity(members.len());
    for m in members {
        offsets.push(offset);
        let extra = extra_fields(m, false);
        let mut h = Vec::with_capacity(30 + m.name.len() + extra.len());
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.extend_from_slice(&m.needed.to_le_bytes());
        common_fields(&mut h, m, extra.len());
        h.extend_from_slice(&m.name);
        h.extend_from_slice(&extra);
        out.write_all(&h)?;
        out.write_all(&m.compressed)?;
        offset += (h.len() + m.compressed.len()) as u64;
    }
    let cd_start = offset;
    for (m, off) in members.iter().zip(offsets) {
        let extra = extra_fields(m, true);
        let mut h = Vec::with_capacity(46 + m.name.len() + extra.len());
        h.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        h.extend_from_slice(&m.made_by.to_le_bytes());
        h.extend_from_slice(&m.needed.to_le_bytes());
        common_fields(&mut h, m, extra.len());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(&m.internal.to_le_bytes());
        h.extend_from_slice(&m.external.to_le_bytes());
        h.extend_from_slice(&(off as u32).to_le_bytes());
        h.extend_from_slice(&m.name);
        h.extend_from_slice(&extra);
        out.write_all(&h)?;
        offset += h.len() as u64;
    }
    let mut end = Vec::with_capacity(22);
    end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    end.extend_from_slice(&[0, 0, 0, 0]);
    end.extend_from_slice(&(members.len() as u16).to_le_bytes());
    end.extend_from_slice(&(members.len() as u16).to_le_bytes());
    end.extend_from_slice(&((offset - cd_start) as u32).to_le_bytes());
    end.extend_from_slice(&(cd_start as u32).to_le_bytes());
    end.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let a = new_member(b"a".to_vec(), &b"hello hello hello hello\n"[..], 6, 1577934245, 0o100644, 0, 0);
        let d = new_member(b"d/".to_vec(), b"", 6, 1577934245, 0o040755, 0, 0);
        let mut bytes = Vec::new();
        write_archive(&mut bytes, &[a, d]).unwrap();
        let members = read_archive(&bytes).unwrap();
        assert_eq!(members.len(), 2);
        assert_eq!(members[0].data().unwrap(), b"hello hello hello hello\n");
        assert_eq!(members[0].mtime, 1577934245);
        assert!(members[1].is_dir());
        assert_eq!(percent(24, 11), 54);
    }
}
