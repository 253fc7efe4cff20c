//! `printf [-v var] format [arguments]`, as bash's printf.def: the format is reused while
//! arguments remain; conversions `d i o u x X` (integers as `strtoimax`/`strtoumax` read
//! them: out-of-range values saturate with a warning, negatives wrap for the unsigned
//! ones), `e E f F g G a A` (through `common::cformat`, the C printf the coreutils use),
//! `c s b q Q`, and `%(fmt)T` (through `common::strftime`, in the zone of an exported `TZ`).
//! Everything works on bytes, as C's printf does: widths and precisions count bytes.

use super::escape;
use super::{done, fail, read_options, usage, write_out};
use crate::exec::Flow;
use crate::shell::Shell;
use common::cformat::{self, Amount, Spec};

mod number;

use number::{float_arg, signed_arg, unsigned_arg, Parsed};

pub fn printf(shell: &mut Shell, args: &[String]) -> Flow {
    let (given, index) = read_options!(shell, "printf", args, "v:");
    let target = given.value('v');
    if let Some(name) = &target {
        if !is_assignable(name) {
            return fail(shell, "printf", &format!("`{}': not a valid identifier", name), 2);
        }
    }
    let format = match args.get(index) {
        Some(format) => crate::text::to_bytes(format).into_owned(),
        None => return usage(shell, "printf", None),
    };
    let operands: Vec<Vec<u8>> = args[index + 1..].iter().map(|a| crate::text::to_bytes(a).into_owned()).collect();
    let mut formatter = Formatter { shell, status: 0, stop: false, next: 0, operands: &operands, out: Vec::new(), streaming: target.is_none() };
    loop {
        let before = formatter.next;
        formatter.format_once(&format);
        if formatter.stop || formatter.next >= operands.len() || formatter.next == before {
            break;
        }
    }
    let Formatter { status, out, .. } = formatter;
    match target {
        Some(name) => match shell.assign_named(&name, crate::text::from_bytes(&out)) {
            Ok(()) => done(shell, status),
            Err(crate::vars::AssignError::Readonly(name)) => {
                // bash words this one without the builtin's name.
                shell.report(&format!("{}: readonly variable", name));
                done(shell, 1)
            }
            Err(error) => fail(shell, "printf", &error.message(), 1),
        },
        None => {
            let ok = out.is_empty() || write_out(shell, "printf", &out);
            done(shell, if ok { status } else { 1 })
        }
    }
}

/// `name` or `name[subscript]`: what `-v` may assign to.
fn is_assignable(target: &str) -> bool {
    match target.find('[') {
        Some(open) => shell_parser::is_name(&target[..open]) && target.ends_with(']') && target.len() > open + 2,
        None => shell_parser::is_name(target),
    }
}

struct Formatter<'a, 's> {
    shell: &'s mut Shell,
    status: i32,
    /// `\c` in a `%b` argument, or an error that ends the output.
    stop: bool,
    next: usize,
    operands: &'a [Vec<u8>],
    out: Vec<u8>,
    /// Writing to stdout (not `-v`): what is pending goes out before a message, in order.
    streaming: bool,
}

impl<'a, 's> Formatter<'a, 's> {
    fn next_arg(&mut self) -> Option<&'a [u8]> {
        let arg = self.operands.get(self.next).map(Vec::as_slice);
        if arg.is_some() {
            self.next += 1;
        }
        arg
    }

    /// A message on stderr. bash's stdout is line-buffered (`sh_setlinebuf`), so the
    /// complete lines printed so far go out before the message and a partial line after it.
    fn warn(&mut self, message: &str) {
        let complete = if self.streaming { self.out.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) } else { 0 };
        if complete > 0 {
            let pending: Vec<u8> = self.out.drain(..complete).collect();
            if !write_out(self.shell, "printf", &pending) {
                self.status = 1;
                self.stop = true;
            }
        }
        self.shell.report(&format!("printf: {}", message));
    }

    /// Reports what a number conversion found wrong with its argument.
    fn check<T>(&mut self, parsed: Parsed<T>, arg: &[u8]) -> T {
        let text = String::from_utf8_lossy(arg).into_owned();
        match parsed {
            Parsed::Ok(value) => value,
            Parsed::Invalid(value) => {
                self.warn(&format!("{}: invalid number", text));
                self.status = 1;
                value
            }
            Parsed::OutOfRange(value) => {
                self.warn(&format!("warning: {}: Numerical result out of range", text));
                value
            }
        }
    }

    /// The next argument read by `parse` (warning as bash does), or zero when none is left.
    fn number<T: Default>(&mut self, parse: fn(&[u8]) -> Parsed<T>) -> T {
        match self.next_arg() {
            Some(arg) => {
                let parsed = parse(arg);
                self.check(parsed, arg)
            }
            None => T::default(),
        }
    }

    fn signed(&mut self) -> i64 {
        self.number(signed_arg)
    }

    /// One pass over the format.
    fn format_once(&mut self, format: &[u8]) {
        let mut i = 0;
        while i < format.len() && !self.stop {
            match format[i] {
                b'\\' => {
                    let mut warnings = Vec::new();
                    i += 1 + escape::expand(&format[i + 1..], &mut self.out, escape::Mode::Format, &mut warnings).used;
                    for warning in warnings {
                        self.warn(&warning);
                    }
                }
                b'%' if format.get(i + 1) == Some(&b'%') => {
                    self.out.push(b'%');
                    i += 2;
                }
                b'%' => i = self.directive(format, i),
                byte => {
                    self.out.push(byte);
                    i += 1;
                }
            }
        }
    }

    /// Runs the conversion starting at `format[start]` (a `%`); where the format goes on.
    fn directive(&mut self, format: &[u8], start: usize) -> usize {
        // Flags, width, precision and length modifiers as C's printf reads them; any byte
        // may follow (an unknown one is reported by `convert`).
        let parsed = match cformat::parse_directive(&format[start + 1..], &cformat::ANY_CONVERSION) {
            Some(parsed) => parsed,
            None => {
                let text = String::from_utf8_lossy(&format[start..]).into_owned();
                self.warn(&format!("`{}': missing format character", text));
                self.status = 1;
                self.stop = true;
                return format.len();
            }
        };
        let mut spec = parsed.spec;
        // `*` takes the width, then the precision, from the arguments.
        if parsed.width == Amount::Star {
            let width = self.star();
            spec.minus |= width < 0;
            spec.width = Some(width.unsigned_abs() as usize);
        }
        if parsed.precision == Amount::Star {
            let precision = self.star();
            spec.precision = if precision < 0 { None } else { Some(precision as usize) };
        }
        let end = start + 1 + parsed.length;
        if spec.conversion == b'(' {
            return self.time(format, start, end - 1, spec);
        }
        self.convert(spec);
        end
    }

    /// A `*` width or precision: an int, clamped as bash clamps it.
    fn star(&mut self) -> i64 {
        let value = self.signed();
        value.clamp(i32::MIN as i64, i32::MAX as i64)
    }

    /// One conversion of `spec` (its width and precision resolved).
    fn convert(&mut self, spec: Spec) {
        match spec.conversion {
            b's' => {
                let arg = self.next_arg().unwrap_or_default();
                self.out.extend(cformat::format_bytes(&spec, arg));
            }
            b'c' => {
                // The first byte (a NUL when there is none), as C's %c of getchr().
                let arg = self.next_arg().unwrap_or_default();
                let byte = [arg.first().copied().unwrap_or(0)];
                self.out.extend(cformat::format_bytes(&Spec { conversion: b's', precision: None, ..spec }, &byte));
            }
            b'b' => {
                let arg = self.next_arg().unwrap_or_default();
                let mut expanded = Vec::new();
                let mut warnings = Vec::new();
                let stop = escape::expand_all(arg, &mut expanded, escape::Mode::Argument, &mut warnings);
                for warning in warnings {
                    self.warn(&warning);
                }
                self.out.extend(cformat::format_bytes(&Spec { conversion: b's', ..spec }, &expanded));
                self.stop |= stop;
            }
            b'q' | b'Q' => {
                let arg = self.next_arg().unwrap_or_default();
                // %Q applies the precision to the argument before quoting it.
                let arg = match (spec.conversion, spec.precision) {
                    (b'Q', Some(p)) if p < arg.len() => &arg[..p],
                    _ => arg,
                };
                let quoted = crate::text::printf_quote(&crate::text::from_bytes(arg));
                let precision = if spec.conversion == b'Q' { None } else { spec.precision };
                self.out.extend(cformat::format_bytes(&Spec { conversion: b's', precision, ..spec }, &crate::text::to_bytes(&quoted)));
            }
            b'd' | b'i' => {
                let value = self.signed();
                self.out.extend(cformat::format_signed(&spec, value));
            }
            b'o' | b'u' | b'x' | b'X' => {
                let value = self.number(unsigned_arg);
                self.out.extend(cformat::format_unsigned(&spec, value));
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
                let value = self.number(float_arg);
                self.out.extend(cformat::format_float(&spec, value));
            }
            other => {
                let text = crate::text::from_bytes(&[other]);
                self.warn(&format!("`{}': invalid format character", text));
                self.status = 1;
                self.stop = true;
            }
        }
    }

    /// `%(fmt)T` starting at `format[start]` (the `%`), with `(` at `open`.
    fn time(&mut self, format: &[u8], start: usize, open: usize, spec: Spec) -> usize {
        let mut depth = 1;
        let mut close = open + 1;
        while close < format.len() {
            match format[close] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            close += 1;
        }
        if format.get(close + 1) != Some(&b'T') {
            // bash warns, prints the `%` and goes on with the text after it.
            let found = format.get(close + 1).map(|&c| crate::text::from_bytes(&[c])).unwrap_or_default();
            self.warn(&format!("warning: `{}': invalid time format specification", found));
            self.out.push(b'%');
            return start + 1;
        }
        let mut time_format = format[open + 1..close.min(format.len())].to_vec();
        if time_format.is_empty() {
            time_format = b"%X".to_vec();
        }
        let now = (self.shell.sys.now_ns() / 1_000_000_000) as i64;
        let secs = match self.next_arg() {
            None => now,
            Some(arg) => {
                let parsed = signed_arg(arg);
                match self.check(parsed, arg) {
                    -1 => now,
                    -2 => now - (self.shell.sys.monotonic_ns().wrapping_sub(self.shell.start_ns) / 1_000_000_000) as i64,
                    secs => secs,
                }
            }
        };
        let (offset, zone) = self.shell.time_zone();
        let moment = common::strftime::Moment::new(secs, 0, offset, &zone);
        let mut text = common::strftime::format_libc(&time_format, &moment);
        // strftime into bash's 128-byte buffer: a longer result is empty.
        if text.len() > 127 {
            text.clear();
        }
        self.out.extend(cformat::format_bytes(&Spec { conversion: b's', ..spec }, &text));
        close + 2
    }
}

impl Shell {
    /// The offset (seconds east of UTC) and zone name `%(...)T` uses: those of `TZ` when
    /// it is exported (bash hands only an exported TZ to the C library), else UTC. Zone
    /// names without an offset (`Europe/Paris`) are UTC: the sandbox has no zone database.
    pub(crate) fn time_zone(&mut self) -> (i64, String) {
        let exported = self.vars.get("TZ").map_or(false, |v| v.has(crate::vars::attr::EXPORT));
        match self.get_scalar("TZ").filter(|_| exported) {
            Some(tz) => (common::timefmt::offset_of(&tz), common::timefmt::zone_abbreviation(&tz)),
            None => (0, "UTC".to_string()),
        }
    }
}
