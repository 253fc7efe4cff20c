//! Binary formats `file` recognizes by their headers, phrased as file 5.44 does: gzip, bzip2,
//! xz, zip, tar, PNG, JPEG, GIF, PDF, ELF and WebAssembly.

use common::timefmt::{days_from_civil, Tm, MONTHS};

/// (description, mime type) of a known binary format.
pub fn detect(data: &[u8]) -> Option<(String, &'static str)> {
    let at = |i: usize, magic: &[u8]| data.len() >= i + magic.len() && &data[i..i + magic.len()] == magic;
    if at(0, b"\x1f\x8b") {
        return Some((gzip(data), "application/gzip"));
    }
    if at(0, b"BZh") && data.len() > 3 && (b'1'..=b'9').contains(&data[3]) {
        return Some((format!("bzip2 compressed data, block size = {}00k", data[3] as char), "application/x-bzip2"));
    }
    if at(0, b"\xfd7zXZ\0") {
        return Some(("XZ compressed data, checksum CRC64".to_string(), "application/x-xz"));
    }
    if at(0, b"PK\x03\x04") {
        return Some((zip(data), "application/zip"));
    }
    if at(0, b"PK\x05\x06") {
        return Some(("Zip archive data (empty)".to_string(), "application/zip"));
    }
    if at(257, b"ustar  \0") && tar_checksum_ok(data) {
        return Some(("POSIX tar archive (GNU)".to_string(), "application/x-tar"));
    }
    if at(257, b"ustar\x0000") && tar_checksum_ok(data) {
        return Some(("POSIX tar archive".to_string(), "application/x-tar"));
    }
    if at(0, b"\x89PNG\r\n\x1a\n") {
        return Some((png(data), "image/png"));
    }
    if at(0, b"\xff\xd8\xff") {
        return Some((jpeg(data), "image/jpeg"));
    }
    if at(0, b"GIF87a") || at(0, b"GIF89a") {
        let w = le16(data, 6);
        let h = le16(data, 8);
        return Some((format!("GIF image data, version {}, {} x {}", String::from_utf8_lossy(&data[3..6]), w, h), "image/gif"));
    }
    if at(0, b"%PDF-") {
        let version: String = data[5..].iter().take(3).map(|b| *b as char).collect();
        return Some((format!("PDF document, version {}", version), "application/pdf"));
    }
    if at(0, b"\x7fELF") {
        return Some(elf(data));
    }
    if at(0, b"\0asm") {
        let version = le32(data, 4);
        let mvp = if version == 1 { " (MVP)" } else { "" };
        return Some((format!("WebAssembly (wasm) binary module version {:#x}{}", version, mvp), "application/wasm"));
    }
    None
}

/// A tar header's checksum: the byte sum with the checksum field read as spaces.
fn tar_checksum_ok(d: &[u8]) -> bool {
    if d.len() < 512 {
        return false;
    }
    let field = &d[148..156];
    let digits: String = field.iter().skip_while(|b| **b == b' ').take_while(|b| (b'0'..=b'7').contains(*b)).map(|b| *b as char).collect();
    let stored = match u64::from_str_radix(&digits, 8) {
        Ok(v) => v,
        Err(_) => return false,
    };
    let sum: u64 = d[..512].iter().enumerate().map(|(i, b)| if (148..156).contains(&i) { 32 } else { *b as u64 }).sum();
    sum == stored
}

fn le16(d: &[u8], i: usize) -> u64 {
    d.get(i..i + 2).map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as u64)
}
fn le32(d: &[u8], i: usize) -> u64 {
    d.get(i..i + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
}
fn be16(d: &[u8], i: usize) -> u64 {
    d.get(i..i + 2).map_or(0, |b| u16::from_be_bytes([b[0], b[1]]) as u64)
}
fn be32(d: &[u8], i: usize) -> u64 {
    d.get(i..i + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as u64)
}

/// `Sat Nov 21 07:40:30 2026`, as ctime(3) writes it.
fn ctime(secs: i64) -> String {
    let tm = Tm::at(secs, 0, common::timefmt::local_offset());
    let days = days_from_civil(tm.year, tm.month, tm.day);
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    format!("{} {} {:>2} {:02}:{:02}:{:02} {}", DAYS[days.rem_euclid(7) as usize], MONTHS[(tm.month - 1) as usize], tm.day, tm.hour, tm.minute, tm.second, tm.year)
}

fn gzip(d: &[u8]) -> String {
    let mut s = String::from("gzip compressed data");
    if d.len() < 10 {
        return s;
    }
    let flags = d[3];
    if flags & 0x08 != 0 {
        let mut i = 10;
        if flags & 0x04 != 0 {
            i += 2 + le16(d, 10) as usize;
        }
        let name: Vec<u8> = d.iter().skip(i).take_while(|b| **b != 0).cloned().collect();
        s.push_str(&format!(", was \"{}\"", String::from_utf8_lossy(&name)));
    }
    let mtime = le32(d, 4);
    if mtime != 0 {
        s.push_str(&format!(", last modified: {}", ctime(mtime as i64)));
    }
    match d[8] {
        2 => s.push_str(", max compression"),
        4 => s.push_str(", max speed"),
        _ => {}
    }
    let os = match d[9] {
        0 => ", from FAT filesystem (MS-DOS, OS/2, NT)",
        3 => ", from Unix",
        7 => ", from MacOS",
        11 => ", from NTFS filesystem (NT)",
        _ => "",
    };
    s.push_str(os);
    if d.len() >= 18 {
        s.push_str(&format!(", original size modulo 2^32 {}", le32(d, d.len() - 4)));
    }
    s
}

fn zip(d: &[u8]) -> String {
    let version = le16(d, 4);
    let method = match le16(d, 8) {
        0 => "store",
        8 => "deflate",
        12 => "bzip2",
        14 => "lzma",
        _ => "unknown",
    };
    format!("Zip archive data, at least v{}.{} to extract, compression method={}", version / 10, version % 10, method)
}

fn png(d: &[u8]) -> String {
    let (w, h, depth, color, interlace) = (be32(d, 16), be32(d, 20), d.get(24).copied().unwrap_or(0), d.get(25).copied().unwrap_or(0), d.get(28).copied().unwrap_or(0));
    let kind = match color {
        0 => format!("{}-bit grayscale", depth),
        2 => format!("{}-bit/color RGB", depth),
        3 => format!("{}-bit colormap", depth),
        4 => format!("{}-bit gray+alpha", depth),
        6 => format!("{}-bit/color RGBA", depth),
        _ => format!("{}-bit", depth),
    };
    format!("PNG image data, {} x {}, {}, {}", w, h, kind, if interlace == 1 { "interlaced" } else { "non-interlaced" })
}

fn jpeg(d: &[u8]) -> String {
    let mut s = String::from("JPEG image data");
    if d.len() > 20 && &d[6..11] == b"JFIF\0" {
        s.push_str(&format!(", JFIF standard {}.{:02}", d[11], d[12]));
        let units = match d[13] {
            1 => "resolution (DPI)",
            2 => "resolution (DPCM)",
            _ => "aspect ratio",
        };
        s.push_str(&format!(", {}, density {}x{}, segment length {}", units, be16(d, 14), be16(d, 16), be16(d, 4)));
    } else if d.len() > 10 && &d[6..10] == b"Exif" {
        s.push_str(", Exif standard");
    }
    // Walk the segments to the frame header for the encoding and dimensions.
    let mut i = 2;
    while i + 4 <= d.len() && d[i] == 0xff {
        let marker = d[i + 1];
        let len = be16(d, i + 2) as usize;
        if matches!(marker, 0xc0 | 0xc1 | 0xc2) && i + 10 <= d.len() {
            let kind = if marker == 0xc2 { "progressive" } else { "baseline" };
            s.push_str(&format!(", {}, precision {}, {}x{}, components {}", kind, d[i + 4], be16(d, i + 7), be16(d, i + 5), d[i + 9]));
            break;
        }
        if marker == 0xd9 || marker == 0xda || len < 2 {
            break;
        }
        i += 2 + len;
    }
    s
}

fn elf(d: &[u8]) -> (String, &'static str) {
    let is64 = d.get(4) == Some(&2);
    let little = d.get(5) != Some(&2);
    let u16_at = |i: usize| if little { le16(d, i) } else { be16(d, i) };
    let u32_at = |i: usize| if little { le32(d, i) } else { be32(d, i) };
    let word = |i: usize| if is64 { if little { le32(d, i) | le32(d, i + 4) << 32 } else { be32(d, i) << 32 | be32(d, i + 4) } } else { u32_at(i) };
    let mut s = format!("ELF {} {}", if is64 { "64-bit" } else { "32-bit" }, if little { "LSB" } else { "MSB" });
    let etype = u16_at(16);
    let machine = match u16_at(18) {
        3 => "Intel 80386".to_string(),
        8 => "MIPS".to_string(),
        20 => "PowerPC".to_string(),
        21 => "64-bit PowerPC or cisco 7500".to_string(),
        40 => "ARM".to_string(),
        62 => "x86-64".to_string(),
        183 => "ARM aarch64".to_string(),
        243 => "UCB RISC-V".to_string(),
        other => format!("*unknown arch {:#x}*", other),
    };
    let (phoff, shoff) = if is64 { (word(32) as usize, word(40) as usize) } else { (u32_at(28) as usize, u32_at(32) as usize) };
    let (phentsize, phnum, shentsize, shnum) = if is64 { (u16_at(54) as usize, u16_at(56) as usize, u16_at(58) as usize, u16_at(60) as usize) } else { (u16_at(42) as usize, u16_at(44) as usize, u16_at(46) as usize, u16_at(48) as usize) };
    let (mut interp, mut dynamic, mut pie, mut build_id, mut abi) = (None, false, false, None, None);
    for n in 0..phnum.min(256) {
        let p = phoff + n * phentsize;
        let ptype = u32_at(p);
        let (offset, size) = if is64 { (word(p + 8) as usize, word(p + 32) as usize) } else { (u32_at(p + 4) as usize, u32_at(p + 16) as usize) };
        let body = d.get(offset..offset.saturating_add(size)).unwrap_or(&[]);
        match ptype {
            3 => interp = Some(String::from_utf8_lossy(body.split(|b| *b == 0).next().unwrap_or(&[])).into_owned()),
            2 => {
                dynamic = true;
                let step = if is64 { 16 } else { 8 };
                for k in (0..body.len() / step).map(|k| offset + k * step) {
                    let tag = word(k);
                    let value = if is64 { word(k + 8) } else { u32_at(k + 4) };
                    if tag == 0x6fff_fffb && value & 0x0800_0000 != 0 {
                        pie = true;
                    }
                }
            }
            4 => {
                let mut i = offset;
                while i + 12 <= offset + body.len() {
                    let (namesz, descsz, ntype) = (u32_at(i) as usize, u32_at(i + 4) as usize, u32_at(i + 8));
                    let name_at = i + 12;
                    let desc_at = name_at + (namesz + 3) / 4 * 4;
                    let name = d.get(name_at..name_at + namesz).unwrap_or(&[]);
                    let desc = d.get(desc_at..desc_at + descsz).unwrap_or(&[]);
                    if name == b"GNU\0" && ntype == 3 {
                        build_id = Some(desc.iter().map(|b| format!("{:02x}", b)).collect::<String>());
                    } else if name == b"GNU\0" && ntype == 1 && desc.len() >= 16 {
                        abi = Some(format!("{}.{}.{}", u32_at(desc_at + 4), u32_at(desc_at + 8), u32_at(desc_at + 12)));
                    }
                    i = desc_at + (descsz + 3) / 4 * 4;
                }
            }
            _ => {}
        }
    }
    let (kind, mime) = match etype {
        1 => ("relocatable", "application/x-object"),
        2 => ("executable", "application/x-executable"),
        3 if pie => ("pie executable", "application/x-pie-executable"),
        3 => ("shared object", "application/x-sharedlib"),
        4 => ("core file", "application/x-coredump"),
        _ => ("*unknown*", "application/octet-stream"),
    };
    let osabi = match d.get(7) {
        Some(3) => "GNU/Linux",
        Some(9) => "FreeBSD",
        _ => "SYSV",
    };
    s.push_str(&format!(" {}, {}, version {} ({})", kind, machine, d.get(6).copied().unwrap_or(1), osabi));
    if (etype == 2 || etype == 3) && phnum > 0 {
        s.push_str(if dynamic || interp.is_some() { ", dynamically linked" } else { ", statically linked" });
    }
    if let Some(i) = interp {
        s.push_str(&format!(", interpreter {}", i));
    }
    if let Some(b) = build_id {
        s.push_str(&format!(", BuildID[sha1]={}", b));
    }
    if let Some(a) = abi {
        s.push_str(&format!(", for GNU/Linux {}", a));
    }
    let has_symtab = (0..shnum.min(4096)).any(|n| u32_at(shoff + n * shentsize + 4) == 2);
    let strndx = u16_at(if is64 { 62 } else { 50 }) as usize;
    let section_offset = |n: usize| -> usize {
        let sh = shoff + n * shentsize;
        if is64 { word(sh + 24) as usize } else { u32_at(sh + 16) as usize }
    };
    let names_at = if strndx < shnum { section_offset(strndx) } else { usize::MAX };
    let has_debug = (0..shnum.min(4096)).any(|n| {
        let name_at = names_at.saturating_add(u32_at(shoff + n * shentsize) as usize);
        d.get(name_at..name_at.saturating_add(12)) == Some(b".debug_info\0")
    });
    if has_debug {
        s.push_str(", with debug_info");
    }
    if shnum > 0 {
        s.push_str(if has_symtab { ", not stripped" } else { ", stripped" });
    }
    (s, mime)
}
