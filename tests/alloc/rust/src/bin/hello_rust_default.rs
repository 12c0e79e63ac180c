//! Hello world with Rust's default allocator (dlmalloc on wasm), for the code-size comparison.
fn main() {
    let s = format!("hello {}", std::env::args().count());
    println!("{s}");
}
