//! Lexer and parser tests: tokens, regex-versus-division, statement termination rules.

use super::super::ast::{Expr, Pattern, Stmt};
use super::super::parser::parse;
use super::*;

fn tokens(src: &str) -> Vec<Tok> {
    let mut lex = Lexer::new(src.as_bytes());
    let mut out = Vec::new();
    loop {
        let t = lex.next_token().unwrap().tok;
        if t == Tok::Eof {
            return out;
        }
        out.push(t);
    }
}

#[test]
fn operators_longest_match() {
    assert_eq!(tokens("a += b ** 2 ^= 3"), vec![Tok::Name("a".into()), Tok::AddAssign, Tok::Name("b".into()), Tok::Caret, Tok::Number(2.0), Tok::PowAssign, Tok::Number(3.0)]);
    assert_eq!(tokens("x !~ y != z"), vec![Tok::Name("x".into()), Tok::NoMatch, Tok::Name("y".into()), Tok::Ne, Tok::Name("z".into())]);
    assert_eq!(tokens(">> > >= | || |&"), vec![Tok::Append, Tok::Gt, Tok::Ge, Tok::Pipe, Tok::Or, Tok::PipeAmp]);
}

#[test]
fn names_calls_and_keywords() {
    assert_eq!(tokens("f(x) g (y)"), vec![Tok::FuncName("f".into()), Tok::LParen, Tok::Name("x".into()), Tok::RParen, Tok::Name("g".into()), Tok::LParen, Tok::Name("y".into()), Tok::RParen]);
    assert_eq!(tokens("BEGIN getline func"), vec![Tok::Begin, Tok::Getline, Tok::Function]);
    assert!(matches!(tokens("length")[0], Tok::Builtin(_)));
}

#[test]
fn numbers_and_strings() {
    assert_eq!(tokens("1 .5 1e3 0x1F 011 1.5e-2"), vec![Tok::Number(1.0), Tok::Number(0.5), Tok::Number(1000.0), Tok::Number(31.0), Tok::Number(9.0), Tok::Number(0.015)]);
    assert_eq!(tokens(r#""a\tb\"c\101\x41""#), vec![Tok::Str(b"a\tb\"cAA".to_vec())]);
    let mut lex = Lexer::new(b"\"abc");
    assert!(lex.next_token().is_err());
}

#[test]
fn comments_and_continuations() {
    assert_eq!(tokens("a # comment\nb \\\n c"), vec![Tok::Name("a".into()), Tok::Newline, Tok::Name("b".into()), Tok::Name("c".into())]);
}

#[test]
fn regex_is_read_on_request() {
    let mut lex = Lexer::new(b"/a\\/b[/]c/ x");
    let slash = lex.next_token().unwrap();
    assert_eq!(slash.tok, Tok::Slash);
    assert_eq!(lex.regex_at(slash.start).unwrap(), b"a/b[/]c".to_vec());
    assert_eq!(lex.next_token().unwrap().tok, Tok::Name("x".into()));
    let mut unterminated = Lexer::new(b"/abc\n/");
    let t = unterminated.next_token().unwrap();
    assert!(unterminated.regex_at(t.start).is_err());
}

fn program(src: &str) -> super::super::ast::Program {
    parse(src.as_bytes()).map(|(p, _)| p).unwrap_or_else(|e| panic!("{}: {:?}", src, e))
}

fn fails(src: &str) -> bool {
    parse(src.as_bytes()).is_err()
}

fn begin_stmts(src: &str) -> Vec<Stmt> {
    let p = program(src);
    match &p.rules[0].action {
        Some(stmts) => stmts.iter().filter(|s| !matches!(s, Stmt::At(_))).cloned().collect(),
        None => Vec::new(),
    }
}

#[test]
fn division_versus_regex() {
    // After an operand, `/` divides; where an operand must start, it opens a regex.
    match &begin_stmts("BEGIN { x = a / b / c }")[0] {
        Stmt::Expr(Expr::Assign(_, rhs)) => assert!(matches!(**rhs, Expr::Binary(..))),
        other => panic!("{:?}", other),
    }
    match &begin_stmts("BEGIN { x = /b/ }")[0] {
        Stmt::Expr(Expr::Assign(_, rhs)) => assert!(matches!(**rhs, Expr::Regex(_))),
        other => panic!("{:?}", other),
    }
    // `/=` as an operator and as the start of a regex.
    match &begin_stmts("BEGIN { a /= 2 }")[0] {
        Stmt::Expr(Expr::AugAssign(..)) => {}
        other => panic!("{:?}", other),
    }
    let p = program("/=x/ { print }");
    assert!(matches!(p.rules[0].pattern, Pattern::Expr(Expr::Regex(_))));
    assert_eq!(p.regexes[0], b"=x".to_vec());
}

#[test]
fn statement_termination() {
    assert_eq!(begin_stmts("BEGIN { a = 1; b = 2 }").len(), 2);
    assert_eq!(begin_stmts("BEGIN { a = 1\n b = 2\n }").len(), 2);
    assert_eq!(begin_stmts("BEGIN { a = 1 }").len(), 1);
    assert_eq!(begin_stmts("BEGIN { ;; a = 1;; }").len(), 1);
    assert!(fails("BEGIN { a = 1 b = 2 = 3 }"));
    // else may follow a semicolon or newlines.
    assert_eq!(begin_stmts("BEGIN { if (x) print 1; else print 2 }").len(), 1);
    assert_eq!(begin_stmts("BEGIN { if (x) print 1\n\n else print 2 }").len(), 1);
    // Newlines are allowed after && || , { do else and after the ) of if/while/for.
    assert!(!fails("BEGIN { if (a &&\n b ||\n c)\n print \"x\",\n \"y\" }"));
    assert!(!fails("BEGIN { do\n x++\n while (x < 3) }"));
    assert!(!fails("BEGIN { for (i = 0; i < 3; i++)\n print i }"));
    assert!(fails("BEGIN { x = 1 +\n 2 }"));
}

#[test]
fn rules_and_items() {
    let p = program("BEGIN { } ; /a/ ; NR > 1 { print } END { }\nfunction f(a, b) { return a }");
    assert_eq!(p.rules.len(), 4);
    assert!(p.rules[1].action.is_none());
    assert_eq!(p.functions[0].params, 2);
    // A pattern alone on a line, and an action on the next line, are two rules.
    assert_eq!(program("/x/\n{ print }").rules.len(), 2);
    let range = program("/a/, /b/ { print }");
    assert!(matches!(range.rules[0].pattern, Pattern::Range(..)));
}

#[test]
fn print_redirection_and_grouping() {
    match &begin_stmts("BEGIN { print a, b > \"file\" }")[0] {
        Stmt::Print(args, Some(_)) => assert_eq!(args.len(), 2),
        other => panic!("{:?}", other),
    }
    match &begin_stmts("BEGIN { print (a > b) }")[0] {
        Stmt::Print(args, None) => assert_eq!(args.len(), 1),
        other => panic!("{:?}", other),
    }
    match &begin_stmts("BEGIN { print (a)(b) }")[0] {
        Stmt::Print(args, None) => assert!(matches!(args[0], Expr::Concat(..))),
        other => panic!("{:?}", other),
    }
    match &begin_stmts("BEGIN { print \"x\" | \"cat\" }")[0] {
        Stmt::Print(_, Some(_)) => {}
        other => panic!("{:?}", other),
    }
}

#[test]
fn precedence() {
    // Unary minus binds looser than ^; concatenation looser than binary minus.
    match &begin_stmts("BEGIN { x = -2^2 }")[0] {
        Stmt::Expr(Expr::Assign(_, rhs)) => assert!(matches!(**rhs, Expr::Neg(_))),
        other => panic!("{:?}", other),
    }
    match &begin_stmts("BEGIN { x = 1 \" \" -1 }")[0] {
        Stmt::Expr(Expr::Assign(_, rhs)) => match &**rhs {
            Expr::Concat(_, right) => assert!(matches!(**right, Expr::Binary(..))),
            other => panic!("{:?}", other),
        },
        other => panic!("{:?}", other),
    }
    // `cmd | getline` takes the whole concatenation as its command.
    match &begin_stmts("BEGIN { \"a\" \"b\" | getline x }")[0] {
        Stmt::Expr(Expr::Getline(_, Some(cmd), Some(_))) => assert!(matches!(**cmd, Expr::Concat(..))),
        other => panic!("{:?}", other),
    }
    // `(i, j) in arr`.
    match &begin_stmts("BEGIN { x = (1, 2) in a }")[0] {
        Stmt::Expr(Expr::Assign(_, rhs)) => assert!(matches!(&**rhs, Expr::In(subs, _) if subs.len() == 2)),
        other => panic!("{:?}", other),
    }
}

#[test]
fn errors_in_programs() {
    assert!(fails("BEGIN { print 1 +* 2 }"));
    assert!(fails("BEGIN { break }"));
    assert!(fails("BEGIN { return 1 }"));
    assert!(fails("BEGIN { next }"));
    assert!(fails("BEGIN { f(1) }"));
    assert!(fails("function f(a, a) { }"));
    assert!(fails("BEGIN { x = 1 / 0 }"));
    assert!(!fails("function f() { next } { f() }"));
}

#[test]
fn array_parameters_are_inferred() {
    let p = program("function f(a, b) { a[1] = b; g(b) } function g(c) { c[2] } BEGIN { f(x, y) }");
    assert_eq!(p.functions[0].array_params, vec![true, true]);
    assert_eq!(p.functions[1].array_params, vec![true]);
}
