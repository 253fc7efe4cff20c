use super::*;

fn parse(source: &str) -> List {
    match Parser::new(source).parse_program() {
        Ok(list) => list,
        Err(error) => panic!("{:?}: {}", source, error),
    }
}

fn simple(list: &List) -> &SimpleCommand {
    match &list.items[0].and_or.first.commands[0] {
        Command::Simple(simple) => simple,
        other => panic!("not simple: {:?}", other),
    }
}

#[test]
fn simple_command_words() {
    let list = parse("echo hello 'world' \"$x\"\n");
    let cmd = simple(&list);
    assert_eq!(cmd.words.len(), 4);
    assert_eq!(cmd.words[2].parts, vec![WordPart::Quoted("world".into())]);
}

#[test]
fn assignments_and_redirects() {
    let list = parse("a=1 b+=2 c[3]=x cmd >out 2>&1 <in\n");
    let cmd = simple(&list);
    assert_eq!(cmd.assignments.len(), 3);
    assert!(cmd.assignments[1].append);
    assert_eq!(cmd.redirects.len(), 3);
    assert_eq!(cmd.redirects[1].fd, Some(RedirFd::Number(2)));
    assert_eq!(cmd.redirects[1].op, RedirOp::DupOutput);
}

#[test]
fn lists_and_pipelines() {
    let list = parse("a | b |& c && ! d || e & f; g");
    assert_eq!(list.items.len(), 3);
    assert!(list.items[0].background);
    let and_or = &list.items[0].and_or;
    assert_eq!(and_or.first.commands.len(), 3);
    assert_eq!(and_or.first.pipe_stderr, vec![false, true]);
    assert!(and_or.rest[0].1.negated);
}

#[test]
fn compound_commands() {
    parse("if a; then b; elif c; then d; else e; fi");
    parse("for i in 1 2 3; do echo $i; done");
    parse("for ((i=0; i<3; i++)); do echo $i; done");
    parse("while read x; do :; done < file");
    parse("case $x in a|b) echo ab;; (c) echo c;& *) echo d;;& esac");
    parse("{ a; b; } > out");
    parse("(a; b) | c");
    parse("f() { echo hi; }");
    parse("function g { echo hi; }");
    parse("function h() ( echo sub )");
    parse("[[ -f x && $a == b* || ! -z \"$c\" ]]");
    parse("[[ $x =~ ^(a|b)+[0-9]{2}$ ]]");
    parse("(( x = 1 + 2 ))");
    parse("select x in a b; do break; done");
}

#[test]
fn heredocs() {
    let list = parse("cat <<EOF\nhello $x\nEOF\ncat <<-'E'\n\tliteral $y\n\tE\n");
    let first = simple(&list);
    match &first.redirects[0].target {
        RedirTarget::HereDoc(doc) => {
            assert!(!doc.quoted);
            assert_eq!(doc.body.borrow().parts.len(), 3);
        }
        _ => panic!(),
    }
}

#[test]
fn parameter_expansions() {
    for source in [
        "${x}", "${x:-a b}", "${x:=1}", "${x:?msg}", "${x:+alt}", "${#x}", "${x#p}", "${x##p}", "${x%p}", "${x%%p}",
        "${x/a/b}", "${x//a/b}", "${x/#a/b}", "${x/%a/b}", "${x:1:2}", "${x: -1}", "${x^}", "${x^^}", "${x,}", "${x,,}",
        "${!x}", "${!pre*}", "${!a[@]}", "${a[@]}", "${#a[@]}", "${a[i+1]}", "${x@Q}", "${!#}",
    ] {
        let list = parse(&format!("echo {}", source));
        let word = &simple(&list).words[1];
        assert!(matches!(word.parts[0], WordPart::Param(_)), "{}: {:?}", source, word);
    }
}

#[test]
fn bad_substitution_is_deferred() {
    let list = parse("echo ${x!}");
    assert!(matches!(simple(&list).words[1].parts[0], WordPart::BadSubst(_)));
}

#[test]
fn brace_expansion_detected() {
    let list = parse("echo a{b,c}d {1..3} {x} '{a,b}'");
    let words = &simple(&list).words;
    assert!(matches!(words[1].parts[1], WordPart::Brace(_)));
    assert!(matches!(words[2].parts[0], WordPart::Brace(_)));
    assert_eq!(words[3].parts, vec![WordPart::Literal("{x}".into())]);
    assert_eq!(words[4].parts, vec![WordPart::Quoted("{a,b}".into())]);
}

#[test]
fn tilde_prefixes() {
    let list = parse("echo ~ ~/x ~root a~ PATH=~/a:~/b");
    let words = &simple(&list).words;
    assert_eq!(words[1].parts, vec![WordPart::Tilde(String::new())]);
    assert_eq!(words[2].parts[0], WordPart::Tilde(String::new()));
    assert_eq!(words[3].parts, vec![WordPart::Tilde("root".into())]);
    assert_eq!(words[4].parts, vec![WordPart::Literal("a~".into())]);
    let list = parse("PATH=~/a:~/b");
    match &simple(&list).assignments[0].value {
        AssignValue::Scalar(word) => assert_eq!(word.parts.iter().filter(|p| matches!(p, WordPart::Tilde(_))).count(), 2),
        _ => panic!(),
    }
}

#[test]
fn command_substitutions_nest() {
    let list = parse("echo $(echo $(echo a) `echo b`) $((1 + $(echo 2)))");
    assert!(matches!(simple(&list).words[1].parts[0], WordPart::CommandSubst { .. }));
    assert!(matches!(simple(&list).words[2].parts[0], WordPart::Arith(..)));
}

#[test]
fn arrays() {
    let list = parse("a=(1 2 [5]=x \"y z\")");
    match &simple(&list).assignments[0].value {
        AssignValue::Array(elements) => assert_eq!(elements.len(), 4),
        _ => panic!(),
    }
    let list = parse("declare -A m=([k]=v)");
    assert!(matches!(simple(&list).words[2].parts[0], WordPart::Assign(_)));
}

#[test]
fn syntax_errors_read_like_bash() {
    let error = Parser::new("echo )").parse_program().unwrap_err();
    assert_eq!(error.to_string(), "syntax error near unexpected token `)'");
    let error = Parser::new("if true; then").parse_program().unwrap_err();
    assert_eq!(error.to_string(), "syntax error: unexpected end of file");
    let error = Parser::new("echo 'abc").parse_program().unwrap_err();
    assert_eq!(error.to_string(), "unexpected EOF while looking for matching `''");
    let error = Parser::new("a\nb\nfi").parse_program().unwrap_err();
    assert_eq!(error.line, 3);
}

#[test]
fn line_at_a_time() {
    let mut parser = Parser::new("echo a; echo b\necho c\n\n# comment\necho d");
    assert_eq!(parser.next_command().unwrap().unwrap().items.len(), 2);
    assert_eq!(parser.next_command().unwrap().unwrap().items.len(), 1);
    assert_eq!(parser.next_command().unwrap().unwrap().items.len(), 1);
    assert!(parser.next_command().unwrap().is_none());
}

#[test]
fn aliases_expand_in_command_position() {
    let lookup = |name: &str| if name == "ll" { Some("echo long".to_string()) } else { None };
    let mut parser = Parser::with_aliases("ll x; echo ll", &lookup);
    let list = parser.parse_program().unwrap();
    let first = simple(&list);
    assert_eq!(first.words.len(), 3);
    match &list.items[1].and_or.first.commands[0] {
        Command::Simple(cmd) => assert_eq!(cmd.words[1].as_unquoted_literal(), Some("ll")),
        _ => panic!(),
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let source = "(".repeat(10_000);
    assert!(Parser::new(&source).parse_program().is_err());
    let source = "$(".repeat(10_000);
    assert!(Parser::new(&format!("echo {}", source)).parse_program().is_err());
}
