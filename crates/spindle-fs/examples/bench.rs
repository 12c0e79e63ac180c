//! The reference filesystem workload on spindle-fs (natively) vs std::fs on tmpfs, in one run.
//!
//! Per round, over 64 files: create+write 1 KiB+close, open+read+close, stat (7 calls per file).
//! Each configuration runs RUNS times; min and median round times are reported, with ratios
//! against std::fs measured in the same run, and T = 1, 2 threads each on its own files (own
//! subdirectory) for throughput scaling. Results: stdout, and CSV + JSON in `$SPINDLE_BENCH_OUT` when
//! set (`spindle bench --only fs-native` runs it: bench/fs-native/experiment.mjs).
//!
//! `cargo run --release -p spindle-fs --example bench [-- ROUNDS RUNS]`

use spindle_fs::*;
use std::io::{Read, Write};
use std::sync::{Arc, Barrier};
use std::time::Instant;

const FILES: usize = 64;
const SIZE: usize = 1024;
const CALLS_PER_FILE: usize = 7;

fn clock() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

trait Target: Sync {
    fn name(&self) -> &'static str;
    /// One round for thread `t`.
    fn round(&self, t: usize, names: &[Vec<u8>], buf: &mut [u8]);
}

struct Spindle {
    fs: Fs,
    root: Fd,
    /// Per-thread directory fds (experiment: SPINDLE_BENCH_DIRFD=1).
    own: Option<Vec<Fd>>,
}

impl Target for Spindle {
    fn name(&self) -> &'static str {
        "spindle-fs"
    }
    fn round(&self, t: usize, names: &[Vec<u8>], buf: &mut [u8]) {
        let fs = &self.fs;
        let short: Vec<Vec<u8>>;
        let (root, names) = match &self.own {
            Some(v) => {
                short = names
                    .iter()
                    .map(|n| n[n.iter().position(|&b| b == b'/').unwrap() + 1..].to_vec())
                    .collect();
                (v[t], &short[..])
            }
            None => (self.root, names),
        };
        let data = [7u8; SIZE];
        let rw = rights::ALL & !rights::FD_READDIR;
        let ro = rights::ALL & !rights::WRITE_MODE;
        for n in names {
            let fd = fs
                .path_open(root, lookupflags::SYMLINK_FOLLOW, n, oflags::CREAT | oflags::TRUNC, rw, 0, 0)
                .unwrap();
            assert_eq!(fs.fd_write(fd, &[&data]).unwrap(), SIZE);
            fs.fd_close(fd).unwrap();
        }
        for n in names {
            let fd = fs.path_open(root, lookupflags::SYMLINK_FOLLOW, n, 0, ro, 0, 0).unwrap();
            assert_eq!(fs.fd_read(fd, &mut [&mut buf[..]]).unwrap(), SIZE);
            fs.fd_close(fd).unwrap();
        }
        for n in names {
            assert_eq!(fs.path_filestat_get(root, lookupflags::SYMLINK_FOLLOW, n).unwrap().size, SIZE as u64);
        }
    }
}

struct StdFs {
    dir: std::path::PathBuf,
}

impl Target for StdFs {
    fn name(&self) -> &'static str {
        "std::fs (tmpfs)"
    }
    fn round(&self, _t: usize, names: &[Vec<u8>], buf: &mut [u8]) {
        let data = [7u8; SIZE];
        let paths: Vec<std::path::PathBuf> =
            names.iter().map(|n| self.dir.join(std::str::from_utf8(n).unwrap())).collect();
        for p in &paths {
            let mut f = std::fs::File::create(p).unwrap();
            f.write_all(&data).unwrap();
        }
        for p in &paths {
            let mut f = std::fs::File::open(p).unwrap();
            assert_eq!(f.read(buf).unwrap(), SIZE);
        }
        for p in &paths {
            assert_eq!(std::fs::metadata(p).unwrap().len(), SIZE as u64);
        }
    }
}

fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// Runs `rounds` rounds on each of `threads` threads; returns wall seconds and the mean CPU
/// time the threads spent (seconds), which a loaded machine does not inflate.
fn run(target: &Arc<dyn Target + Send + Sync>, threads: usize, rounds: usize) -> (f64, f64) {
    let barrier = Arc::new(Barrier::new(threads + 1));
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            let (target, barrier) = (target.clone(), barrier.clone());
            std::thread::spawn(move || {
                let names: Vec<Vec<u8>> = (0..FILES).map(|i| format!("t{t}/f{i}").into_bytes()).collect();
                let mut buf = vec![0u8; SIZE * 2];
                target.round(t, &names, &mut buf); // warm-up: creates the files
                barrier.wait();
                let c0 = thread_cpu_ns();
                for _ in 0..rounds {
                    target.round(t, &names, &mut buf);
                }
                thread_cpu_ns() - c0
            })
        })
        .collect();
    // The clock starts before the release: started after it, a descheduled main thread could
    // miss the whole run (seen under load: a "1 ns" round).
    let start = Instant::now();
    barrier.wait();
    let cpu: f64 = hs.into_iter().map(|h| h.join().unwrap()).sum();
    (start.elapsed().as_secs_f64(), cpu / threads as f64 / 1e9)
}

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[0], v[v.len() / 2])
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let rounds = args.first().copied().unwrap_or(2000);
    let runs = args.get(1).copied().unwrap_or(7).max(5);
    let shm =
        if std::path::Path::new("/dev/shm").is_dir() { "/dev/shm".into() } else { std::env::temp_dir() };
    let dir = shm.join(format!("spindle-bench-{}", std::process::id()));
    let fs = Fs::new(clock);
    let root = fs.preopen(b"/bench").unwrap();
    for t in 0..2 {
        std::fs::create_dir_all(dir.join(format!("t{t}"))).unwrap();
        fs.path_create_directory(root, format!("t{t}").as_bytes()).unwrap();
    }
    let targets: Vec<Arc<dyn Target + Send + Sync>> = vec![
        {
            let own = std::env::var("SPINDLE_BENCH_DIRFD").ok().map(|_| {
                (0..2)
                    .map(|t| {
                        fs.path_open(
                            root,
                            0,
                            format!("t{t}").as_bytes(),
                            oflags::DIRECTORY,
                            rights::ALL & !rights::WRITE_MODE,
                            rights::ALL,
                            0,
                        )
                        .unwrap()
                    })
                    .collect()
            });
            Arc::new(Spindle { fs, root, own })
        },
        Arc::new(StdFs { dir: dir.clone() }),
    ];
    println!("reference fs workload: {FILES} files x (create+write {SIZE} B+close, open+read+close, stat) per round");
    println!(
        "{rounds} rounds per thread per run, {runs} runs, min/median of runs; cpus: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    // results[target][threads-1] = (min, median) ns per round per thread, and throughput.
    let mut rows = Vec::new();
    let only = std::env::var("SPINDLE_BENCH_ONLY").ok();
    for threads in [1usize, 2] {
        for tg in &targets {
            if only.as_deref().is_some_and(|o| !tg.name().starts_with(o)) {
                continue;
            }
            let mut per_round = Vec::new();
            let mut cpu_round = Vec::new();
            for _ in 0..runs {
                let (secs, cpu) = run(tg, threads, rounds);
                per_round.push(secs * 1e9 / rounds as f64);
                cpu_round.push(cpu * 1e9 / rounds as f64);
            }
            let (min, med) = stats(per_round);
            let (cpu_min, _) = stats(cpu_round);
            // Throughput in rounds per second over all threads, from the best run.
            let thr = threads as f64 * 1e9 / min;
            let ns_call = min / (FILES * CALLS_PER_FILE) as f64;
            println!(
                "{:<16} T={threads}: round min {:>9.0} ns  median {:>9.0} ns  ({ns_call:>6.1} ns/call)  throughput {thr:>8.0} rounds/s  cpu/round/thread {cpu_min:>9.0} ns",
                tg.name(),
                min,
                med
            );
            rows.push((tg.name(), threads, min, med, ns_call, thr, cpu_min));
        }
    }
    if only.is_some() {
        return;
    }
    let get = |name: &str, t: usize| rows.iter().find(|r| r.0 == name && r.1 == t).copied().unwrap();
    let (s1, s2) = (get("spindle-fs", 1), get("spindle-fs", 2));
    let (n1, n2) = (get("std::fs (tmpfs)", 1), get("std::fs (tmpfs)", 2));
    let speed1 = n1.2 / s1.2;
    let speed2 = n2.2 / s2.2;
    let scale_s = s2.5 / s1.5;
    let scale_n = n2.5 / n1.5;
    println!("spindle-fs vs std::fs, T=1: {speed1:.2}x faster (min round time ratio)");
    println!("spindle-fs vs std::fs, T=2: {speed2:.2}x faster");
    println!("T=2 / T=1 throughput: spindle-fs {scale_s:.2}x (goal >= 1.6x), std::fs {scale_n:.2}x");
    // CPU-time scaling: what T=2 would give on two idle cores (contention shows up as more CPU
    // per round; time a thread spends asleep on a futex does not, and is not counted).
    let cpu_s = 2.0 * s1.6 / s2.6;
    let cpu_n = 2.0 * n1.6 / n2.6;
    println!("T=2 / T=1 by CPU time per round (2 x cpu1/cpu2): spindle-fs {cpu_s:.2}x, std::fs {cpu_n:.2}x");

    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split(' ').next().map(str::to_string))
        .unwrap_or("null".into());
    println!("load average (1 min) during the run: {load}");
    let Some(out) = std::env::var_os("SPINDLE_BENCH_OUT").map(std::path::PathBuf::from) else {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    std::fs::create_dir_all(&out).unwrap();
    let mut csv = String::from(
        "target,threads,round_min_ns,round_median_ns,ns_per_call,rounds_per_s,cpu_ns_per_round_per_thread\n",
    );
    let mut json =
        String::from("{\n  \"workload\": \"64 files x (create+write 1KiB+close, open+read+close, stat)\",\n");
    json += &format!("  \"rounds\": {rounds},\n  \"runs\": {runs},\n  \"results\": [\n");
    for (i, r) in rows.iter().enumerate() {
        csv += &format!("{},{},{:.0},{:.0},{:.1},{:.0},{:.0}\n", r.0, r.1, r.2, r.3, r.4, r.5, r.6);
        json += &format!(
            "    {{\"target\": \"{}\", \"threads\": {}, \"round_min_ns\": {:.0}, \"round_median_ns\": {:.0}, \"ns_per_call\": {:.1}, \"rounds_per_s\": {:.0}, \"cpu_ns_per_round_per_thread\": {:.0}}}{}\n",
            r.0, r.1, r.2, r.3, r.4, r.5, r.6, if i + 1 < rows.len() { "," } else { "" }
        );
    }
    json += &format!(
        "  ],\n  \"speedup_vs_std_t1\": {speed1:.3},\n  \"speedup_vs_std_t2\": {speed2:.3},\n  \"scaling_t2_over_t1_spindle\": {scale_s:.3},\n  \"scaling_t2_over_t1_std\": {scale_n:.3},\n  \"cpu_scaling_t2_over_t1_spindle\": {cpu_s:.3},\n  \"cpu_scaling_t2_over_t1_std\": {cpu_n:.3},\n  \"load_average_1min\": {load}\n}}\n"
    );
    std::fs::write(out.join("results.csv"), csv).unwrap();
    std::fs::write(out.join("results.json"), json).unwrap();
    println!("wrote {}", out.join("results.{csv,json}").display());
    let _ = std::fs::remove_dir_all(&dir);
}
