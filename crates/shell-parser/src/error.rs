//! Syntax errors, worded like bash's so that messages match what users know.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// The line the error was found on (1-based).
    pub line: u32,
    pub kind: ErrorKind,
    /// The source line, which bash prints after the message (`` `echo )' ``).
    pub source_line: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind {
    /// `syntax error near unexpected token `X'`
    UnexpectedToken(String),
    /// `syntax error: unexpected end of file`
    UnexpectedEof,
    /// `unexpected EOF while looking for matching `X'`
    Unmatched(char),
    /// Nesting deeper than the parser allows (bash would overflow its stack).
    TooDeep,
    /// Any other message, already worded.
    Message(String),
    /// A malformed `[[ ]]`: bash's messages, each with its line (none for `[[ ]]`).
    Conditional(Vec<(u32, String)>),
}

impl ParseError {
    /// Whether more input could complete the command (used by an interactive reader to
    /// ask for a continuation line rather than report an error).
    pub fn is_incomplete(&self) -> bool {
        matches!(self.kind, ErrorKind::UnexpectedEof | ErrorKind::Unmatched(_))
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnexpectedToken(token) => write!(f, "syntax error near unexpected token `{}'", token),
            ErrorKind::UnexpectedEof => f.write_str("syntax error: unexpected end of file"),
            ErrorKind::Unmatched(c) => write!(f, "unexpected EOF while looking for matching `{}'", c),
            ErrorKind::TooDeep => f.write_str("syntax error: nesting too deep"),
            ErrorKind::Message(message) => f.write_str(message),
            ErrorKind::Conditional(messages) => {
                let texts: Vec<&str> = messages.iter().map(|(_, m)| m.as_str()).collect();
                f.write_str(&texts.join("; "))
            }
        }
    }
}

impl std::error::Error for ParseError {}
