//! Mutex + Condvar: a producer hands 100 items one at a time to a consumer through a one-slot
//! mailbox; both sides wait on condition variables. Prints the consumer's sum and count.
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

struct Slot {
    item: Option<u32>,
    done: bool,
}

fn main() {
    let shared = Arc::new((Mutex::new(Slot { item: None, done: false }), Condvar::new()));
    let consumer = {
        let shared = Arc::clone(&shared);
        thread::spawn(move || {
            let (lock, cv) = &*shared;
            let (mut sum, mut count) = (0u64, 0u32);
            let mut slot = lock.lock().unwrap();
            loop {
                if let Some(v) = slot.item.take() {
                    sum += v as u64;
                    count += 1;
                    cv.notify_all();
                } else if slot.done {
                    break;
                } else {
                    slot = cv.wait(slot).unwrap();
                }
            }
            (sum, count)
        })
    };
    let (lock, cv) = &*shared;
    for i in 1..=100u32 {
        let mut slot = lock.lock().unwrap();
        while slot.item.is_some() {
            slot = cv.wait(slot).unwrap();
        }
        slot.item = Some(i);
        cv.notify_all();
    }
    {
        let mut slot = lock.lock().unwrap();
        while slot.item.is_some() {
            slot = cv.wait(slot).unwrap();
        }
        slot.done = true;
        cv.notify_all();
    }
    let (sum, count) = consumer.join().unwrap();
    println!("consumed {count} items, sum {sum}");

    // A plain mutex counter hammered by 4 threads.
    let counter = Arc::new(Mutex::new(0u32));
    let hs: Vec<_> = (0..4)
        .map(|_| {
            let c = Arc::clone(&counter);
            thread::spawn(move || {
                for _ in 0..10_000 {
                    *c.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    hs.into_iter().for_each(|h| h.join().unwrap());
    println!("counter {}", *counter.lock().unwrap());
}
