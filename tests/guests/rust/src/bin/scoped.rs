//! std::thread::scope: threads borrow a local vector (no Arc) and sum disjoint chunks; another
//! scope mutates disjoint halves of a slice in place.
use std::thread;

fn main() {
    let data: Vec<u64> = (1..=10_000).collect();
    let partial: Vec<u64> = thread::scope(|s| {
        let hs: Vec<_> = data.chunks(2500).map(|c| s.spawn(move || c.iter().sum::<u64>())).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    println!("partial sums {:?}", partial);
    println!("total {}", partial.iter().sum::<u64>());

    let mut buf = vec![0u32; 8];
    thread::scope(|s| {
        let (a, b) = buf.split_at_mut(4);
        s.spawn(|| a.iter_mut().enumerate().for_each(|(i, x)| *x = i as u32 * 10));
        s.spawn(|| b.iter_mut().enumerate().for_each(|(i, x)| *x = 100 + i as u32));
    });
    println!("buf {:?}", buf);
}
