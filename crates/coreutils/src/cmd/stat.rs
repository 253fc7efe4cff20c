//! `stat`: file status, GNU's default layout, `-c FORMAT`, `--printf FORMAT`, `-t`, `-L`.

use std::ffi::OsString;
use std::path::Path;

use common::args::{os_bytes, Command};
use common::cformat::parse_head;
use common::fsext::{Meta, S_IFBLK, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK};
use common::io::quote;
use common::modes::mode_string;
use common::timefmt::{local_offset, split_ns, Tm};
use common::users::Names;
use common::{strerror, Io, UError};

const SPEC: &str = "dereference,L file-system,f format,c: printf: terse,t cached:";

const STAT: Command = Command::compact("stat", SPEC, HELP).operands_between(1, usize::MAX);

const HELP: &str = "Usage: stat [OPTION]... FILE...
Display file or file system status.

  -L, --dereference     follow links
  -c  --format=FORMAT   use the specified FORMAT instead of the default;
                          output a newline after each use of FORMAT
      --printf=FORMAT   like --format, but interpret backslash escapes,
                          and do not output a mandatory trailing newline;
                          if you want a newline, include \\n in FORMAT
  -t, --terse           print the information in terse form
{standard}
The valid format sequences for files (without --file-system):

  %a   permission bits in octal
  %A   permission bits and file type in human readable form
  %b   number of blocks allocated (see %B)
  %B   the size in bytes of each block reported by %b
  %d   device number in decimal
  %D   device number in hex
  %f   raw mode in hex
  %F   file type
  %g   group ID of owner
  %G   group name of owner
  %h   number of hard links
  %i   inode number
  %m   mount point
  %n   file name
  %N   quoted file name with dereference if symbolic link
  %o   optimal I/O transfer size hint
  %s   total size, in bytes
  %u   user ID of owner
  %U   user name of owner
  %w   time of file birth, human-readable; - if unknown
  %W   time of file birth, seconds since Epoch; 0 if unknown
  %x   time of last access, human-readable
  %X   time of last access, seconds since Epoch
  %y   time of last data modification, human-readable
  %Y   time of last data modification, seconds since Epoch
  %z   time of last status change, human-readable
  %Z   time of last status change, seconds since Epoch
";

const DEFAULT: &str = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\nDevice: %Hd,%Ld\tInode: %-11i Links: %h\nAccess: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: %w\n";
const DEFAULT_DEV: &str = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\nDevice: %Hd,%Ld\tInode: %-11i Links: %-5h Device type: %Hr,%Lr\nAccess: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: %w\n";
const TERSE: &str = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n";

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut follow = false;
    let mut format: Option<(Vec<u8>, bool)> = None;
    let mut terse = false;
    let files = STAT.operands(&args, io, &mut |_, id, value| {
        match id {
            "dereference" => follow = true,
            "format" => format = Some(([os_bytes(&value.unwrap_or_default()), b"\n"].concat(), false)),
            "printf" => format = Some((os_bytes(&value.unwrap_or_default()).to_vec(), true)),
            "terse" => terse = true,
            "cached" => {}
            "file-system" => {
                return Err(UError::new(1, "option not supported in the sandbox: --file-system (use df)"));
            }
            _ => {}
        }
        Ok(())
    })?;
    let names = Names::load();
    let mut status = 0;
    for file in files {
        let path = Path::new(&file);
        let meta = match common::fsext::metadata(path, follow) {
            Ok(m) => m,
            Err(e) => {
                io.error(format!("cannot stat {}: {}", quote(&file), strerror(&e)));
                status = 1;
                continue;
            }
        };
        let (fmt, escapes, default) = match &format {
            Some((f, e)) => (f.clone(), *e, false),
            None if terse => (TERSE.as_bytes().to_vec(), false, false),
            None => {
                let dev = matches!(meta.file_type(), S_IFCHR | S_IFBLK);
                ((if dev { DEFAULT_DEV } else { DEFAULT }).as_bytes().to_vec(), false, true)
            }
        };
        let ctx = Context { path: &file, meta: &meta, names: &names, follow, default };
        let out = render(&fmt, escapes, &ctx);
        if let Err(e) = io.out(&out) {
            return Ok(common::write::write_failed(io, &e));
        }
    }
    Ok(status)
}

struct Context<'a> {
    path: &'a OsString,
    meta: &'a Meta,
    names: &'a Names,
    follow: bool,
    default: bool,
}

fn render(fmt: &[u8], escapes: bool, ctx: &Context) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c == b'\\' && escapes && i + 1 < fmt.len() {
            i += 1;
            i += escape(&fmt[i..], &mut out);
            continue;
        }
        if c != b'%' || i + 1 >= fmt.len() {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let head = parse_head(&fmt[i..], b"-+ #0'");
        let (flags, width, precision) = (head.flags, head.width.unwrap_or(0), head.precision);
        i += head.length;
        if i >= fmt.len() {
            out.push(b'?');
            break;
        }
        let mut spec = fmt[i];
        let mut modifier = 0u8;
        if (spec == b'H' || spec == b'L') && i + 1 < fmt.len() && matches!(fmt[i + 1], b'd' | b'r') {
            modifier = spec;
            i += 1;
            spec = fmt[i];
        }
        i += 1;
        match field(spec, modifier, precision, ctx) {
            Some(Field::Text(t)) => pad(&mut out, &t, flags, width, precision.filter(|_| false)),
            Some(Field::Number(n)) => pad_digits(&mut out, n.to_string().into_bytes(), flags, width, precision),
            Some(Field::Digits(d)) => pad_digits(&mut out, d, flags, width, precision),
            Some(Field::Raw(t)) => pad(&mut out, &t, flags, width, precision),
            None => {
                // GNU prints `%%` as `%` and an unknown directive as `?`.
                out.push(if spec == b'%' { b'%' } else { b'?' });
            }
        }
    }
    out
}

fn pad_digits(out: &mut Vec<u8>, mut digits: Vec<u8>, flags: &[u8], width: usize, precision: Option<usize>) {
    if let Some(p) = precision {
        while digits.len() < p {
            digits.insert(0, b'0');
        }
    }
    pad_number(out, &digits, flags, width);
}

/// One backslash escape of --printf; returns how many bytes after the backslash it used.
fn escape(rest: &[u8], out: &mut Vec<u8>) -> usize {
    let simple = match rest[0] {
        b'a' => Some(7),
        b'b' => Some(8),
        b'e' => Some(27),
        b'f' => Some(12),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(11),
        b'\\' => Some(b'\\'),
        b'"' => Some(b'"'),
        b'\'' => Some(b'\''),
        _ => None,
    };
    if let Some(b) = simple {
        out.push(b);
        return 1;
    }
    if (b'0'..=b'7').contains(&rest[0]) {
        let n = rest.iter().take(3).take_while(|b| (b'0'..=b'7').contains(*b)).count();
        let v = rest[..n].iter().fold(0u32, |a, b| a * 8 + (b - b'0') as u32);
        out.push(v as u8);
        return n;
    }
    if rest[0] == b'x' {
        let n = rest[1..].iter().take(2).take_while(|b| b.is_ascii_hexdigit()).count();
        if n > 0 {
            let v = u8::from_str_radix(std::str::from_utf8(&rest[1..1 + n]).unwrap_or("0"), 16).unwrap_or(0);
            out.push(v);
            return n + 1;
        }
    }
    out.push(b'\\');
    out.push(rest[0]);
    1
}

fn pad(out: &mut Vec<u8>, text: &[u8], flags: &[u8], width: usize, precision: Option<usize>) {
    let text = match precision {
        Some(p) if p < text.len() => &text[..p],
        _ => text,
    };
    let fill = width.saturating_sub(text.len());
    if flags.contains(&b'-') {
        out.extend_from_slice(text);
        out.extend(std::iter::repeat(b' ').take(fill));
    } else {
        out.extend(std::iter::repeat(b' ').take(fill));
        out.extend_from_slice(text);
    }
}

fn pad_number(out: &mut Vec<u8>, digits: &[u8], flags: &[u8], width: usize) {
    let fill = width.saturating_sub(digits.len());
    if flags.contains(&b'-') {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat(b' ').take(fill));
    } else if flags.contains(&b'0') {
        let (sign, rest) = if digits.first() == Some(&b'-') { (&digits[..1], &digits[1..]) } else { (&digits[..0], digits) };
        out.extend_from_slice(sign);
        out.extend(std::iter::repeat(b'0').take(fill));
        out.extend_from_slice(rest);
    } else {
        out.extend(std::iter::repeat(b' ').take(fill));
        out.extend_from_slice(digits);
    }
}

enum Field {
    Text(Vec<u8>),
    Number(i128),
    /// Non-decimal digits (octal mode, hex): padded like numbers.
    Digits(Vec<u8>),
    /// Text where a precision truncates (GNU treats %.Ns like printf).
    Raw(Vec<u8>),
}

fn file_type_name(meta: &Meta) -> &'static str {
    match meta.mode & S_IFMT {
        S_IFREG if meta.size == 0 => "regular empty file",
        S_IFREG => "regular file",
        S_IFDIR => "directory",
        S_IFLNK => "symbolic link",
        S_IFCHR => "character special file",
        S_IFBLK => "block special file",
        S_IFIFO => "fifo",
        S_IFSOCK => "socket",
        _ => "weird file",
    }
}

/// A name for messages: bare when the shell would read it back unchanged, else quoted.
fn shell_quote(name: &[u8], always: bool) -> Vec<u8> {
    let safe = !name.is_empty() && name.iter().all(|c| c.is_ascii_alphanumeric() || b"%+,-./:=@_^".contains(c) || *c >= 0x80);
    if safe && !always {
        return name.to_vec();
    }
    common::quotearg::quote_name(name)
}

fn time_field(ns: i128, human: bool, precision: Option<usize>) -> Field {
    let (secs, nanos) = split_ns(ns);
    if human {
        return Field::Text(Tm::at(secs, nanos, local_offset()).full_iso().into_bytes());
    }
    match precision {
        Some(p) if p > 0 => {
            let frac = format!("{:09}", nanos);
            let p = p.min(9);
            Field::Text(format!("{}.{}", secs, &frac[..p]).into_bytes())
        }
        _ => Field::Number(secs as i128),
    }
}

fn field(spec: u8, modifier: u8, precision: Option<usize>, ctx: &Context) -> Option<Field> {
    let m = ctx.meta;
    let name = os_bytes(ctx.path);
    Some(match spec {
        b'a' => Field::Digits(format!("{:o}", m.permissions()).into_bytes()),
        b'A' => Field::Raw(mode_string(m.mode).into_bytes()),
        b'b' => Field::Number(m.blocks() as i128),
        b'B' => Field::Number(512),
        b'd' if modifier == b'H' => Field::Number((m.dev >> 8 & 0xfff) as i128),
        b'd' if modifier == b'L' => Field::Number((m.dev & 0xff | (m.dev >> 12) & !0xff) as i128),
        b'r' if modifier != 0 => Field::Number(0),
        b'd' => Field::Number(m.dev as i128),
        b'D' => Field::Digits(format!("{:x}", m.dev).into_bytes()),
        b'f' => Field::Digits(format!("{:x}", m.mode).into_bytes()),
        b'F' => Field::Text(file_type_name(m).as_bytes().to_vec()),
        b'g' => Field::Number(m.gid as i128),
        b'G' => Field::Text(ctx.names.group(m.gid).into_bytes()),
        b'h' => Field::Number(m.nlink as i128),
        b'i' => Field::Number(m.ino as i128),
        b'm' => Field::Text(b"/".to_vec()),
        b'n' => Field::Raw(name.to_vec()),
        b'N' => {
            let mut t = shell_quote(name, !ctx.default);
            if m.is_symlink() && !ctx.follow {
                if let Ok(target) = std::fs::read_link(Path::new(ctx.path)) {
                    t.extend_from_slice(b" -> ");
                    t.extend_from_slice(&shell_quote(os_bytes(target.as_os_str()), !ctx.default));
                }
            }
            Field::Text(t)
        }
        b'o' => Field::Number(4096),
        b's' => Field::Number(m.size as i128),
        b't' | b'T' => Field::Text(b"0".to_vec()),
        b'u' => Field::Number(m.uid as i128),
        b'U' => Field::Text(ctx.names.user(m.uid).into_bytes()),
        b'w' => Field::Text(b"-".to_vec()),
        b'W' => Field::Number(0),
        b'x' => time_field(m.atime_ns, true, precision),
        b'X' => time_field(m.atime_ns, false, precision),
        b'y' => time_field(m.mtime_ns, true, precision),
        b'Y' => time_field(m.mtime_ns, false, precision),
        b'z' => time_field(m.ctime_ns, true, precision),
        b'Z' => time_field(m.ctime_ns, false, precision),
        _ => return None,
    })
}
