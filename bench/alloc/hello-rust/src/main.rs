//! Hello world: one allocation (format!), printed.
#[cfg(feature = "spindle")]
#[global_allocator]
static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;

fn main() {
    let s = format!("hello {}", std::env::args().count());
    println!("{s}");
}
