//! main returns while 2 spawned threads still run (one sleeping in a loop, one blocked on a
//! channel that never receives): the program ends with 0, as a native Rust program does.
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

fn main() {
    let (started_tx, started_rx) = mpsc::channel();
    let (_never_tx, never_rx) = mpsc::channel::<()>();
    let tx = started_tx.clone();
    thread::spawn(move || {
        tx.send(()).unwrap();
        loop {
            thread::sleep(Duration::from_secs(10));
        }
    });
    thread::spawn(move || {
        started_tx.send(()).unwrap();
        let _ = never_rx.recv();
    });
    started_rx.recv().unwrap();
    started_rx.recv().unwrap();
    println!("2 threads running; main returns");
}
