//! std::sync::mpsc: 4 producers send 250 numbered messages each over one channel (and one
//! sync_channel round trip); main checks every message arrived once and each producer's are in order.
use std::sync::mpsc;
use std::thread;

fn main() {
    let (tx, rx) = mpsc::channel::<(u32, u32)>();
    for p in 0..4u32 {
        let tx = tx.clone();
        thread::spawn(move || {
            for i in 0..250 {
                tx.send((p, i)).unwrap();
            }
        });
    }
    drop(tx);
    let mut next = [0u32; 4];
    let mut total = 0u32;
    let mut in_order = true;
    for (p, i) in rx {
        in_order &= next[p as usize] == i;
        next[p as usize] = i + 1;
        total += 1;
    }
    println!("received {total} messages, per-producer order kept: {in_order}");

    let (req_tx, req_rx) = mpsc::sync_channel::<u64>(0);
    let (resp_tx, resp_rx) = mpsc::sync_channel::<u64>(0);
    let server = thread::spawn(move || {
        for n in req_rx {
            resp_tx.send(n * n).unwrap();
        }
    });
    let mut sum = 0;
    for n in 1..=10 {
        req_tx.send(n).unwrap();
        sum += resp_rx.recv().unwrap();
    }
    drop(req_tx);
    server.join().unwrap();
    println!("rendezvous sum of squares {sum}");
}
