//! Reads all of stdin, then prints its line count, byte count and the lines upper-cased.
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    println!("bytes {} lines {}", s.len(), s.lines().count());
    for l in s.lines() {
        println!("> {}", l.to_uppercase());
    }
}
