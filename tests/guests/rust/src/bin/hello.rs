//! The smallest program: one line on stdout, one on stderr, exit code 0.
fn main() {
    println!("hello from rust");
    eprintln!("to stderr");
}
