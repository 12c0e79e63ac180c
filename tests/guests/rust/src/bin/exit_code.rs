//! std::process::exit from a spawned thread while main waits in join: the program ends with 42.
use std::thread;

fn main() {
    println!("main waiting");
    let h = thread::spawn(|| {
        println!("thread exiting with 42");
        std::process::exit(42);
    });
    h.join().unwrap();
    println!("unreachable: main after join");
}
