//! `tree`: list directories as an indented tree, in tree 2.1's format and counting
//! (-a -d -L N -f -i -I -P -F -s -h -p -r -t -v -U -C -n --dirsfirst --noreport --charset).
//! Names are coloured as tree 2.1 colours them: from TREE_COLORS or LS_COLORS on a terminal,
//! always with -C (tree's own defaults when neither is set), never without TERM.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::args::{bytes_os, os_bytes, Command};
use common::fnmatch::{fnmatch, FnFlags};
use common::fsext::{Meta, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFSOCK};
use common::lscolors::LsColors;
use common::modes::mode_string;
use common::targets::join;
use common::{Io, Parsed, UError};

const SPEC: &str = "all=a dirs=d level=L: full=f noindent=i ignore=I: pattern=P: classify=F size=s human=h perms=p reverse=r mtime-sort=t version-sort=v unsorted=U no-color=n color=C follow=l json=J xml=X dirsfirst filesfirst noreport charset: prune help version";

const HELP: &str = "usage: tree [-adfhilnprstvCFU] [-L level] [-P pattern] [-I pattern]
\t[--noreport] [--dirsfirst] [--filesfirst] [--charset X] [--help] [--version]
\t[--] [directory ...]
  -a            All files are listed.
  -d            List directories only.
  -f            Print the full path prefix for each file.
  -L level      Descend only level directories deep.
  -P pattern    List only those files that match the pattern given.
  -I pattern    Do not list files that match the given pattern.
  --noreport    Turn off file/directory count at end of tree listing.
  --charset X   Use charset X for terminal/HTML and indentation line output.
  -i            Don't print indentation lines.
  -p            Print the protections for each file.
  -s            Print the size in bytes of each file.
  -h            Print the size in a more human readable way.
  -F            Appends '/', '=', '*', '@', '|' or '>' as per ls -F.
  -n            Turn colorization off always (-C overrides).
  -C            Turn colorization on always.
  -v            Sort files alphanumerically by version.
  -t            Sort files by last modification time.
  -U            Leave files unsorted.
  -r            Reverse the order of the sort.
  --dirsfirst   List directories before files.
  --filesfirst  List files before directories.
  --help        Print usage and this help message and exit.
  --version     Print version and exit.
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    Version,
    Time,
    None,
}

struct Options {
    all: bool,
    dirs_only: bool,
    max_level: Option<usize>,
    full: bool,
    indent: bool,
    ignore: Vec<Vec<u8>>,
    pattern: Vec<Vec<u8>>,
    classify: bool,
    size: bool,
    human: bool,
    perms: bool,
    reverse: bool,
    sort: Sort,
    group: i32,
    ascii: bool,
    colors: Option<LsColors>,
}

/// tree's colours when -C (or CLICOLOR) finds neither TREE_COLORS nor LS_COLORS set
/// (color.c's built-in database).
const TREE_DEFAULTS: &str = "no=00:rs=0:fi=00:di=01;34:ln=01;36:pi=40;33:so=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:ex=01;32:*.bat=01;32:*.BAT=01;32:*.btm=01;32:*.BTM=01;32:*.cmd=01;32:*.CMD=01;32:*.com=01;32:*.COM=01;32:*.dll=01;32:*.DLL=01;32:*.exe=01;32:*.EXE=01;32:*.arj=01;31:*.bz2=01;31:*.deb=01;31:*.gz=01;31:*.lzh=01;31:*.rpm=01;31:*.tar=01;31:*.taz=01;31:*.tb2=01;31:*.tbz2=01;31:*.tbz=01;31:*.tgz=01;31:*.tz2=01;31:*.z=01;31:*.Z=01;31:*.zip=01;31:*.ZIP=01;31:*.zoo=01;31:*.asf=01;35:*.ASF=01;35:*.avi=01;35:*.AVI=01;35:*.bmp=01;35:*.BMP=01;35:*.flac=01;35:*.FLAC=01;35:*.gif=01;35:*.GIF=01;35:*.jpg=01;35:*.JPG=01;35:*.jpeg=01;35:*.JPEG=01;35:*.m2a=01;35:*.M2a=01;35:*.m2v=01;35:*.M2V=01;35:*.mov=01;35:*.MOV=01;35:*.mp3=01;35:*.MP3=01;35:*.mpeg=01;35:*.MPEG=01;35:*.mpg=01;35:*.MPG=01;35:*.ogg=01;35:*.OGG=01;35:*.ppm=01;35:*.rm=01;35:*.RM=01;35:*.tga=01;35:*.TGA=01;35:*.tif=01;35:*.TIF=01;35:*.wav=01;35:*.WAV=01;35:*.wmv=01;35:*.WMV=01;35:*.xbm=01;35:*.xpm=01;35";

/// Whether and how names are coloured, as tree 2.1's parse_dir_colors decides: not at all
/// without TERM; with -C (or CLICOLOR_FORCE) always, else only on a terminal and unless
/// -n or NO_COLOR; from TREE_COLORS, else LS_COLORS, else (with -C or CLICOLOR) the defaults.
fn tree_colors(force: bool, no_color: bool) -> Option<LsColors> {
    let var = |name: &str| std::env::var(name).ok();
    var("TERM")?;
    let no_color = no_color || var("NO_COLOR").map_or(false, |v| !v.is_empty());
    let force = force || (var("CLICOLOR_FORCE").is_some() && !no_color);
    let spec = var("TREE_COLORS").or_else(|| var("LS_COLORS"));
    let spec = match spec {
        Some(spec) if !spec.is_empty() => spec,
        _ if force || var("CLICOLOR").is_some() => TREE_DEFAULTS.to_string(),
        spec => spec?,
    };
    if !force && (no_color || !common::fsops::is_terminal(1)) {
        return None;
    }
    // tree skips empty codes (strtok), as if the key were not there.
    Some(LsColors::parse("", &spec, false))
}

struct Entry {
    name: Vec<u8>,
    path: PathBuf,
    meta: Meta,
    target: Option<Vec<u8>>,
    target_meta: Option<Meta>,
}

const TREE: Command = Command { version: "tree v2.1.0 (Airlock coreutils 0.1.0)\n", ..Command::compact("tree", SPEC, HELP) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let utf8 = ["LC_ALL", "LC_CTYPE", "LANG"].iter().filter_map(|v| std::env::var(v).ok()).find(|v| !v.is_empty()).map_or(false, |v| {
        let l = v.to_ascii_lowercase();
        l.contains("utf-8") || l.contains("utf8")
    });
    let mut o = Options {
        all: false,
        dirs_only: false,
        max_level: None,
        full: false,
        indent: true,
        ignore: Vec::new(),
        pattern: Vec::new(),
        classify: false,
        size: false,
        human: false,
        perms: false,
        reverse: false,
        sort: Sort::Name,
        group: 0,
        ascii: !utf8,
        colors: None,
    };
    let (mut force_color, mut no_color) = (false, false);
    let mut report = true;
    let mut roots = Vec::new();
    TREE.options(&args, io, &mut |_, p| {
        let (id, value) = match p {
            Parsed::Opt { id, value } => (id, value.unwrap_or_default()),
            Parsed::Operand(f) => {
                roots.push(f);
                return Ok(());
            }
        };
        match id {
            "all" => o.all = true,
            "dirs" => o.dirs_only = true,
            "level" => match value.to_string_lossy().parse::<usize>() {
                Ok(n) if n > 0 => o.max_level = Some(n),
                _ => {
                    return Err(UError::new(1, "Invalid level, must be greater than 0."));
                }
            },
            "full" => o.full = true,
            "noindent" => o.indent = false,
            "ignore" => o.ignore.extend(os_bytes(&value).split(|b| *b == b'|').map(|p| p.to_vec())),
            "pattern" => o.pattern.extend(os_bytes(&value).split(|b| *b == b'|').map(|p| p.to_vec())),
            "classify" => o.classify = true,
            "size" => o.size = true,
            "human" => {
                o.size = true;
                o.human = true;
            }
            "perms" => o.perms = true,
            "reverse" => o.reverse = true,
            "mtime-sort" => o.sort = Sort::Time,
            "version-sort" => o.sort = Sort::Version,
            "unsorted" => o.sort = Sort::None,
            "dirsfirst" => o.group = -1,
            "filesfirst" => o.group = 1,
            "noreport" => report = false,
            "charset" => o.ascii = !value.to_string_lossy().to_ascii_lowercase().starts_with("utf"),
            "no-color" => no_color = true,
            "color" => force_color = true,
            other => {
                return Err(UError::new(1, format!("option not supported in the sandbox: -{}", common::args::table(SPEC).iter().find(|s| s.id == other).and_then(|s| s.short.map(String::from).or_else(|| s.long.map(|l| format!("-{}", l)))).unwrap_or_default())));
            }
        }
        Ok(())
    })?;
    o.colors = tree_colors(force_color, no_color);
    if roots.is_empty() {
        roots.push(OsString::from("."));
    }
    let mut walker = Walker { o: &o, out: Vec::new(), dirs: 0, files: 0 };
    let mut status = 0;
    for root in roots {
        let path = PathBuf::from(&root);
        let name = os_bytes(&root).to_vec();
        match common::fsext::metadata(&path, true) {
            Ok(m) if m.is_dir() => {
                let mut line = walker.decorate(&Entry { name: name.clone(), path: path.clone(), meta: m, target: None, target_meta: None }, &name);
                line.push(b'\n');
                walker.out.extend_from_slice(&line);
                match std::fs::read_dir(&path) {
                    Ok(_) => {
                        let before = walker.out.len();
                        walker.list(&path, &name, 1, &mut Vec::new());
                        if walker.out.len() > before {
                            walker.dirs += 1;
                        }
                    }
                    Err(_) => {
                        walker.out.pop();
                        walker.out.extend_from_slice(b"  [error opening dir]\n");
                    }
                }
            }
            Ok(_) => {
                walker.out.extend_from_slice(&name);
                walker.out.extend_from_slice(b"  [error opening dir]\n");
                walker.files += 1;
            }
            Err(_) => {
                walker.out.extend_from_slice(&name);
                walker.out.extend_from_slice(b"  [error opening dir]\n");
                status = 2;
            }
        }
    }
    if report {
        let (d, f) = (walker.dirs, walker.files);
        walker.out.extend_from_slice(format!("\n{} director{}", d, if d == 1 { "y" } else { "ies" }).as_bytes());
        if !o.dirs_only {
            walker.out.extend_from_slice(format!(", {} file{}", f, if f == 1 { "" } else { "s" }).as_bytes());
        }
        walker.out.push(b'\n');
    }
    if let Err(e) = io.out(&walker.out) {
        return Ok(common::write::write_failed(io, &e));
    }
    Ok(status)
}

struct Walker<'a> {
    o: &'a Options,
    out: Vec<u8>,
    dirs: u64,
    files: u64,
}

fn is_dir_like(e: &Entry) -> bool {
    e.meta.is_dir() || e.target_meta.map_or(false, |t| t.is_dir())
}

fn version_key(name: &[u8]) -> Vec<(u8, u128)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < name.len() {
        if name[i].is_ascii_digit() {
            let start = i;
            while i < name.len() && name[i].is_ascii_digit() {
                i += 1;
            }
            let n = std::str::from_utf8(&name[start..i]).ok().and_then(|s| s.parse::<u128>().ok()).unwrap_or(u128::MAX);
            out.push((b'0', n));
        } else {
            out.push((name[i], 0));
            i += 1;
        }
    }
    out
}

impl<'a> Walker<'a> {
    fn human(size: u64) -> String {
        if size < 1024 {
            return format!("{:>4}", size);
        }
        let mut value = size as f64;
        let mut unit = 0;
        while value >= 1024.0 && unit < 7 {
            value /= 1024.0;
            unit += 1;
        }
        let letter = b"BKMGTPEZ"[unit] as char;
        if value < 9.95 {
            format!("{:>3.1}{}", value, letter)
        } else {
            format!("{:>3.0}{}", value, letter)
        }
    }

    fn decorate(&self, e: &Entry, shown: &[u8]) -> Vec<u8> {
        let mut line = Vec::new();
        let mut fields = Vec::new();
        if self.o.perms {
            fields.push(mode_string(e.meta.mode));
        }
        if self.o.size {
            fields.push(if self.o.human { Walker::human(e.meta.size) } else { format!("{:>11}", e.meta.size) });
        }
        if !fields.is_empty() {
            line.extend_from_slice(format!("[{}]  ", fields.join(" ")).as_bytes());
        }
        let orphan = e.target.is_some() && e.target_meta.is_none();
        let paint = |line: &mut Vec<u8>, text: &[u8], meta: Option<&Meta>, target: bool| match &self.o.colors {
            Some(colors) => {
                let mode = meta.map_or(0, |m| m.mode);
                // A broken link is `or`, its target `mi`; what has no type (the missing
                // target) is `no`.
                let broken = if !orphan { None } else if target { colors.key("mi") } else { colors.key("or") };
                let code = broken.or_else(|| colors.code(mode, false, text)).or_else(|| if mode & S_IFMT == 0 { colors.key("no") } else { None });
                colors.paint(line, text, code);
            }
            None => line.extend_from_slice(text),
        };
        // `ln=target`: a link's name in its target's colour.
        let link_target_color = self.o.colors.as_ref().map_or(false, |c| c.key("ln").map_or(false, |v| v.eq_ignore_ascii_case("target")));
        let own = if link_target_color && e.target.is_some() { e.target_meta.as_ref() } else { Some(&e.meta) };
        paint(&mut line, shown, own, false);
        if let Some(t) = &e.target {
            line.extend_from_slice(b" -> ");
            paint(&mut line, t, e.target_meta.as_ref(), true);
            if let (true, Some(tm)) = (self.o.classify, e.target_meta) {
                line.extend_from_slice(indicator(&tm));
            }
        } else if self.o.classify {
            line.extend_from_slice(indicator(&e.meta));
        }
        line
    }

    fn read(&self, dir: &Path) -> Vec<Entry> {
        let mut entries = Vec::new();
        let rd = match std::fs::read_dir(dir) {
            Ok(r) => r,
            Err(_) => return entries,
        };
        for item in rd.filter_map(|e| e.ok()) {
            let name = os_bytes(&item.file_name()).to_vec();
            if !self.o.all && name.first() == Some(&b'.') {
                continue;
            }
            let flags = FnFlags::default();
            if self.o.ignore.iter().any(|p| fnmatch(p, &name, flags)) {
                continue;
            }
            let path = join(dir.as_os_str(), &bytes_os(&name));
            let meta = match common::fsext::metadata(&path, false) {
                Ok(m) => m,
                Err(_) => continue,
            };
            let (target, target_meta) = if meta.is_symlink() {
                (std::fs::read_link(&path).ok().map(|t| os_bytes(t.as_os_str()).to_vec()), common::fsext::metadata(&path, true).ok())
            } else {
                (None, None)
            };
            let e = Entry { name, path, meta, target, target_meta };
            let dir_like = is_dir_like(&e);
            if self.o.dirs_only && !dir_like {
                continue;
            }
            if !dir_like && !self.o.pattern.is_empty() && !self.o.pattern.iter().any(|p| fnmatch(p, &e.name, flags)) {
                continue;
            }
            entries.push(e);
        }
        match self.o.sort {
            Sort::Name => entries.sort_by(|a, b| a.name.cmp(&b.name)),
            Sort::Version => entries.sort_by(|a, b| version_key(&a.name).cmp(&version_key(&b.name))),
            Sort::Time => entries.sort_by(|a, b| a.meta.mtime_ns.cmp(&b.meta.mtime_ns).then_with(|| a.name.cmp(&b.name))),
            Sort::None => {}
        }
        if self.o.reverse {
            entries.reverse();
        }
        if self.o.group != 0 {
            let group = self.o.group;
            entries.sort_by_key(|e| if is_dir_like(e) { group } else { -group });
        }
        entries
    }

    fn list(&mut self, dir: &Path, shown_dir: &[u8], level: usize, last: &mut Vec<bool>) {
        let entries = self.read(dir);
        let count = entries.len();
        for (i, e) in entries.iter().enumerate() {
            let is_last = i + 1 == count;
            let mut line = Vec::new();
            if self.o.indent {
                for ancestor_last in last.iter() {
                    line.extend_from_slice(match (*ancestor_last, self.o.ascii) {
                        (true, _) => "    ".as_bytes(),
                        // tree 2.1 pads the bar with two no-break spaces.
                        (false, false) => "│\u{a0}\u{a0} ".as_bytes(),
                        (false, true) => b"|   ",
                    });
                }
                line.extend_from_slice(match (is_last, self.o.ascii) {
                    (false, false) => "├── ".as_bytes(),
                    (true, false) => "└── ".as_bytes(),
                    (false, true) => b"|-- ",
                    (true, true) => b"`-- ",
                });
            }
            let shown = if self.o.full {
                let mut s = shown_dir.to_vec();
                if s.last() != Some(&b'/') {
                    s.push(b'/');
                }
                s.extend_from_slice(&e.name);
                s
            } else {
                e.name.clone()
            };
            line.extend_from_slice(&self.decorate(e, &shown));
            line.push(b'\n');
            self.out.extend_from_slice(&line);
            if is_dir_like(e) {
                self.dirs += 1;
                if e.meta.is_dir() && self.o.max_level.map_or(true, |m| level < m) {
                    last.push(is_last);
                    self.list(&e.path, &shown, level + 1, last);
                    last.pop();
                }
            } else {
                self.files += 1;
            }
        }
    }
}

fn indicator(meta: &Meta) -> &'static [u8] {
    match meta.mode & S_IFMT {
        S_IFDIR => b"/",
        S_IFLNK => b"@",
        S_IFIFO => b"|",
        S_IFSOCK => b"=",
        _ if meta.is_file() && meta.mode & 0o111 != 0 => b"*",
        _ => b"",
    }
}
