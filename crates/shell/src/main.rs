fn main() {
    std::process::exit(shell::main_entry());
}
