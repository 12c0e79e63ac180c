//! A panic in a spawned thread, with main joining it. On wasm32-wasip1-threads Rust's std is built
//! with panic=abort: the panic message is printed, then the program aborts (wasm `unreachable`
//! trap, exit code 134 on wasmtime). Where unwinding exists, join would return Err and main would
//! print "join returned Err" and continue.
use std::thread;

fn main() {
    println!("before panic");
    let h = thread::Builder::new()
        .name("doomed".into())
        .spawn(|| {
            panic!("boom in a thread");
        })
        .unwrap();
    match h.join() {
        Ok(()) => println!("join returned Ok"),
        Err(_) => println!("join returned Err"),
    }
    println!("main continues");
}
