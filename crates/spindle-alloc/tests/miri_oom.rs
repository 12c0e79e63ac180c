//! Out of memory in a Miri-sized test: a fake small memory (a 1 MiB cap on what the allocator
//! takes from the platform) makes every path return null after a few hundred blocks
//! (`common::oom_scenario`; the full-size run is `oom.rs`). Its own test binary: the cap is global.

mod common;
use common::{oom_scenario, OomScale};

#[test]
fn small_memory_runs_out_and_recovers() {
    oom_scenario(&OomScale {
        cap: 1 << 20,
        blocks: 500..2000,
        too_big: 600 << 10,
        huge_align: 64 << 10,
        big_again: 200 << 10,
        zeroed_again: 30_000,
        refills: 50,
        checked: 200,
    });
}
