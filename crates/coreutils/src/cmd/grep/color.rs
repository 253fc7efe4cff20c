//! grep's colours: the palette GREP_COLORS (or rg's defaults) gives, and writing a piece
//! of text in its colour.

use std::io::{self, Write};

use common::Io;

use super::Config;

/// The sequences that colour the output, each written before its kind of text (empty: that
/// kind is not coloured) and `end` after it: GREP_COLORS's for grep, ripgrep's for rg.
#[derive(Clone)]
pub struct Palette {
    pub selected_match: Vec<u8>,
    pub context_match: Vec<u8>,
    pub selected_line: Vec<u8>,
    pub context_line: Vec<u8>,
    pub file_name: Vec<u8>,
    pub line_number: Vec<u8>,
    pub byte_offset: Vec<u8>,
    pub separator: Vec<u8>,
    pub end: Vec<u8>,
    /// GREP_COLORS's `rv`: with -v, selected and context lines swap `sl` and `cx`.
    pub reverse: bool,
}

impl Palette {
    /// GNU grep 3.8's colours: its defaults (`ms=01;31:mc=01;31:sl=:cx=:fn=35:ln=32:bn=32:se=36`),
    /// GREP_COLOR (deprecated, with grep's warning) and GREP_COLORS over them, parsed as
    /// grep's parse_grep_colors does: unknown names are skipped, a value holds only digits
    /// and `;`, and anything malformed ends the parsing with what was read so far.
    pub(super) fn from_env(io: &mut Io) -> Palette {
        let mut codes: Vec<(&str, String)> = ["ms=01;31", "mc=01;31", "sl=", "cx=", "fn=35", "ln=32", "bn=32", "se=36"].iter().filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k, v.to_string())).collect();
        let legacy = std::env::var("GREP_COLOR").ok().filter(|v| !v.is_empty() && v.bytes().all(|b| b == b';' || b.is_ascii_digit()));
        if let Some(value) = &legacy {
            codes[0].1 = value.clone();
            codes[1].1 = value.clone();
        }
        let (mut reverse, mut no_erase) = (false, false);
        let spec = std::env::var("GREP_COLORS").unwrap_or_default();
        for item in spec.split(':') {
            let (name, value) = match item.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (item, None),
            };
            if (name.is_empty() && value.is_some()) || value.map_or(false, |v| v.contains('=') || !v.bytes().all(|b| b == b';' || b.is_ascii_digit())) {
                break;
            }
            match (name, value) {
                ("mt", Some(v)) => {
                    codes[0].1 = v.to_string();
                    codes[1].1 = v.to_string();
                }
                ("mt", None) => codes[1].1 = codes[0].1.clone(),
                ("rv", _) => reverse = true,
                ("ne", _) => no_erase = true,
                (name, Some(v)) => {
                    if let Some(slot) = codes.iter_mut().find(|(k, _)| *k == name) {
                        slot.1 = v.to_string();
                    }
                }
                _ => {}
            }
        }
        if let Some(value) = legacy {
            if codes[0].1 == value || codes[1].1 == value {
                io.error(format!("warning: GREP_COLOR='{}' is deprecated; use GREP_COLORS='mt={}'", value, value));
            }
        }
        let erase: &[u8] = if no_erase { b"" } else { b"\x1b[K" };
        let sgr = |i: usize| -> Vec<u8> {
            let code: &str = &codes[i].1;
            if code.is_empty() {
                return Vec::new();
            }
            [b"\x1b[", code.as_bytes(), b"m", erase].concat()
        };
        Palette {
            selected_match: sgr(0),
            context_match: sgr(1),
            selected_line: sgr(2),
            context_line: sgr(3),
            file_name: sgr(4),
            line_number: sgr(5),
            byte_offset: sgr(6),
            separator: sgr(7),
            end: [b"\x1b[m", erase].concat(),
            reverse,
        }
    }
}

/// A file name, in the file-name colour.
pub fn write_name(out: &mut dyn Write, name: &[u8], config: &Config) -> io::Result<()> {
    write_colored(out, name, config.colors.as_ref().map(|p| &p.file_name[..]), config)
}

/// `text` between `start` and the palette's end (plain when `start` is empty or absent).
pub fn write_colored(out: &mut dyn Write, text: &[u8], start: Option<&[u8]>, config: &Config) -> io::Result<()> {
    match (start, &config.colors) {
        (Some(start), Some(palette)) if !start.is_empty() => {
            out.write_all(start)?;
            out.write_all(text)?;
            out.write_all(&palette.end)
        }
        _ => out.write_all(text),
    }
}
