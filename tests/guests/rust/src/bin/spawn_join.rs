//! std::thread::spawn + join: 4 threads each return a value computed from their argument;
//! main prints them in join order, then a named thread reports its name.
use std::thread;

fn main() {
    let handles: Vec<_> = (1..=4u64).map(|i| thread::spawn(move || (1..=i * 1000).sum::<u64>())).collect();
    for (i, h) in handles.into_iter().enumerate() {
        println!("thread {} returned {}", i + 1, h.join().unwrap());
    }
    let named = thread::Builder::new()
        .name("worker-x".into())
        .spawn(|| thread::current().name().unwrap().to_string())
        .unwrap();
    println!("named thread: {}", named.join().unwrap());
    println!("done");
}
