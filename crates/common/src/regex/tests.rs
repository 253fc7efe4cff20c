use super::*;

fn bre(p: &str) -> Regex {
    Regex::new(p.as_bytes(), Flavor::Basic, Flags::default()).unwrap()
}

fn ere(p: &str) -> Regex {
    Regex::new(p.as_bytes(), Flavor::Extended, Flags::default()).unwrap()
}

fn find(re: &Regex, hay: &str) -> Option<(usize, usize)> {
    re.find_at(hay.as_bytes(), 0)
}

/// (flavor, pattern, haystack, the first match): one row per case, in the groups they test.
const FINDS: &[(Flavor, &str, &str, Option<(usize, usize)>)] = &[
    // BRE operators and literal characters
    (Flavor::Basic, "a\\+b", "xaab", Some((1, 4))),
    (Flavor::Basic, "a+b", "aa+b", Some((1, 4))),
    (Flavor::Basic, "*a", "x*a", Some((1, 3))),
    (Flavor::Basic, "\\(*a\\)", "*a", Some((0, 2))),
    (Flavor::Basic, "^*", "*", Some((0, 1))),
    (Flavor::Basic, "a^b", "a^b", Some((0, 3))),
    (Flavor::Basic, "a$b", "a$b", Some((0, 3))),
    (Flavor::Basic, "a\\{2,3\\}", "aaaa", Some((0, 3))),
    (Flavor::Basic, "a\\|b", "xb", Some((1, 2))),
    (Flavor::Basic, "\\{1\\}a", "{1}a", Some((0, 4))),
    // ERE operators
    (Flavor::Extended, "a{2}", "aaa", Some((0, 2))),
    (Flavor::Extended, "a{1", "a{1", Some((0, 3))),
    (Flavor::Extended, "*a", "a", Some((0, 1))),
    (Flavor::Extended, "a)", "a)", Some((0, 2))),
    (Flavor::Extended, "(a|b)+", "xabba", Some((1, 5))),
    // leftmost-longest, as POSIX asks
    (Flavor::Extended, "a|ab", "ab", Some((0, 2))),
    (Flavor::Extended, "(a|ab)(c|bcd)(d*)", "abcd", Some((0, 4))),
    (Flavor::Extended, "(a*)(ab)?b?", "aab", Some((0, 3))),
    (Flavor::Extended, "x(a|ab)", "xab", Some((0, 3))),
    // brackets and classes
    (Flavor::Basic, "[]a]*", "]a]b", Some((0, 3))),
    (Flavor::Basic, "[^]a]", "]ab", Some((2, 3))),
    (Flavor::Basic, "[[:digit:]]\\+", "ab123c", Some((2, 5))),
    (Flavor::Basic, "[[:alpha:]]", "1é", Some((1, 3))),
    (Flavor::Basic, "[a-]", "x-", Some((1, 2))),
    // words and anchors
    (Flavor::Basic, "\\<b", "ab b", Some((3, 4))),
    (Flavor::Basic, "a\\>", "ab a", Some((3, 4))),
    (Flavor::Basic, "\\<", "  x", Some((2, 2))),
    (Flavor::Basic, "^b$", "a\nb\nc", None),
];

#[test]
fn first_matches() {
    for (flavor, pattern, hay, expected) in FINDS {
        let re = Regex::new(pattern.as_bytes(), *flavor, Flags::default()).unwrap();
        assert_eq!(find(&re, hay), *expected, "{:?} {:?} in {:?}", flavor, pattern, hay);
    }
}

#[test]
fn groups_and_backrefs() {
    let re = bre("\\(a*\\)b\\1");
    assert_eq!(find(&re, "xaabaa"), Some((1, 6)));
    assert_eq!(find(&re, "xaaba"), Some((2, 5)));
    let re = ere("(.)(.)\\2\\1");
    assert!(re.is_match(b"xabba"));
    assert!(!re.is_match(b"abab"));
    let mut caps = re.new_captures();
    assert!(re.captures_at(b"xabba", 0, &mut caps));
    assert_eq!(caps.get(1), Some((1, 2)));
    assert_eq!(caps.get(2), Some((2, 3)));
    let re = ere("(a|ab)(c|bcd)(d*)");
    let mut caps = re.new_captures();
    assert!(re.captures_at(b"abcd", 0, &mut caps));
    assert_eq!((caps.get(1), caps.get(2), caps.get(3)), (Some((0, 1)), Some((1, 4)), Some((4, 4))));
}

#[test]
fn brackets_and_classes() {
    assert!(bre("\\w").is_match("é".as_bytes()));
    assert!(!bre(".").is_match(b"\xff"));
    assert!(bre("\u{e9}").is_match("é".as_bytes()));
    assert!(Regex::new(b"\xff", Flavor::Basic, Flags::default()).unwrap().is_match(b"a\xffb"));
}

#[test]
fn words_and_anchors() {
    let w = Regex::new(b"@x", Flavor::Basic, Flags { whole_word: true, ..Flags::default() }).unwrap();
    assert_eq!(find(&w, "a@x @x"), Some((4, 6)));
    let nl = Regex::new(b"^b$", Flavor::Basic, Flags { newline: true, ..Flags::default() }).unwrap();
    assert_eq!(find(&nl, "a\nb\nc"), Some((2, 3)));
}

#[test]
fn case_insensitive() {
    let re = Regex::new("É[[:upper:]]".as_bytes(), Flavor::Basic, Flags { icase: true, ..Flags::default() }).unwrap();
    assert!(re.is_match("éa".as_bytes()));
    let re = Regex::new(b"\\(a\\)\\1", Flavor::Basic, Flags { icase: true, ..Flags::default() }).unwrap();
    assert!(re.is_match(b"aA"));
}

#[test]
fn errors() {
    let err = |p: &str, f| Regex::new(p.as_bytes(), f, Flags::default()).err().map(|e| e.to_string());
    assert_eq!(err("\\(", Flavor::Basic).as_deref(), Some("Unmatched ( or \\("));
    assert_eq!(err("\\)", Flavor::Basic).as_deref(), Some("Unmatched ) or \\)"));
    assert_eq!(err("(", Flavor::Extended).as_deref(), Some("Unmatched ( or \\("));
    assert_eq!(err("[a", Flavor::Basic).as_deref(), Some("Unmatched [, [^, [:, [., or [="));
    assert_eq!(err("[[:foo:]]", Flavor::Basic).as_deref(), Some("Invalid character class name"));
    assert_eq!(err("[z-a]", Flavor::Basic).as_deref(), Some("Invalid range end"));
    assert_eq!(err("a\\", Flavor::Basic).as_deref(), Some("Trailing backslash"));
    assert_eq!(err("\\1", Flavor::Basic).as_deref(), Some("Invalid back reference"));
    assert_eq!(err("a\\{1", Flavor::Basic).as_deref(), Some("Unmatched \\{"));
    assert_eq!(err("a\\{2,1\\}", Flavor::Basic).as_deref(), Some("Invalid content of \\{\\}"));
    assert_eq!(err("a{99999}", Flavor::Extended).as_deref(), Some("Regular expression too big"));
}
