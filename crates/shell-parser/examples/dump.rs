fn main() {
    let src = std::env::args().nth(1).unwrap_or_default();
    match shell_parser::parse(&src) {
        Ok(list) => println!("{:#?}", list),
        Err(e) => println!("error: {} (line {})", e, e.line),
    }
}
