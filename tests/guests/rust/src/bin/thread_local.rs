//! thread_local!: each of 4 threads increments its own copy 1000*(i+1) times; main's copy is
//! untouched; a TLS destructor runs when each thread exits.
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;

static DROPS: AtomicU32 = AtomicU32::new(0);

struct CountsDrop;
impl Drop for CountsDrop {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

thread_local! {
    static COUNTER: Cell<u32> = const { Cell::new(0) };
    static GUARD: CountsDrop = const { CountsDrop };
}

fn main() {
    COUNTER.with(|c| c.set(7));
    let hs: Vec<_> = (0..4u32)
        .map(|i| {
            thread::spawn(move || {
                GUARD.with(|_| {});
                for _ in 0..1000 * (i + 1) {
                    COUNTER.with(|c| c.set(c.get() + 1));
                }
                COUNTER.with(|c| c.get())
            })
        })
        .collect();
    for (i, h) in hs.into_iter().enumerate() {
        println!("thread {i} counter {}", h.join().unwrap());
    }
    println!("main counter {}", COUNTER.with(|c| c.get()));
    println!("tls destructors run {}", DROPS.load(Ordering::SeqCst));
}
