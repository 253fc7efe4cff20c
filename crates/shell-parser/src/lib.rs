//! Bash source to a typed syntax tree.
//!
//! - [`Parser`] reads a program one complete command at a time (as bash does, so aliases and
//!   syntax errors take effect line by line); it never panics and never loops on any input.
//! - [`ast`] is the tree: words are typed parts, arithmetic and `[[ ]]` are trees.
//! - [`printer`] turns a tree back into source in bash's layout (`declare -f`, `type`).
//! - [`codec`] is a compact binary form of the tree (and of anything else the shell sends
//!   to its child processes), so a subshell gets its commands without re-parsing.

pub mod arith;
pub mod ast;
mod ast_codec;
pub mod bytes;
pub mod codec;
pub mod error;
mod parser;
pub mod printer;

pub use error::{ErrorKind, ParseError};
pub use parser::{ansi_c_unescape, is_name, tilde_pass, AliasLookup, Parser};

/// Parses text with `$`, `` ` `` and `\` expansions only, like a here-document body
/// (prompt strings such as PS4).
pub fn parse_text(text: &str) -> Result<ast::Word, ParseError> {
    let mut parser = Parser::new(text);
    Ok(ast::Word { parts: parser.read_embedded(parser::Embedded::HereDoc)? })
}

/// Parses a whole program at once (no aliases).
pub fn parse(source: &str) -> Result<ast::List, ParseError> {
    Parser::new(source).parse_program()
}
