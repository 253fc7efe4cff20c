//! [`Codec`](crate::codec::Codec) for every syntax-tree type. Tags are part of the format
//! between a shell and the child processes it spawns (same binary), and of saved session
//! state (versioned by the shell).

use crate::ast::*;
use crate::{codec_enum, codec_struct};

codec_struct!(List { items });
codec_struct!(ListItem { and_or, background });
codec_struct!(AndOr { first, rest });
codec_enum!(AndOrOp { 0 => And, 1 => Or });
codec_struct!(Pipeline { negated, timed, commands, pipe_stderr, line });
codec_enum!(TimeMode { 0 => Bash, 1 => Posix });
codec_enum!(Command { 0 => Simple(a), 1 => Compound(a, b), 2 => Function(a) });
codec_struct!(SimpleCommand { assignments, words, redirects, line });
codec_struct!(FunctionDef { name, body, redirects, keyword, line });
codec_enum!(CompoundCommand {
    0 => Brace(a), 1 => Subshell(a), 2 => If(a), 3 => For(a), 4 => ArithFor(a), 5 => While(a),
    6 => Case(a), 7 => Select(a), 8 => Arith(a), 9 => Cond(a),
});
codec_struct!(IfCommand { branches, else_body, line });
codec_struct!(ForCommand { var, words, body, line });
codec_struct!(ArithForCommand { text, init, cond, step, body, line });
codec_struct!(WhileCommand { until, cond, body, line });
codec_struct!(CaseCommand { subject, arms, line });
codec_struct!(CaseArm { patterns, body, terminator });
codec_enum!(CaseTerminator { 0 => Break, 1 => FallThrough, 2 => Continue });
codec_struct!(ArithCommand { expr, text, line });
codec_struct!(CondCommand { expr, line });
codec_enum!(CondExpr {
    0 => Unary(a, b), 1 => Binary(a, b, c), 2 => Pattern { subject, pattern, negated }, 3 => Regex(a, b),
    4 => Word(a), 5 => Not(a), 6 => And(a, b), 7 => Or(a, b),
});
codec_struct!(Assignment { name, subscript, append, value });
codec_enum!(AssignValue { 0 => Scalar(a), 1 => Array(a) });
codec_enum!(ArrayElement { 0 => Plain(a), 1 => Keyed { key, value, append } });
codec_struct!(Redirect { fd, op, target });
codec_enum!(RedirFd { 0 => Number(a), 1 => Var(a) });
codec_enum!(RedirOp {
    0 => Input, 1 => Output, 2 => Clobber, 3 => Append, 4 => ReadWrite, 5 => DupInput, 6 => DupOutput,
    7 => OutputBoth, 8 => AppendBoth, 9 => HereDoc, 10 => HereString,
});
codec_enum!(RedirTarget { 0 => Word(a), 1 => HereDoc(a) });
codec_struct!(HereDoc { delimiter, quoted, strip_tabs, body });
codec_struct!(Word { parts });
codec_enum!(WordPart {
    0 => Literal(a), 1 => Quoted(a), 2 => DoubleQuoted(a), 3 => AnsiQuoted(a), 4 => Tilde(a), 5 => Param(a),
    6 => CommandSubst { body, backquote }, 7 => Arith(a, b), 8 => ProcessSubst { body, output }, 9 => Brace(a),
    10 => Assign(a), 11 => BadSubst(a),
});
codec_enum!(BraceExpr { 0 => Alternatives(a), 1 => Sequence { start, end, step } });
codec_struct!(ParamExpansion { param, op, indirect, short });
codec_enum!(Param { 0 => Var { name, index }, 1 => Positional(a), 2 => Special(a) });
codec_enum!(Subscript { 0 => At, 1 => Star, 2 => Index(a) });
codec_enum!(ReplaceMode { 0 => First, 1 => All, 2 => Prefix, 3 => Suffix });
codec_enum!(ParamOp {
    0 => None, 1 => Length, 2 => Default { colon, word }, 3 => Assign { colon, word }, 4 => Error { colon, word },
    5 => Alternate { colon, word }, 6 => RemovePrefix { longest, pattern }, 7 => RemoveSuffix { longest, pattern },
    8 => Replace { mode, pattern, replacement }, 9 => Substring { offset, length }, 10 => Case { mode, all, pattern },
    11 => Transform(a), 12 => PrefixNames { star }, 13 => Keys { star },
});
codec_enum!(CaseMode { 0 => Upper, 1 => Lower, 2 => Toggle });
codec_enum!(Arith {
    0 => Number(a), 1 => Var(a), 2 => Element(a, b, c), 3 => Unary(a, b), 4 => Binary(a, b, c), 5 => Assign(a, b, c),
    6 => IncDec { target, increment, prefix }, 7 => Conditional(a, b, c), 8 => Comma(a, b), 9 => Dynamic(a),
});
codec_enum!(UnaryOp { 0 => Plus, 1 => Minus, 2 => Not, 3 => BitNot });
codec_enum!(BinaryOp {
    0 => Add, 1 => Sub, 2 => Mul, 3 => Div, 4 => Rem, 5 => Pow, 6 => Shl, 7 => Shr, 8 => Lt, 9 => Le, 10 => Gt,
    11 => Ge, 12 => Eq, 13 => Ne, 14 => BitAnd, 15 => BitXor, 16 => BitOr, 17 => And, 18 => Or,
});

#[cfg(test)]
mod tests {
    use crate::codec::{from_bytes, to_bytes};

    #[test]
    fn round_trips_a_program() {
        let source = "a=(1 [2]=x) b=${c:-d} cmd <<EOF >&2\nbody $x\nEOF\nif [[ $x =~ ^a ]]; then (( y += 2 ** 3 )); fi\n\
                      f() { case $1 in a|b) echo {1..3} $(( $z + 1 ));; esac; } | cat <(echo hi)\n";
        let list = crate::parse(source).unwrap();
        let bytes = to_bytes(&list);
        let back: crate::ast::List = from_bytes(&bytes).unwrap();
        assert_eq!(back, list);
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        for len in 0..64 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let _ = from_bytes::<crate::ast::List>(&bytes);
        }
    }
}
