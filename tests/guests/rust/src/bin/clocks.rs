//! Clocks and sleep: Instant is monotonic across 1,000 reads; thread::sleep(50 ms) takes at least
//! 50 ms by Instant; SystemTime is after 2020-01-01; a sleeping thread also wakes up.
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn main() {
    let mut prev = Instant::now();
    let mut monotonic = true;
    for _ in 0..1000 {
        let now = Instant::now();
        monotonic &= now >= prev;
        prev = now;
    }
    println!("instant monotonic: {monotonic}");

    let t0 = Instant::now();
    thread::sleep(Duration::from_millis(50));
    println!("slept at least 50ms: {}", t0.elapsed() >= Duration::from_millis(50));

    let h = thread::spawn(|| {
        let t = Instant::now();
        thread::sleep(Duration::from_millis(20));
        t.elapsed() >= Duration::from_millis(20)
    });
    println!("thread slept at least 20ms: {}", h.join().unwrap());

    let secs = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    println!("realtime after 2020: {}", secs > 1_577_836_800);
}
