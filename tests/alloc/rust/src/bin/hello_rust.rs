//! Hello world with spindle-alloc as the global allocator (for the code-size comparison).
#[global_allocator]
static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;

fn main() {
    let s = format!("hello {}", std::env::args().count());
    println!("{s}");
}
