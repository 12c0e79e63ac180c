//! Out of memory at full size: a 24 MiB cap (`common::oom_scenario`; the Miri-sized run of the
//! same steps is `miri_oom.rs`). Its own test binary: the cap is global.

mod common;
use common::{oom_scenario, OomScale};

#[test]
fn out_of_memory_returns_null_and_recovers() {
    oom_scenario(&OomScale {
        cap: 24 << 20,
        blocks: 10_000..1 << 20,
        too_big: 20 << 20,
        huge_align: 1 << 20,
        big_again: 4 << 20,
        zeroed_again: 100_000,
        refills: 100,
        checked: 1000,
    });
}
