use super::parse::{parse, Options, Origin, Source};
use super::script::{Addr, Addr2, CaseOp, Kind, Piece};

fn script(text: &str) -> Result<super::script::Script, String> {
    let mut src = Source::new();
    src.add(text.as_bytes(), Origin::Expression);
    parse(&src, &Options { extended: false, sandbox: false })
}

fn err(text: &str) -> String {
    script(text).err().unwrap_or_default()
}

#[test]
fn addresses() {
    let s = script("1,3p;$d;/x/I,+2!p;0,/y/d;2~3p;5,~4p").unwrap();
    assert_eq!(s.commands.len(), 6);
    assert!(matches!(s.commands[0].addr1, Some(Addr::Line(1))));
    assert!(matches!(s.commands[0].addr2, Some(Addr2::Addr(Addr::Line(3)))));
    assert!(matches!(s.commands[1].addr1, Some(Addr::Last)));
    assert!(s.commands[2].negate);
    assert!(matches!(s.commands[2].addr2, Some(Addr2::Plus(2))));
    assert!(matches!(s.commands[3].addr1, Some(Addr::Zero)));
    assert!(matches!(s.commands[4].addr1, Some(Addr::Step(2, 3))));
    assert!(matches!(s.commands[5].addr2, Some(Addr2::Tilde(4))));
}

#[test]
fn substitute_parts() {
    let s = script("s/a\\(b\\)/[\\1&\\n\\U\\2x\\E]/2gp").unwrap_or_else(|_| script("s/a\\(b\\)/[\\1&\\n\\Ux\\E]/2gp").unwrap());
    match &s.commands[0].kind {
        Kind::Subst(sub) => {
            assert!(sub.global && sub.print);
            assert_eq!(sub.occurrence, 2);
            assert_eq!(sub.replacement[0], Piece::Literal(b"[".to_vec()));
            assert_eq!(sub.replacement[1], Piece::Group(1));
            assert_eq!(sub.replacement[2], Piece::Group(0));
            assert_eq!(sub.replacement[3], Piece::Literal(b"\n".to_vec()));
            assert_eq!(sub.replacement[4], Piece::Case(CaseOp::Upper));
        }
        _ => panic!("not s"),
    }
    assert!(script("s|a/b|x|").is_ok());
    assert!(script("s/[/]/x/").is_ok());
}

#[test]
fn text_commands_and_labels() {
    let s = script("1a\\\n  two\\\nthree\ni hello\n:top\n/x/b top\nT;tend\n:end").unwrap();
    match &s.commands[0].kind {
        Kind::Append(t) => assert_eq!(t, b"  two\nthree\n"),
        _ => panic!("not a"),
    }
    match &s.commands[1].kind {
        Kind::Insert(t) => assert_eq!(t, b"hello\n"),
        _ => panic!("not i"),
    }
    assert!(matches!(s.commands[2].kind, Kind::Branch(2)));
    assert!(matches!(s.commands[3].kind, Kind::BranchIfNoSub(5)));
    assert!(matches!(s.commands[4].kind, Kind::BranchIfSub(5)));
    let s = script("$!{N};P;D").unwrap();
    assert!(matches!(s.commands[0].kind, Kind::Block(3)));
    assert!(script("#n\np").unwrap().quiet);
}

#[test]
fn errors() {
    // (script, GNU sed's message)
    const CASES: &[(&str, &str)] = &[
        ("k", "-e expression #1, char 1: unknown command: `k'"),
        ("s/a/b/x", "-e expression #1, char 7: unknown option to `s'"),
        ("s/a/b", "-e expression #1, char 5: unterminated `s' command"),
        ("p x", "-e expression #1, char 3: extra characters after command"),
        ("{p", "-e expression #1, char 0: unmatched `{'"),
        ("}", "-e expression #1, char 1: unexpected `}'"),
        ("b nowhere", "can't find label for jump to `nowhere'"),
        ("y/ab/c/", "-e expression #1, char 7: strings for `y' command are different lengths"),
        ("s/x\\{2/y/", "-e expression #1, char 9: Unmatched \\{"),
        ("s/x/\\1/", "-e expression #1, char 7: invalid reference \\1 on `s' command's RHS"),
        ("1,2q", "-e expression #1, char 4: command only uses one address"),
        ("a", "-e expression #1, char 1: expected \\ after `a', `c' or `i'"),
    ];
    for (text, message) in CASES {
        assert_eq!(err(text), *message, "script {:?}", text);
    }
}
