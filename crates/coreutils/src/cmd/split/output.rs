//! split's output files: generating the next name (GNU's suffix arithmetic, including the
//! automatic widening `yz` → `zaaa`) and writing pieces to them.

use std::fs::{File, OpenOptions};
use std::io::Write;

use common::args::bytes_os;
use common::strerror;

use super::Failure;

pub struct Outputs {
    base: Vec<u8>,
    additional: Vec<u8>,
    alphabet: &'static [u8],
    length: usize,
    auto: bool,
    start: Option<Vec<u8>>,
    elide: bool,
    verbose: bool,
    input: Option<(u64, u64)>,
    index: Vec<usize>,
    started: bool,
    current: Option<File>,
    name: Vec<u8>,
}

/// GNU's quoteaf for --verbose: always in single quotes.
fn quote_always(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    format!("'{}'", text.replace('\'', "'\\''"))
}

impl Outputs {
    #[allow(clippy::too_many_arguments)]
    pub fn new(base: Vec<u8>, additional: Vec<u8>, alphabet: &'static [u8], length: usize, auto: bool, start: Option<Vec<u8>>, elide: bool, verbose: bool, input: Option<(u64, u64)>) -> Outputs {
        Outputs { base, additional, alphabet, length, auto, start, elide, verbose, input, index: Vec::new(), started: false, current: None, name: Vec::new() }
    }

    fn suffix(&self) -> Vec<u8> {
        self.index.iter().map(|i| self.alphabet[*i]).collect()
    }

    /// Advances to the next file name; Err when the suffixes are exhausted.
    fn next_name(&mut self) -> Result<(), String> {
        if !self.started {
            self.started = true;
            self.index = vec![0; self.length];
            if let Some(start) = &self.start {
                let offset = self.length - start.len();
                for (i, c) in start.iter().enumerate() {
                    self.index[offset + i] = self.alphabet.iter().position(|a| a == c).unwrap_or(0);
                }
            }
        } else {
            let mut i = self.length;
            loop {
                if i == 0 {
                    return Err("output file suffixes exhausted".to_string());
                }
                i -= 1;
                self.index[i] += 1;
                if self.auto && i == 0 && self.index[0] + 1 == self.alphabet.len() {
                    // Widen: the leading `z` joins the prefix and the suffix grows.
                    self.base.push(self.alphabet[self.index[0]]);
                    self.length += 1;
                    self.index = vec![0; self.length];
                    break;
                }
                if self.index[i] < self.alphabet.len() {
                    break;
                }
                self.index[i] = 0;
            }
        }
        let mut name = self.base.clone();
        name.extend_from_slice(&self.suffix());
        name.extend_from_slice(&self.additional);
        self.name = name;
        Ok(())
    }

    /// Opens the next output file (truncating it), refusing to overwrite the input.
    fn open_next(&mut self, stdout: &mut dyn Write) -> Result<(), Failure> {
        self.current = None;
        self.next_name().map_err(Failure::Output)?;
        let path = bytes_os(&self.name);
        if self.verbose {
            let _ = writeln!(stdout, "creating file {}", quote_always(&self.name));
        }
        if let (Some(input), Ok(meta)) = (self.input, common::fsext::metadata(std::path::Path::new(&path), true)) {
            if (meta.dev, meta.ino) == input {
                return Err(Failure::Output(format!("{} would overwrite input; aborting", quote_always(&self.name))));
            }
        }
        let file = OpenOptions::new().write(true).create(true).truncate(true).open(&path).map_err(|e| Failure::Output(format!("{}: {}", path.to_string_lossy(), strerror(&e))))?;
        self.current = Some(file);
        Ok(())
    }

    /// Writes `data`, to a new file when `new_file`.
    pub fn write(&mut self, new_file: bool, data: &[u8], stdout: &mut dyn Write) -> Result<(), Failure> {
        if new_file || self.current.is_none() {
            self.open_next(stdout)?;
        }
        if let Some(file) = self.current.as_mut() {
            file.write_all(data).map_err(|e| Failure::Output(format!("{}: {}", String::from_utf8_lossy(&self.name), strerror(&e))))?;
        }
        Ok(())
    }

    /// An empty file for a chunk with no data (not with -e).
    pub fn empty(&mut self, stdout: &mut dyn Write) -> Result<(), Failure> {
        if self.elide {
            return Ok(());
        }
        self.open_next(stdout)
    }

    pub fn finish(&mut self) {
        self.current = None;
    }
}
