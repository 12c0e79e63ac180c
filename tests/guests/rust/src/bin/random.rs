//! random_get through std: HashMap's RandomState is seeded from random_get, so two RandomStates
//! hash the same key differently (with overwhelming probability), on main and on a thread.
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::thread;

fn distinct_seeds() -> bool {
    // Within one thread std derives later keys from the first by incrementing, so compare
    // states made on different threads too.
    let a = RandomState::new().hash_one(42u64);
    let b = RandomState::new().hash_one(42u64);
    a != b
}

fn main() {
    println!("main: distinct hashes {}", distinct_seeds());
    let main_hash = RandomState::new().hash_one("key");
    let other = thread::spawn(|| (distinct_seeds(), RandomState::new().hash_one("key"))).join().unwrap();
    println!("thread: distinct hashes {}", other.0);
    println!("main and thread differ {}", main_hash != other.1);
}
