//! Building fields from expanded pieces: IFS word splitting of unquoted expansion results,
//! and a parallel pattern (quoted characters escaped) for pathname expansion.

/// How a piece of text entered the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// Unquoted text from the source: globbed, not split.
    Literal,
    /// Quoted text: neither split nor globbed.
    Quoted,
    /// An unquoted expansion result: split on IFS and globbed.
    Expanded,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Field {
    pub text: String,
    /// The text with quoted pattern characters escaped.
    pub pattern: String,
    /// Whether an unquoted `*`, `?` or `[` (or extglob group) appears.
    pub has_glob: bool,
}

pub struct Fields {
    done: Vec<Field>,
    current: Field,
    /// The current field exists even if empty (it had quotes or content).
    started: bool,
    /// IFS whitespace was seen: the next content starts a new field.
    pending_split: bool,
    ifs_white: Vec<char>,
    ifs_other: Vec<char>,
    split: bool,
    extglob: bool,
}

impl Fields {
    /// A builder that splits unquoted expansions on `ifs` (`None`: IFS unset, so the
    /// default blanks).
    pub fn splitting(ifs: Option<&str>, extglob: bool) -> Fields {
        let ifs = ifs.unwrap_or(" \t\n");
        let ifs_white = ifs.chars().filter(|c| matches!(c, ' ' | '\t' | '\n')).collect();
        let ifs_other = ifs.chars().filter(|c| !matches!(c, ' ' | '\t' | '\n')).collect();
        Fields {
            done: Vec::new(),
            current: Field::default(),
            started: false,
            pending_split: false,
            ifs_white,
            ifs_other,
            split: !ifs.is_empty(),
            extglob,
        }
    }

    /// A builder that never splits (assignments, redirection targets, `[[ ]]`).
    pub fn whole(extglob: bool) -> Fields {
        let mut fields = Fields::splitting(Some(""), extglob);
        fields.started = true;
        fields
    }

    fn start_new_if_pending(&mut self) {
        if self.pending_split {
            self.pending_split = false;
            if self.started {
                self.emit();
            }
        }
    }

    fn emit(&mut self) {
        let field = std::mem::take(&mut self.current);
        self.done.push(field);
        self.started = false;
    }

    fn push_char(&mut self, c: char, active: bool) {
        self.current.text.push(c);
        if active {
            if matches!(c, '*' | '?' | '[') {
                self.current.has_glob = true;
            } else if self.extglob && c == '(' && matches!(self.current.pattern.chars().last(), Some('+' | '@' | '!')) {
                self.current.has_glob = true;
            }
            self.current.pattern.push(c);
        } else {
            // `&` too: a quoted `&` in a `${x/p/r}` replacement is literal.
            if matches!(c, '*' | '?' | '[' | ']' | '\\' | '(' | ')' | '|' | '@' | '!' | '+' | '&') {
                self.current.pattern.push('\\');
            }
            self.current.pattern.push(c);
        }
        self.started = true;
    }

    pub fn push_literal(&mut self, text: &str) {
        self.start_new_if_pending();
        for c in text.chars() {
            self.push_char(c, true);
        }
        self.started = true;
    }

    pub fn push_quoted(&mut self, text: &str) {
        self.start_new_if_pending();
        for c in text.chars() {
            self.push_char(c, false);
        }
        self.started = true;
    }

    /// Pattern text from an unquoted expansion inside a pattern context, taken as is.
    pub fn push_pattern(&mut self, text: &str) {
        self.start_new_if_pending();
        self.current.text.push_str(text);
        self.current.pattern.push_str(text);
        self.started = true;
    }

    /// An unquoted expansion result: split on IFS.
    pub fn push_expanded(&mut self, text: &str) {
        if !self.split {
            if !text.is_empty() {
                self.start_new_if_pending();
                for c in text.chars() {
                    self.push_char(c, true);
                }
            }
            return;
        }
        for c in text.chars() {
            if self.ifs_white.contains(&c) {
                if self.started {
                    self.pending_split = true;
                }
            } else if self.ifs_other.contains(&c) {
                self.pending_split = false;
                self.emit();
            } else {
                self.start_new_if_pending();
                self.push_char(c, true);
            }
        }
    }

    /// Ends the current field even if empty (between the words of `"$@"`).
    pub fn field_break(&mut self) {
        self.pending_split = false;
        self.emit();
    }

    /// Separates the words of an unquoted `$@`: like IFS whitespace, a boundary that only
    /// matters if more text follows.
    pub fn soft_break(&mut self) {
        if self.started {
            self.pending_split = true;
        }
    }

    /// Marks the current field as present even if it stays empty (`""`).
    pub fn mark_started(&mut self) {
        self.start_new_if_pending();
        self.started = true;
    }

    pub fn finish(mut self) -> Vec<Field> {
        if self.started {
            self.emit();
        }
        self.done
    }

    /// The single string of a non-splitting builder.
    pub fn into_string(self) -> String {
        let mut fields = self.finish();
        if fields.len() == 1 {
            return fields.pop().map(|f| f.text).unwrap_or_default();
        }
        fields.into_iter().map(|f| f.text).collect::<Vec<_>>().join(" ")
    }

    /// The single pattern of a non-splitting builder.
    pub fn into_pattern(self) -> String {
        self.finish().into_iter().map(|f| f.pattern).collect::<Vec<_>>().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(ifs: &str, text: &str) -> Vec<String> {
        let mut fields = Fields::splitting(Some(ifs), false);
        fields.push_expanded(text);
        fields.finish().into_iter().map(|f| f.text).collect()
    }

    #[test]
    fn splits_like_posix() {
        assert_eq!(split(" \t\n", "  a  b "), ["a", "b"]);
        assert_eq!(split(", ", "a, b,,c,"), ["a", "b", "", "c"]);
        assert_eq!(split(",", ",a"), ["", "a"]);
        assert!(split(" ", "   ").is_empty());
    }

    #[test]
    fn literal_text_joins_split_results() {
        let mut fields = Fields::splitting(None, false);
        fields.push_literal("x");
        fields.push_expanded("1 2");
        fields.push_literal("y");
        let texts: Vec<String> = fields.finish().into_iter().map(|f| f.text).collect();
        assert_eq!(texts, ["x1", "2y"]);
    }

    #[test]
    fn quoted_empty_makes_a_field() {
        let mut fields = Fields::splitting(None, false);
        fields.mark_started();
        assert_eq!(fields.finish().len(), 1);
        let fields = Fields::splitting(None, false);
        assert_eq!(fields.finish().len(), 0);
    }

    #[test]
    fn quoted_glob_chars_are_escaped() {
        let mut fields = Fields::splitting(None, false);
        fields.push_quoted("*");
        fields.push_literal("*");
        let field = fields.finish().pop().unwrap();
        assert_eq!(field.pattern, "\\**");
        assert!(field.has_glob);
    }
}
