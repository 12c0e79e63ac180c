//! spindle-alloc in a web program: a wasm-bindgen + wasm-bindgen-rayon crate whose parallel job is
//! malloc-heavy (every item builds and drops about 200 small `String`s, `Vec`s and `BTreeMap`
//! nodes), built twice by `build.sh`: with Rust's default allocator and, with the `spindle`
//! feature, with spindle-alloc as the global allocator. The page (`index.html`) runs it in a
//! worker with 1..N rayon threads and reports time, checksum and linear memory.
//!
//! The one line that makes the difference:
//! ```ignore
//! #[global_allocator]
//! static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;
//! ```

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use wasm_bindgen::prelude::*;

pub use wasm_bindgen_rayon::init_thread_pool;

#[cfg(feature = "spindle")]
#[global_allocator]
static A: spindle_alloc::SpindleAlloc = spindle_alloc::SpindleAlloc;

/// FNV-1a over `bytes`, folded into `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// One item of the job: a map of 48 formatted keys to small vectors, a list of 40 words grown
/// one push at a time, a joined string; about 200 allocations, all dropped at the end. Returns a
/// checksum of what was built, the same whatever thread runs it.
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

/// Runs the job over `items` items on the rayon pool; returns the checksum in hex (the same for
/// every thread count and allocator).
#[wasm_bindgen]
pub fn run_job(items: u32) -> String {
    let sum = (0..items).into_par_iter().map(item).reduce(|| 0u64, |a, b| a.wrapping_add(b));
    format!("{sum:016x}")
}

/// The current time in ms on a clock every thread of the page shares (`performance.now()` counts
/// from each worker's own start; `timeOrigin` puts them on one axis).
#[wasm_bindgen(
    inline_js = "export function shared_now() { return performance.timeOrigin + performance.now(); }"
)]
extern "C" {
    fn shared_now() -> f64;
}

/// What one rayon thread did in `run_job_traced`; aligned to its own cache line (each thread writes
/// only its own).
#[derive(Clone, Copy)]
#[repr(align(64))]
struct ThreadTrace {
    items: u32,
    first: f64,
    last: f64,
    busy: f64,
}

/// `run_job` with a trace of each rayon thread: returns JSON `{ checksum, ms, threads: [{ items,
/// first, last, busy }] }`, times in ms from the job's start: when the thread began its first item
/// and ended its last, and the sum of its items' wall times. Says whether the pool's threads ran
/// the job together (each busy for about the job's time, items spread over them) or one after
/// another. Two clock reads per item (a call into JS each) add a little to every item.
#[wasm_bindgen]
pub fn run_job_traced(items: u32) -> String {
    use std::sync::Mutex;
    let empty = ThreadTrace { items: 0, first: f64::MAX, last: 0.0, busy: 0.0 };
    let traces: Vec<Mutex<ThreadTrace>> =
        (0..rayon::current_num_threads()).map(|_| Mutex::new(empty)).collect();
    let start = shared_now();
    let sum = (0..items)
        .into_par_iter()
        .map(|i| {
            let a = shared_now();
            let h = item(i);
            let b = shared_now();
            // Only this rayon thread locks its entry: never contended.
            let mut t = traces[rayon::current_thread_index().unwrap_or(0)].lock().unwrap();
            t.items += 1;
            t.first = t.first.min(a - start);
            t.last = b - start;
            t.busy += b - a;
            h
        })
        .reduce(|| 0u64, |a, b| a.wrapping_add(b));
    let ms = shared_now() - start;
    let threads: Vec<String> = traces
        .iter()
        .map(|m| {
            let t = *m.lock().unwrap();
            let first = if t.items == 0 { 0.0 } else { t.first };
            format!(
                "{{\"items\":{},\"first\":{first:.3},\"last\":{:.3},\"busy\":{:.3}}}",
                t.items, t.last, t.busy
            )
        })
        .collect();
    format!("{{\"checksum\":\"{sum:016x}\",\"ms\":{ms:.3},\"threads\":[{}]}}", threads.join(","))
}

/// Size of the blocks `grow_handoff` passes through the allocator: above spindle-alloc's largest
/// slab class, so each is a span of its own from the shared pool.
const HANDOFF_BYTES: usize = 1 << 20;

/// Memory growth across threads, through the allocator (needs a pool of at least 2 threads): in
/// each of `rounds` rounds, rayon thread 0 allocates a fresh block (the memory grows: the consumer
/// keeps every earlier block) and frees it at once; then thread 1 allocates the same size (the
/// allocator hands it the memory thread 0 just grew) and fills and copies it with bulk memory
/// instructions (`memory.fill`, `memory.copy`). On V8 that traps unless the allocator refreshed
/// thread 1's view of the memory size first. Both sides spin rather than wait: a wait would give
/// V8 a chance to refresh the view and hide the problem. Returns a checksum of the bytes read back.
#[wasm_bindgen]
pub fn grow_handoff(rounds: u32) -> String {
    static STEP: AtomicU32 = AtomicU32::new(0);
    STEP.store(0, Ordering::SeqCst);
    let sums = rayon::broadcast(|ctx| {
        let mut kept: Vec<Vec<u8>> = Vec::new();
        let mut sum = 0u64;
        for r in 0..rounds {
            match ctx.index() {
                0 => {
                    while STEP.load(Ordering::Acquire) != 2 * r {
                        core::hint::spin_loop();
                    }
                    let fresh: Vec<u8> = Vec::with_capacity(HANDOFF_BYTES);
                    drop(std::hint::black_box(fresh));
                    STEP.store(2 * r + 1, Ordering::Release);
                }
                1 => {
                    while STEP.load(Ordering::Acquire) != 2 * r + 1 {
                        core::hint::spin_loop();
                    }
                    let mut v: Vec<u8> = Vec::with_capacity(HANDOFF_BYTES);
                    v.resize(HANDOFF_BYTES / 2, (r % 251) as u8); // memory.fill
                    v.extend_from_within(..); // memory.copy into the second half
                    v[HANDOFF_BYTES - 1] ^= 0x5a;
                    sum = sum.wrapping_add(
                        v[0] as u64 + v[HANDOFF_BYTES / 2] as u64 + v[HANDOFF_BYTES - 1] as u64,
                    );
                    kept.push(v);
                    STEP.store(2 * r + 2, Ordering::Release);
                }
                _ => {}
            }
        }
        sum
    });
    format!("{}", sums.iter().sum::<u64>())
}

/// The linear memory's size in bytes (`memory.size`: the peak, since wasm memory never shrinks).
#[wasm_bindgen]
pub fn memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size(0) as f64) * 65536.0
}

/// Runs `items` items of the job on the calling thread (no rayon): gives the thread a heap.
#[wasm_bindgen]
pub fn run_local(items: u32) -> String {
    let sum = (0..items).map(item).fold(0u64, |a, b| a.wrapping_add(b));
    format!("{sum:016x}")
}

/// spindle-alloc's statistics as JSON (`{}` with the default allocator): where the memory went.
#[wasm_bindgen]
pub fn alloc_stats() -> String {
    #[cfg(feature = "spindle")]
    {
        let s = spindle_alloc::stats();
        format!(
            "{{\"in_use\":{},\"committed\":{},\"metadata\":{},\"slabs\":{},\"spare_slabs\":{},\"large\":{},\"free\":{},\"heaps\":{},\"view_refreshes\":{}}}",
            s.in_use, s.committed, s.metadata, s.slabs, s.spare_slabs, s.large, s.free, s.heaps, s.view_refreshes
        )
    }
    #[cfg(not(feature = "spindle"))]
    String::from("{}")
}
