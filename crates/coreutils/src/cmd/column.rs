//! `column [OPTION]... [FILE]...`: util-linux 2.38's column. Without `-t` it fills the
//! terminal width (`-c`, else $COLUMNS, else 80) with the input lines arranged in columns
//! (down first, or across with `-x`) aligned with tabs. With `-t` it makes a table: cells
//! split at whitespace (runs merged), or at each `-s` character (empty cells kept), joined by
//! two spaces or `-o`; every column but the last is padded to its width. `-N` names the
//! columns (a header line, `-d` hides it), `-R` right-aligns, `-H` hides, `-l` limits the
//! number of columns (the last keeps the rest of the line). Empty lines are skipped.

use std::ffi::OsString;

use common::args::{os_bytes, Command, Parsed};
use common::io::for_each_line;
use common::{Io, UError};

const SPEC: &str = "table,t separator,s: output-separator,o: fillrows,x output-width,c: table-columns,N: table-right,R: table-hide,H: table-columns-limit,l: table-noheadings,d table-name,n: json,J table-order,O: table-truncate,T: table-wrap,W: table-empty-lines,e tree,r: keep-empty-lines,L help,h version,V";

#[derive(Default)]
struct Table {
    separator: Option<Vec<u8>>,
    output_separator: Vec<u8>,
    names: Vec<Vec<u8>>,
    right: Vec<Vec<u8>>,
    hide: Vec<Vec<u8>>,
    limit: usize,
    headings: bool,
}

const HELP: &str = "Usage:\n {name} [options] [<file>...]\n\nColumnate lists.\n\nOptions:\n -t, --table                      create a table\n -N, --table-columns <names>      comma separated columns names\n -l, --table-columns-limit <num>  maximal number of input columns\n -R, --table-right <columns>      right align text in these columns\n -H, --table-hide <columns>       don't print the columns\n -d, --table-noheadings           don't print header\n -s, --separator <string>         possible table delimiters\n -o, --output-separator <string>  columns separator for table output (default is two spaces)\n -c, --output-width <width>       width of output in number of characters\n -x, --fillrows                   fill rows before columns\n -h, --help                       display this help\n -V, --version                    display version\n";

const COLUMN: Command = Command { version: "column from util-linux 2.38.1 (Airlock)\n", ..Command::compact("column", SPEC, HELP) };

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut table_mode = false;
    let mut across = false;
    let mut width: Option<usize> = None;
    let mut table = Table { output_separator: b"  ".to_vec(), headings: true, ..Table::default() };
    let mut files: Vec<OsString> = Vec::new();
    COLUMN.options(&args, io, &mut |_, item| {
        match item {
            Parsed::Opt { id, value } => {
                let v = value.map(|v| os_bytes(&v).to_vec()).unwrap_or_default();
                match id {
                    "table" => table_mode = true,
                    "separator" => table.separator = Some(v),
                    "output-separator" => table.output_separator = v,
                    "fillrows" => across = true,
                    "table-noheadings" => table.headings = false,
                    "table-name" => {}
                    "output-width" | "table-columns-limit" => {
                        let n = match std::str::from_utf8(&v).ok().and_then(|s| s.parse::<usize>().ok()) {
                            Some(n) => n,
                            None => {
                                let what = if id == "output-width" { "invalid columns argument" } else { "invalid columns limit argument" };
                                return Err(UError::new(1, format!("{}: '{}'", what, String::from_utf8_lossy(&v))));
                            }
                        };
                        if id == "output-width" {
                            width = Some(n);
                        } else {
                            table.limit = n;
                        }
                    }
                    "table-columns" => table.names = split_list(&v),
                    "table-right" => table.right = split_list(&v),
                    "table-hide" => table.hide = split_list(&v),
                    _ => {
                        let long = common::args::table(SPEC).iter().find(|s| s.id == id).and_then(|s| s.long).unwrap_or(id);
                        return Err(UError::new(1, format!("option not supported in the sandbox: --{}", long)));
                    }
                }
            }
            Parsed::Operand(f) => files.push(f),
        }
        Ok(())
    })?;
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut collect = |line: &[u8]| {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        if !line.iter().all(|c| c.is_ascii_whitespace()) {
            lines.push(line.to_vec());
        }
        Ok(true)
    };
    // Like util-linux, `-` is a file name, and the status counts the files that failed.
    let mut status = 0;
    if files.is_empty() {
        if let Err(e) = for_each_line(io.stdin, b'\n', &mut collect) {
            io.error(common::strerror(&e));
            status = 1;
        }
    }
    for file in &files {
        let result = std::fs::File::open(file).and_then(|f| {
            if f.metadata()?.is_dir() {
                return Err(std::io::Error::from_raw_os_error(airlock_sys::errno::os::ISDIR));
            }
            for_each_line(&mut std::io::BufReader::new(f), b'\n', &mut collect)
        });
        if let Err(e) = result {
            io.error(format!("{}: {}", file.to_string_lossy(), common::strerror(&e)));
            status += 1;
        }
    }
    let out = if table_mode {
        make_table(&lines, &table)
    } else {
        let width = width.or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|w| *w > 0)).unwrap_or(80);
        fill(&lines, width, across)
    };
    let _ = io.out(&out);
    Ok(status)
}

fn split_list(v: &[u8]) -> Vec<Vec<u8>> {
    v.split(|c| *c == b',').map(|s| s.to_vec()).collect()
}

/// A cell as printed (invalid UTF-8 bytes shown as `\xHH`, as libsmartcols does) and its
/// display width.
fn render(cell: &[u8]) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut width = 0;
    let mut rest = cell;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.extend_from_slice(s.as_bytes());
                width += unicode_width::UnicodeWidthStr::width(s);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                let s = std::str::from_utf8(good).unwrap_or("");
                out.extend_from_slice(s.as_bytes());
                width += unicode_width::UnicodeWidthStr::width(s);
                let n = e.error_len().unwrap_or(bad.len()).max(1);
                for b in &bad[..n] {
                    out.extend_from_slice(format!("\\x{:02x}", b).as_bytes());
                    width += 4;
                }
                rest = &bad[n..];
            }
        }
    }
    (out, width)
}

/// Splits a line into cells: at runs of whitespace (leading ones skipped) by default, at
/// every separator character with -s; with a limit, the last cell keeps the rest.
fn split_cells(line: &[u8], separator: Option<&[u8]>, limit: usize) -> Vec<Vec<u8>> {
    let greedy = separator.is_none();
    let is_sep = |c: u8| match separator {
        Some(s) => s.contains(&c),
        None => c == b' ' || c == b'\t',
    };
    let mut cells = Vec::new();
    let mut i = 0;
    loop {
        if limit > 0 && cells.len() + 1 == limit && !cells.is_empty() {
            cells.push(line[i..].to_vec());
            break;
        }
        if greedy {
            while i < line.len() && is_sep(line[i]) {
                i += 1;
            }
            if i >= line.len() {
                break;
            }
        }
        if limit > 0 && cells.len() + 1 == limit {
            cells.push(line[i..].to_vec());
            break;
        }
        let start = i;
        while i < line.len() && !is_sep(line[i]) {
            i += 1;
        }
        cells.push(line[start..i].to_vec());
        if i >= line.len() {
            break;
        }
        i += 1;
    }
    cells
}

/// Whether column `index` (0-based) is named by `list` (numbers from 1, or names).
fn selected(list: &[Vec<u8>], index: usize, names: &[Vec<u8>]) -> bool {
    list.iter().any(|item| item == (index + 1).to_string().as_bytes() || names.get(index).map_or(false, |n| n == item))
}

fn make_table(lines: &[Vec<u8>], t: &Table) -> Vec<u8> {
    let mut rows: Vec<Vec<(Vec<u8>, usize)>> = Vec::new();
    if !t.names.is_empty() && t.headings && !lines.is_empty() {
        rows.push(t.names.iter().map(|n| render(n)).collect());
    }
    let limit = if t.limit == 0 && !t.names.is_empty() { 0 } else { t.limit };
    for line in lines {
        rows.push(split_cells(line, t.separator.as_deref(), limit).iter().map(|c| render(c)).collect());
    }
    let ncols = rows.iter().map(|r| r.len()).max().unwrap_or(0).max(if lines.is_empty() { 0 } else { t.names.len() });
    let shown: Vec<usize> = (0..ncols).filter(|i| !selected(&t.hide, *i, &t.names)).collect();
    let mut widths = vec![0; ncols];
    for row in &rows {
        for (i, (_, w)) in row.iter().enumerate() {
            widths[i] = widths[i].max(*w);
        }
    }
    let mut out = Vec::new();
    for row in &rows {
        for (k, &i) in shown.iter().enumerate() {
            let last = k + 1 == shown.len();
            if last && row.get(i).is_none() {
                out.push(b'\n');
                break;
            }
            let (text, w) = row.get(i).map_or((&[][..], 0), |(t, w)| (&t[..], *w));
            let pad = widths[i] - w;
            if selected(&t.right, i, &t.names) {
                out.extend(std::iter::repeat(b' ').take(pad));
                out.extend_from_slice(text);
            } else {
                out.extend_from_slice(text);
                if !last {
                    out.extend(std::iter::repeat(b' ').take(pad));
                }
            }
            if !last {
                out.extend_from_slice(&t.output_separator);
            }
        }
        if shown.last().map_or(true, |&i| row.get(i).is_some()) {
            out.push(b'\n');
        }
    }
    out
}

fn display_width(line: &[u8]) -> usize {
    unicode_width::UnicodeWidthStr::width(String::from_utf8_lossy(line).as_ref())
}

/// The classic mode: entries in columns of `maxlength` rounded up to a tab stop.
fn fill(entries: &[Vec<u8>], width: usize, across: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if entries.is_empty() {
        return out;
    }
    let widths: Vec<usize> = entries.iter().map(|e| display_width(e)).collect();
    let max = widths.iter().copied().max().unwrap_or(0);
    let colw = (max + 8) & !7;
    if max >= width {
        for e in entries {
            out.extend_from_slice(e);
            out.push(b'\n');
        }
        return out;
    }
    let numcols = (width / colw).max(1);
    let tabs_to = |out: &mut Vec<u8>, chcnt: &mut usize, endcol: usize| {
        while *chcnt < endcol {
            out.push(b'\t');
            *chcnt = (*chcnt + 8) & !7;
        }
    };
    if across {
        let (mut chcnt, mut col, mut endcol) = (0, 0, colw);
        for (k, e) in entries.iter().enumerate() {
            out.extend_from_slice(e);
            chcnt += widths[k];
            if k + 1 == entries.len() {
                break;
            }
            col += 1;
            if col == numcols {
                chcnt = 0;
                col = 0;
                endcol = colw;
                out.push(b'\n');
            } else {
                tabs_to(&mut out, &mut chcnt, endcol);
                endcol += colw;
            }
        }
        if chcnt > 0 {
            out.push(b'\n');
        }
        return out;
    }
    let numrows = (entries.len() + numcols - 1) / numcols;
    for row in 0..numrows {
        let (mut chcnt, mut endcol, mut base) = (0, colw, row);
        for _ in 0..numcols {
            out.extend_from_slice(&entries[base]);
            chcnt += widths[base];
            base += numrows;
            if base >= entries.len() {
                break;
            }
            tabs_to(&mut out, &mut chcnt, endcol);
            endcol += colw;
        }
        out.push(b'\n');
    }
    out
}
