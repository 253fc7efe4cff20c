//! `ls`: list directory contents. Options people use: -a -A -1 -R -h -S -t -r -d -F -p -i
//! -l -n -g -o -G -s -U -X -v -c -u -L -H -C -x -m -w, --full-time, --time-style,
//! --group-directories-first. One name per line when stdout is not a terminal, columns
//! (GNU's layout, tab stops of 8) when it is; --color as GNU's. Formatting lives in
//! ls/format.rs, colours in ls/colors.rs.

#[path = "ls/colors.rs"]
mod colors;
#[path = "ls/format.rs"]
mod format;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::args::{self, os_bytes, Command, Order};
use common::fsext::Meta;
use common::io::quote;
use common::targets::join;
use common::{strerror, Io, Parsed, UError};

use format::{Entry, Layout, Options, Sort, TimeField, TimeStyle};

const SPEC: &str = "all,a almost-all,A escape,b ctime=c columns=C color:: directory,d classify,F file-type full-time no-owner=g group-directories-first no-group,G human-readable,h si dereference-command-line,H inode,i ignore,I: kibibytes=k long=l dereference,L commas=m numeric=n,numeric-uid-gid literal,N no-group-long=o slash=p hide-control-chars,q quote-name,Q reverse,r recursive,R size,s sort-size=S sort: sort-time=t time: time-style: atime=u unsorted=U unsorted-all=f version-sort=v width,w: across=x extension=X one=1 format: indicator-style: hide:";

const LS: Command = Command { usage_status: 2, order: Order::Permute, ..Command::compact("ls", SPEC, HELP) };

const HELP: &str = "Usage: ls [OPTION]... [FILE]...
List information about the FILEs (the current directory by default).
Sort entries alphabetically if none of -cftuvSUX nor --sort is specified.

  -a, --all                  do not ignore entries starting with .
  -A, --almost-all           do not list implied . and ..
  -c                         with -lt: sort by, and show, ctime
  -C                         list entries by columns
      --color[=WHEN]         color the output WHEN: 'always' (the default
                               when WHEN is omitted), 'auto' (when stdout is
                               a terminal) or 'never'; colors from LS_COLORS,
                               else GNU's built-in ones
  -d, --directory            list directories themselves, not their contents
  -f                         list all entries in directory order
  -F, --classify             append indicator (one of */=>@|) to entries
      --file-type            likewise, except do not append '*'
      --full-time            like -l --time-style=full-iso
  -g                         like -l, but do not list owner
      --group-directories-first  group directories before files
  -G, --no-group             in a long listing, don't print group names
  -h, --human-readable       with -l and -s, print sizes like 1K 234M 2G etc.
      --si                   likewise, but use powers of 1000 not 1024
  -H, --dereference-command-line  follow symbolic links listed on the command line
      --hide=PATTERN         do not list implied entries matching shell PATTERN
  -i, --inode                print the index number of each file
  -I, --ignore=PATTERN       do not list implied entries matching shell PATTERN
  -k, --kibibytes            default to 1024-byte blocks for file system usage
  -l                         use a long listing format
  -L, --dereference          show information for the file symlinks point to
  -m                         fill width with a comma separated list of entries
  -n, --numeric-uid-gid      like -l, but list numeric user and group IDs
  -o                         like -l, but do not list group information
  -p                         append / indicator to directories
  -r, --reverse              reverse order while sorting
  -R, --recursive            list subdirectories recursively
  -s, --size                 print the allocated size of each file, in blocks
  -S                         sort by file size, largest first
      --sort=WORD            sort by WORD: none (-U), size (-S), time (-t),
                             version (-v), extension (-X)
      --time=WORD            select which timestamp: atime, access, use, ctime, status, mtime, modification
      --time-style=STYLE     full-iso, long-iso, iso, locale, or +FORMAT
  -t                         sort by time, newest first
  -u                         with -lt: sort by, and show, access time
  -U                         do not sort; list entries in directory order
  -v                         natural sort of (version) numbers within text
  -w, --width=COLS           set output width to COLS.  0 means no limit
  -x                         list entries by lines instead of by columns
  -X                         sort alphabetically by entry extension
  -1                         list one file per line
{standard}
Exit status:
 0  if OK,
 1  if minor problems (e.g., cannot access subdirectory),
 2  if serious trouble (e.g., cannot access command-line argument).
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hidden {
    Skip,
    AlmostAll,
    All,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let tty = common::fsops::is_terminal(1);
    let mut o = Options::new(tty);
    let mut hidden = Hidden::Skip;
    let mut directory = false;
    let mut recursive = false;
    let mut deref_all = false;
    let mut deref_cmd: Option<bool> = None;
    let mut ignore: Vec<Vec<u8>> = Vec::new();
    let mut hide: Vec<Vec<u8>> = Vec::new();
    let mut files = Vec::new();
    LS.options(&args, io, &mut |io, p| {
        let (id, value) = match p {
            Parsed::Opt { id, value } => (id, value.map(|v| v.to_string_lossy().into_owned())),
            Parsed::Operand(f) => {
                files.push(f);
                return Ok(());
            }
        };
        let value_str = value.clone().unwrap_or_default();
        match id {
            "all" => hidden = Hidden::All,
            "almost-all" => hidden = Hidden::AlmostAll,
            "ctime" => o.time = TimeField::Ctime,
            "atime" => o.time = TimeField::Atime,
            "columns" => o.layout = Layout::Columns,
            "across" => o.layout = Layout::Across,
            "commas" => o.layout = Layout::Commas,
            "one" => o.layout = Layout::One,
            "long" => o.layout = Layout::Long,
            "numeric" => {
                o.layout = Layout::Long;
                o.numeric = true;
            }
            "no-owner" => {
                o.layout = Layout::Long;
                o.show_owner = false;
            }
            "no-group-long" => {
                o.layout = Layout::Long;
                o.show_group = false;
            }
            "no-group" => o.show_group = false,
            "full-time" => {
                o.layout = Layout::Long;
                o.time_style = TimeStyle::FullIso;
            }
            "color" => match colors::when(value.as_deref(), tty) {
                Some(true) => o.colors = colors::Colors::from_env(),
                Some(false) => o.colors = None,
                None => {
                    // GNU's words in the sandbox's locale (C.UTF-8).
                    io.error(format!("invalid argument \u{2018}{}\u{2019} for \u{2018}--color\u{2019}", value_str));
                    let _ = io.stderr.write_all("Valid arguments are:\n  - \u{2018}always\u{2019}, \u{2018}yes\u{2019}, \u{2018}force\u{2019}\n  - \u{2018}never\u{2019}, \u{2018}no\u{2019}, \u{2018}none\u{2019}\n  - \u{2018}auto\u{2019}, \u{2018}tty\u{2019}, \u{2018}if-tty\u{2019}\n".as_bytes());
                    io.try_help();
                    // GNU's argmatch failure: usage(EXIT_FAILURE), not ls's 2.
                    return Err(UError::exit(1));
                }
            },
            "directory" => directory = true,
            "classify" => o.indicator = format::Indicator::Classify,
            "file-type" => o.indicator = format::Indicator::FileType,
            "slash" => o.indicator = format::Indicator::Slash,
            "indicator-style" | "sort" | "time" | "time-style" | "width" | "format" => choice(&mut o, id, &value_str)?,
            "group-directories-first" => o.dirs_first = true,
            "human-readable" => o.human = Some(1024),
            "si" => o.human = Some(1000),
            "kibibytes" => {}
            "dereference-command-line" => deref_cmd = Some(true),
            "dereference" => deref_all = true,
            "inode" => o.inode = true,
            "ignore" => ignore.push(value_str.into_bytes()),
            "hide" => hide.push(value_str.into_bytes()),
            "literal" | "hide-control-chars" | "escape" => {}
            "quote-name" => o.quote_all = true,
            "reverse" => o.reverse = true,
            "recursive" => recursive = true,
            "size" => o.blocks = true,
            "sort-size" => o.sort = Sort::Size,
            "sort-time" => o.sort = Sort::Time,
            "unsorted" => o.sort = Sort::None,
            "unsorted-all" => {
                o.sort = Sort::None;
                hidden = Hidden::All;
            }
            "version-sort" => o.sort = Sort::Version,
            "extension" => o.sort = Sort::Extension,
            _ => {}
        }
        Ok(())
    })?;
    // -t/-u/-c without -l sort by that time (GNU: -c/-u sort when not long format).
    if o.layout != Layout::Long && o.time != TimeField::Mtime && o.sort == Sort::Name {
        o.sort = Sort::Time;
    }
    let follow_cmd = deref_all || deref_cmd.unwrap_or(false);
    // Without -l, -d or -F, a command-line symlink to a directory is listed as the directory.
    let follow_cmd_dir = !follow_cmd && deref_cmd.is_none() && !directory && o.layout != Layout::Long && o.indicator != format::Indicator::Classify;
    o.dereference = deref_all;
    let mut lister = Lister { io, o, hidden, recursive, ignore, hide, status: 0, printed: false, names: common::users::Names::load() };
    if files.is_empty() {
        files.push(OsString::from("."));
    }
    let mut file_entries = Vec::new();
    let mut dir_entries = Vec::new();
    for f in files {
        let path = PathBuf::from(&f);
        let meta = match common::fsext::metadata(&path, follow_cmd) {
            Ok(m) => {
                if m.is_symlink() && follow_cmd_dir {
                    match common::fsext::metadata(&path, true) {
                        Ok(t) if t.is_dir() => t,
                        _ => m,
                    }
                } else {
                    m
                }
            }
            Err(e) => {
                lister.io.error(format!("cannot access {}: {}", quote(&f), strerror(&e)));
                lister.status = 2;
                continue;
            }
        };
        let entry = lister.entry(os_bytes(&f).to_vec(), path, meta);
        if meta.is_dir() && !directory {
            dir_entries.push(entry);
        } else {
            file_entries.push(entry);
        }
    }
    format::sort(&mut file_entries, &lister.o);
    format::sort(&mut dir_entries, &lister.o);
    let show_headers = recursive || dir_entries.len() + file_entries.len() > 1;
    if !file_entries.is_empty() {
        if let Err(e) = format::print(lister.io, &file_entries, &lister.o, &lister.names, false) {
            return Ok(common::write::write_failed(lister.io, &e));
        }
        lister.printed = true;
    }
    for d in dir_entries {
        if let Err(e) = lister.list_dir(&d.path, show_headers) {
            return Ok(common::write::write_failed(lister.io, &e));
        }
    }
    Ok(lister.status)
}

/// The options that pick one of several words (`--sort=WORD`, `--format=WORD`, ...).
fn choice(o: &mut Options, id: &str, value_str: &str) -> Result<(), UError> {
    match id {
        "indicator-style" => {
            o.indicator = match value_str {
                "none" => format::Indicator::None,
                "slash" => format::Indicator::Slash,
                "file-type" => format::Indicator::FileType,
                "classify" => format::Indicator::Classify,
                _ => return Err(bad_argument(value_str, "--indicator-style")),
            }
        }
        "sort" => {
            o.sort = match value_str {
                "none" => Sort::None,
                "size" => Sort::Size,
                "time" => Sort::Time,
                "version" => Sort::Version,
                "extension" => Sort::Extension,
                "name" => Sort::Name,
                _ => return Err(bad_argument(value_str, "--sort")),
            }
        }
        "time" => {
            o.time = match value_str {
                "atime" | "access" | "use" => TimeField::Atime,
                "ctime" | "status" => TimeField::Ctime,
                "mtime" | "modification" => TimeField::Mtime,
                _ => return Err(bad_argument(value_str, "--time")),
            }
        }
        "time-style" => {
            let style = value_str.trim_start_matches("posix-");
            o.time_style = match style {
                "full-iso" => TimeStyle::FullIso,
                "long-iso" => TimeStyle::LongIso,
                "iso" => TimeStyle::Iso,
                "locale" => TimeStyle::Locale,
                s if s.starts_with('+') => TimeStyle::Format(s[1..].to_string()),
                _ => return Err(bad_argument(value_str, "--time-style")),
            }
        }
        "width" => match value_str.parse::<usize>() {
            Ok(w) => o.width = w,
            Err(_) => {
                return Err(UError::new(2, format!("invalid line width: {}", quote(value_str.as_ref()))));
            }
        },
        "format" => {
            o.layout = match value_str {
                "long" | "verbose" => Layout::Long,
                "single-column" => Layout::One,
                "commas" => Layout::Commas,
                "across" | "horizontal" => Layout::Across,
                "vertical" => Layout::Columns,
                _ => return Err(bad_argument(value_str, "--format")),
            };
        }
        _ => {}
    }
    Ok(())
}

fn bad_argument(value: &str, option: &str) -> UError {
    UError::usage(2, format!("invalid argument {} for '{}'", quote(value.as_ref()), option))
}

struct Lister<'a, 'b> {
    io: &'a mut Io<'b>,
    o: Options,
    hidden: Hidden,
    recursive: bool,
    ignore: Vec<Vec<u8>>,
    hide: Vec<Vec<u8>>,
    status: i32,
    printed: bool,
    names: common::users::Names,
}

impl<'a, 'b> Lister<'a, 'b> {
    fn entry(&self, name: Vec<u8>, path: PathBuf, meta: Meta) -> Entry {
        let link_target = if meta.is_symlink() { std::fs::read_link(&path).ok().map(|t| os_bytes(t.as_os_str()).to_vec()) } else { None };
        let target_meta = if meta.is_symlink() { common::fsext::metadata(&path, true).ok() } else { None };
        Entry { name, path, meta, link_target, target_meta }
    }

    fn skip(&self, name: &[u8]) -> bool {
        if self.ignore.iter().any(|p| common::fnmatch::fnmatch(p, name, common::fnmatch::FnFlags { period: true, ..Default::default() })) {
            return true;
        }
        if name.first() == Some(&b'.') {
            return self.hidden == Hidden::Skip;
        }
        self.hidden == Hidden::Skip && self.hide.iter().any(|p| common::fnmatch::fnmatch(p, name, common::fnmatch::FnFlags { period: true, ..Default::default() }))
    }

    fn list_dir(&mut self, dir: &Path, header: bool) -> std::io::Result<()> {
        let read = match std::fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) => {
                self.io.error(format!("cannot open directory {}: {}", quote(dir.as_os_str()), strerror(&e)));
                self.status = self.status.max(if self.printed || header { 1 } else { 2 });
                return Ok(());
            }
        };
        let mut entries = Vec::new();
        if self.hidden == Hidden::All {
            for dot in [&b"."[..], &b".."[..]] {
                let path = join(dir.as_os_str(), &args::bytes_os(dot));
                if let Ok(m) = common::fsext::metadata(&path, true) {
                    entries.push(self.entry(dot.to_vec(), path, m));
                }
            }
        }
        for item in read.filter_map(|e| e.ok()) {
            let name = os_bytes(&item.file_name()).to_vec();
            if self.skip(&name) {
                continue;
            }
            let path = join(dir.as_os_str(), &item.file_name());
            match common::fsext::metadata(&path, self.o.dereference) {
                Ok(m) => entries.push(self.entry(name, path, m)),
                Err(_) => match common::fsext::metadata(&path, false) {
                    Ok(m) => entries.push(self.entry(name, path, m)),
                    Err(e) => {
                        self.io.error(format!("cannot access {}: {}", quote(path.as_os_str()), strerror(&e)));
                        self.status = self.status.max(1);
                    }
                },
            }
        }
        format::sort(&mut entries, &self.o);
        if header {
            if self.printed {
                self.io.out(b"\n")?;
            }
            let mut line = os_bytes(dir.as_os_str()).to_vec();
            line.extend_from_slice(b":\n");
            self.io.out(&line)?;
        }
        self.printed = true;
        format::print(self.io, &entries, &self.o, &self.names, true)?;
        if self.recursive {
            for e in &entries {
                if e.meta.is_dir() && e.name != b"." && e.name != b".." {
                    self.list_dir(&e.path, true)?;
                }
            }
        }
        Ok(())
    }
}
