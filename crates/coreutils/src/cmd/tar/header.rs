//! Tar headers: the 512-byte block in GNU tar's default format (ustar layout with magic
//! `ustar  `, `././@LongLink` entries for names over 100 bytes), and reading ustar, GNU
//! and pax (`x`/`g` records) headers into one `Entry`.

pub const BLOCK: usize = 512;
/// GNU tar pads archives to records of 20 blocks.
pub const RECORD: usize = 20 * BLOCK;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    HardLink,
    Symlink,
    CharDevice,
    BlockDevice,
    Directory,
    Fifo,
    Other(u8),
}

impl Kind {
    pub fn flag(self) -> u8 {
        match self {
            Kind::File => b'0',
            Kind::HardLink => b'1',
            Kind::Symlink => b'2',
            Kind::CharDevice => b'3',
            Kind::BlockDevice => b'4',
            Kind::Directory => b'5',
            Kind::Fifo => b'6',
            Kind::Other(c) => c,
        }
    }

    pub fn from_flag(c: u8) -> Kind {
        match c {
            b'0' | 0 | b'7' => Kind::File,
            b'1' => Kind::HardLink,
            b'2' => Kind::Symlink,
            b'3' => Kind::CharDevice,
            b'4' => Kind::BlockDevice,
            b'5' => Kind::Directory,
            b'6' => Kind::Fifo,
            other => Kind::Other(other),
        }
    }
}

/// One archive member as tar describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: Vec<u8>,
    pub link: Vec<u8>,
    pub kind: Kind,
    pub mode: u32,
    pub uid: u64,
    pub gid: u64,
    pub uname: Vec<u8>,
    pub gname: Vec<u8>,
    pub size: u64,
    pub mtime: i64,
    pub devmajor: u32,
    pub devminor: u32,
}

fn put_octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{:0w$o}", value, w = width);
    if text.len() <= width {
        field[..width].copy_from_slice(text.as_bytes());
        field[width] = 0;
    } else {
        // GNU's base-256 for values that do not fit.
        field.iter_mut().for_each(|b| *b = 0);
        field[0] = 0x80;
        let bytes = value.to_be_bytes();
        let n = field.len();
        field[n - 8..].copy_from_slice(&bytes);
    }
}

fn put_str(field: &mut [u8], value: &[u8]) {
    let n = value.len().min(field.len());
    field[..n].copy_from_slice(&value[..n]);
}

fn checksum(block: &[u8]) -> u32 {
    block.iter().enumerate().map(|(i, b)| if (148..156).contains(&i) { b' ' as u32 } else { *b as u32 }).sum()
}

/// A header block for a name and link that fit (callers emit long-name records first).
fn raw_header(e: &Entry, name: &[u8], link: &[u8], kind: u8) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    put_str(&mut h[0..100], name);
    put_octal(&mut h[100..108], e.mode as u64 & 0o7777);
    put_octal(&mut h[108..116], e.uid);
    put_octal(&mut h[116..124], e.gid);
    put_octal(&mut h[124..136], if kind == b'0' || kind == b'L' || kind == b'K' { e.size } else { 0 });
    put_octal(&mut h[136..148], e.mtime.max(0) as u64);
    h[156] = kind;
    put_str(&mut h[157..257], link);
    h[257..265].copy_from_slice(b"ustar  \0");
    put_str(&mut h[265..297], &e.uname);
    put_str(&mut h[297..329], &e.gname);
    if matches!(e.kind, Kind::CharDevice | Kind::BlockDevice) {
        put_octal(&mut h[329..337], e.devmajor as u64);
        put_octal(&mut h[337..345], e.devminor as u64);
    }
    let sum = checksum(&h);
    let text = format!("{:06o}\0 ", sum);
    h[148..156].copy_from_slice(text.as_bytes());
    h
}

fn padded(data: &[u8]) -> Vec<u8> {
    let mut v = data.to_vec();
    v.push(0);
    let len = (v.len() + BLOCK - 1) / BLOCK * BLOCK;
    v.resize(len, 0);
    v
}

/// The blocks that introduce `e`: long-name records if needed, then its header.
pub fn encode(e: &Entry) -> Vec<u8> {
    let mut out = Vec::new();
    let long = |kind: u8, text: &[u8], out: &mut Vec<u8>| {
        let record = Entry { name: Vec::new(), link: Vec::new(), kind: Kind::File, mode: 0o644, uid: 0, gid: 0, uname: b"root".to_vec(), gname: b"root".to_vec(), size: text.len() as u64 + 1, mtime: 0, devmajor: 0, devminor: 0 };
        out.extend_from_slice(&raw_header(&record, b"././@LongLink", b"", kind));
        out.extend_from_slice(&padded(text));
    };
    if e.link.len() > 100 {
        long(b'K', &e.link, &mut out);
    }
    if e.name.len() > 100 {
        long(b'L', &e.name, &mut out);
    }
    let name = &e.name[..e.name.len().min(100)];
    let link = &e.link[..e.link.len().min(100)];
    out.extend_from_slice(&raw_header(e, name, link, e.kind.flag()));
    out
}

fn field_str(field: &[u8]) -> Vec<u8> {
    let end = field.iter().position(|b| *b == 0).unwrap_or(field.len());
    field[..end].to_vec()
}

fn parse_number(field: &[u8]) -> Option<u64> {
    if field.first().map_or(false, |b| b & 0x80 != 0) {
        // Base-256.
        let mut v: u64 = (field[0] & 0x7f) as u64;
        for b in &field[1..] {
            v = v.checked_mul(256)? + *b as u64;
        }
        return Some(v);
    }
    let text: Vec<u8> = field.iter().copied().take_while(|b| *b != 0).filter(|b| *b != b' ').collect();
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(std::str::from_utf8(&text).ok()?, 8).ok()
}

#[derive(Debug, PartialEq, Eq)]
pub enum Block {
    /// All zeros: the end marker.
    Zero,
    /// As the block says, before long names and pax records are applied (a GNU long name
    /// or a pax record is itself an entry, of kind `Other(b'L')`, `Other(b'x')`, ...).
    Header(Box<Entry>),
    Invalid,
}

pub fn decode(block: &[u8]) -> Block {
    if block.iter().all(|b| *b == 0) {
        return Block::Zero;
    }
    let stored = match parse_number(&block[148..156]) {
        Some(s) => s as u32,
        None => return Block::Invalid,
    };
    let signed: i64 = block.iter().enumerate().map(|(i, b)| if (148..156).contains(&i) { b' ' as i64 } else { *b as i8 as i64 }).sum();
    if stored != checksum(block) && stored as i64 != signed {
        return Block::Invalid;
    }
    let ustar = &block[257..262] == b"ustar";
    let mut name = field_str(&block[0..100]);
    if ustar && &block[257..265] != b"ustar  \0" {
        // POSIX ustar: a prefix joins the name with '/'.
        let prefix = field_str(&block[345..500]);
        if !prefix.is_empty() {
            let mut full = prefix;
            full.push(b'/');
            full.extend_from_slice(&name);
            name = full;
        }
    }
    let num = |r: std::ops::Range<usize>| parse_number(&block[r]).unwrap_or(0);
    Block::Header(Box::new(Entry {
        kind: Kind::from_flag(block[156]),
        name,
        link: field_str(&block[157..257]),
        mode: num(100..108) as u32,
        uid: num(108..116),
        gid: num(116..124),
        size: num(124..136),
        mtime: num(136..148) as i64,
        uname: if ustar { field_str(&block[265..297]) } else { Vec::new() },
        gname: if ustar { field_str(&block[297..329]) } else { Vec::new() },
        devmajor: num(329..337) as u32,
        devminor: num(337..345) as u32,
    }))
}

/// pax extended header records: `LEN key=value\n`.
pub fn pax_records(data: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let space = match rest.iter().position(|b| *b == b' ') {
            Some(s) => s,
            None => break,
        };
        let len: usize = match std::str::from_utf8(&rest[..space]).ok().and_then(|t| t.parse().ok()) {
            Some(l) if l > space && l <= rest.len() => l,
            _ => break,
        };
        let record = &rest[space + 1..len];
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(eq) = record.iter().position(|b| *b == b'=') {
            out.push((record[..eq].to_vec(), record[eq + 1..].to_vec()));
        }
        rest = &rest[len..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_with_long_name() {
        let e = Entry { name: vec![b'a'; 150], link: Vec::new(), kind: Kind::File, mode: 0o644, uid: 0, gid: 0, uname: b"root".to_vec(), gname: b"root".to_vec(), size: 5, mtime: 1577934245, devmajor: 0, devminor: 0 };
        let blocks = encode(&e);
        assert_eq!(blocks.len(), 3 * BLOCK);
        match decode(&blocks[..BLOCK]) {
            Block::Header(h) => {
                assert_eq!(h.kind, Kind::Other(b'L'));
                assert_eq!(h.size, 151);
            }
            other => panic!("{:?}", other),
        }
        match decode(&blocks[2 * BLOCK..]) {
            Block::Header(h) => {
                assert_eq!(h.mtime, 1577934245);
                assert_eq!(h.mode, 0o644);
            }
            other => panic!("{:?}", other),
        }
    }
}
