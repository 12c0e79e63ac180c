// The job of examples/alloc-rayon-web (fnv + item, copied from its src/lib.rs) natively, one thread:
// cputime-2-native-alongside.txt ran it beside Firefox. Build: a cargo bin crate with this as
// src/main.rs (no dependencies), `cargo build --release`; run: `native-job ITEMS REPS` (prints per
// rep: the end time in epoch ms, wall ms, the thread's CPU ms from /proc/thread-self/schedstat).

use std::collections::BTreeMap;
use std::time::Instant;
fn cpu_ms() -> f64 { if cfg!(target_os = "wasi") { 0.0 } else { libc_ts() } }
fn libc_ts() -> f64 {
    // thread CPU time via /proc/thread-self/schedstat (ns)
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    s.split(' ').next().unwrap().parse::<f64>().unwrap() / 1e6
}
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn item(i: u32) -> u64 {
    let mut map: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for k in 0..48u32 {
        let key = format!("item{}-key{:03}", i % 101, (k * 37 + i) % 211);
        let v: Vec<u32> = (0..(k % 13 + 1)).map(|x| x.wrapping_mul(i) ^ k).collect();
        map.insert(key, v);
    }
    let mut words: Vec<String> = Vec::new();
    for w in 0..40u32 {
        words.push(format!("w{}", (w * 7919 + i) % 1009));
    }
    let joined = words.join(",");
    let mut h = fnv(0xcbf2_9ce4_8422_2325, joined.as_bytes());
    for (k, v) in &map {
        h = fnv(h, k.as_bytes());
        for x in v {
            h = fnv(h, &x.to_le_bytes());
        }
    }
    h
}


fn main() {
    let n: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(20000);
    let reps: u32 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(30);
    for r in 0..reps {
        let c0 = cpu_ms(); let t0 = Instant::now();
        let s = (0..n).map(item).fold(0u64, |a, b| a.wrapping_add(b));
        let c1 = cpu_ms();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis();
        println!("{r} at {now} wall {:.1} cpu {:.1} {:x}", t0.elapsed().as_secs_f64()*1e3, c1 - c0, s & 0xff);
    }
}
