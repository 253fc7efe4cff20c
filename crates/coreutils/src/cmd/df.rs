//! `df`: file system capacity and use (-h --si -k -m -B -T -i --total -P, FILE operands).
//! In the sandbox there is one file system, the VFS, with the limits the kernel reports;
//! natively the mounts come from /proc/self/mounts and the numbers from statvfs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::args::{self, Command};
use common::fsops::{fs_usage, FsUsage};
use common::human::human_size;
use common::{strerror, Io, UError};

const SPEC: &str = "all,a block-size,B: human-readable,h si=H si inodes,i k m local,l no-sync sync output:: portability,P total type,t: print-type,T exclude-type,x:";

const DF: Command = Command::compact("df", SPEC, HELP);

const HELP: &str = "Usage: df [OPTION]... [FILE]...
Show information about the file system on which each FILE resides,
or all file systems by default.

  -a, --all             include pseudo, duplicate, inaccessible file systems
  -B, --block-size=SIZE  scale sizes by SIZE before printing them
  -h, --human-readable  print sizes in powers of 1024 (e.g., 1023M)
  -H, --si              print sizes in powers of 1000 (e.g., 1.1G)
  -i, --inodes          list inode information instead of block usage
  -k                    like --block-size=1K
  -l, --local           limit listing to local file systems
  -P, --portability     use the POSIX output format
      --total           elide all entries insignificant to available space,
                          and produce a grand total
  -t, --type=TYPE       limit listing to file systems of type TYPE
  -T, --print-type      print file system type
  -x, --exclude-type=TYPE   limit listing to file systems not of type TYPE
{standard}";

struct Mount {
    source: String,
    fstype: String,
    target: PathBuf,
    usage: FsUsage,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let (mut human, mut block_size, mut inodes, mut print_type, mut total, mut all, mut posix) = (None, 1024u64, false, false, false, false, false);
    let (mut only_types, mut skip_types) = (Vec::new(), Vec::new());
    let files = DF.operands(&args, io, &mut |_, id, value| {
        let value = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
        match id {
            "all" => all = true,
            "block-size" => {
                block_size = common::size::block_size(&value)?;
                human = None;
            }
            "human-readable" => human = Some(1024),
            "si" => human = Some(1000),
            "inodes" => inodes = true,
            "k" => block_size = 1024,
            "m" => block_size = 1024 * 1024,
            "portability" => posix = true,
            "total" => total = true,
            "print-type" => print_type = true,
            "type" => only_types.push(value),
            "exclude-type" => skip_types.push(value),
            "local" | "no-sync" | "sync" => {}
            "output" => {
                return Err(UError::new(1, "option not supported in the sandbox: --output"));
            }
            _ => {}
        }
        Ok(())
    })?;
    let mut status = 0;
    let mut rows: Vec<Mount> = Vec::new();
    if files.is_empty() {
        rows = mounts().into_iter().filter(|m| all || m.usage.blocks > 0).collect();
    } else {
        let table = mounts();
        for f in files {
            let path = Path::new(&f);
            if let Err(e) = common::fsext::metadata(path, true) {
                io.error(format!("{}: {}", f.to_string_lossy(), strerror(&e)));
                status = 1;
                continue;
            }
            let canonical = common::canon::canonicalize(path, common::canon::Missing::Forbid, true).unwrap_or_else(|_| PathBuf::from("/"));
            let found = table.iter().filter(|m| canonical.starts_with(&m.target)).max_by_key(|m| m.target.as_os_str().len());
            match (found, fs_usage(path)) {
                (Some(m), Ok(usage)) => rows.push(Mount { source: m.source.clone(), fstype: m.fstype.clone(), target: m.target.clone(), usage }),
                (_, Err(e)) => {
                    io.error(format!("{}: {}", f.to_string_lossy(), strerror(&e)));
                    status = 1;
                }
                (None, Ok(usage)) => rows.push(Mount { source: "-".into(), fstype: "-".into(), target: PathBuf::from("/"), usage }),
            }
        }
    }
    rows.retain(|m| (only_types.is_empty() || only_types.contains(&m.fstype)) && !skip_types.contains(&m.fstype));
    if rows.is_empty() && status == 0 {
        return Err(UError::new(1, "no file systems processed"));
    }
    if rows.is_empty() {
        return Ok(status);
    }
    let table = render(&rows, human, block_size, inodes, print_type, total, posix);
    if let Err(e) = io.out(table.as_bytes()) {
        return Ok(common::write::write_failed(io, &e));
    }
    Ok(status)
}

fn block_header(block_size: u64) -> String {
    for (n, s) in [(1u64 << 30, "1G"), (1 << 20, "1M"), (1024, "1K")] {
        if block_size == n {
            return format!("{}-blocks", s);
        }
    }
    format!("{}-blocks", block_size)
}

fn render(rows: &[Mount], human: Option<u64>, block_size: u64, inodes: bool, print_type: bool, total: bool, posix: bool) -> String {
    let amount = |bytes: u64| -> String {
        match human {
            Some(base) => human_size(bytes, base),
            None => ((bytes + block_size - 1) / block_size).to_string(),
        }
    };
    let percent = |used: u64, avail: u64| -> String {
        if used + avail == 0 {
            "-".to_string()
        } else {
            format!("{}%", (used * 100 + used + avail - 1) / (used + avail))
        }
    };
    let mut header: Vec<(String, usize, bool)> = vec![("Filesystem".into(), 14, true)];
    if print_type {
        header.push(("Type".into(), 4, true));
    }
    if inodes {
        header.extend([("Inodes".into(), 5, false), ("IUsed".into(), 5, false), ("IFree".into(), 5, false), ("IUse%".into(), 4, false)]);
    } else if human.is_some() {
        header.extend([("Size".into(), 5, false), ("Used".into(), 5, false), ("Avail".into(), 5, false), ("Use%".into(), 4, false)]);
    } else {
        let blocks = if posix && block_size == 1024 { "1024-blocks".to_string() } else { block_header(block_size) };
        header.extend([(blocks, 5, false), ("Used".into(), 5, false), ("Available".into(), 5, false), ((if posix { "Capacity" } else { "Use%" }).into(), 4, false)]);
    }
    header.push(("Mounted on".into(), 0, true));
    let mut table: Vec<Vec<String>> = Vec::new();
    let (mut t_size, mut t_used, mut t_avail) = (0u64, 0u64, 0u64);
    for m in rows {
        let u = &m.usage;
        let mut row = vec![m.source.clone()];
        if print_type {
            row.push(m.fstype.clone());
        }
        if inodes {
            let used = u.files.saturating_sub(u.files_free);
            row.extend([u.files.to_string(), used.to_string(), u.files_free.to_string(), percent(used, u.files_free)]);
            t_size += u.files;
            t_used += used;
            t_avail += u.files_free;
        } else {
            let size = u.blocks * u.block_size;
            let used = (u.blocks.saturating_sub(u.free)) * u.block_size;
            let avail = u.available * u.block_size;
            row.extend([amount(size), amount(used), amount(avail), percent(used, avail)]);
            t_size += size;
            t_used += used;
            t_avail += avail;
        }
        row.push(m.target.to_string_lossy().into_owned());
        table.push(row);
    }
    if total {
        let mut row = vec!["total".to_string()];
        if print_type {
            row.push("-".into());
        }
        if inodes {
            row.extend([t_size.to_string(), t_used.to_string(), t_avail.to_string(), percent(t_used, t_avail)]);
        } else {
            row.extend([amount(t_size), amount(t_used), amount(t_avail), percent(t_used, t_avail)]);
        }
        row.push("-".into());
        table.push(row);
    }
    let widths: Vec<usize> = header.iter().enumerate().map(|(i, (h, min, _))| table.iter().map(|r| r[i].chars().count()).chain([h.len(), *min]).max().unwrap_or(0)).collect();
    let mut out = String::new();
    let all_rows = std::iter::once(header.iter().map(|h| h.0.clone()).collect::<Vec<_>>()).chain(table.into_iter());
    for row in all_rows {
        let last = row.len() - 1;
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push(' ');
            }
            if i == last {
                line.push_str(cell);
            } else if header[i].2 {
                line.push_str(&format!("{:<w$}", cell, w = widths[i]));
            } else {
                line.push_str(&format!("{:>w$}", cell, w = widths[i]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(target_os = "wasi")]
fn mounts() -> Vec<Mount> {
    match fs_usage(Path::new("/")) {
        Ok(usage) => vec![Mount { source: "airlock".into(), fstype: "vfs".into(), target: PathBuf::from("/"), usage }],
        Err(_) => Vec::new(),
    }
}

/// Natively: the mount table, one row per mount point (the last mount wins), as statvfs sees it.
#[cfg(not(target_os = "wasi"))]
fn mounts() -> Vec<Mount> {
    let text = std::fs::read("/proc/self/mounts").unwrap_or_default();
    let mut out: Vec<Mount> = Vec::new();
    for line in text.split(|b| *b == b'\n') {
        let fields: Vec<&[u8]> = line.split(|b| *b == b' ').collect();
        if fields.len() < 3 {
            continue;
        }
        let target = PathBuf::from(args::bytes_os(&unescape(fields[1])));
        let usage = match fs_usage(&target) {
            Ok(u) => u,
            Err(_) => continue,
        };
        out.retain(|m| m.target != target);
        out.push(Mount { source: String::from_utf8_lossy(fields[0]).into_owned(), fstype: String::from_utf8_lossy(fields[2]).into_owned(), target, usage });
    }
    out
}

/// /proc/self/mounts writes spaces and such as `\040`.
#[cfg(not(target_os = "wasi"))]
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < field.len() {
        if field[i] == b'\\' && i + 3 < field.len() && field[i + 1..i + 4].iter().all(|b| (b'0'..=b'7').contains(b)) {
            out.push(field[i + 1..i + 4].iter().fold(0u8, |a, b| a.wrapping_mul(8).wrapping_add(b - b'0')));
            i += 4;
        } else {
            out.push(field[i]);
            i += 1;
        }
    }
    out
}
