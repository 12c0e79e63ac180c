//! Seeded multithreaded stress: T threads on one shared `Fs`, then invariants.
//! `SPINDLE_STRESS_ITERS` scales the work (default 4).
mod common;
use common::*;
use spindle_fs::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};

const T: usize = 4;

fn scale() -> usize {
    std::env::var("SPINDLE_STRESS_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(4)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn threads<F: Fn(usize) + Send + Sync + 'static>(f: F) {
    let f = Arc::new(f);
    let b = Arc::new(Barrier::new(T));
    let hs: Vec<_> = (0..T)
        .map(|i| {
            let (f, b) = (f.clone(), b.clone());
            std::thread::spawn(move || {
                b.wait();
                f(i)
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}

#[test]
fn append_records_are_never_lost_or_torn() {
    let (fs, root) = fresh();
    let fs = Arc::new(fs);
    let n = 5000 * scale();
    let shared = fs.path_open(root, FOLLOW, b"shared.log", oflags::CREAT, RW, RW, fdflags::APPEND).unwrap();
    let f2 = fs.clone();
    threads(move |t| {
        // Half the threads use the shared fd, half their own O_APPEND open.
        let fd = if t % 2 == 0 {
            shared
        } else {
            f2.path_open(root, FOLLOW, b"shared.log", 0, RW, RW, fdflags::APPEND).unwrap()
        };
        for i in 0..n {
            let rec = format!("{t:02}:{i:08}:{:04}\n", (t * 31 + i) % 10000);
            // Two iovecs: the record must still land whole.
            let (a, b) = rec.as_bytes().split_at(5);
            assert_eq!(f2.fd_write(fd, &[a, b]).unwrap(), 17);
        }
        if fd != shared {
            f2.fd_close(fd).unwrap();
        }
    });
    let data = read(&fs, root, "shared.log").unwrap();
    assert_eq!(data.len(), T * n * 17);
    let mut next = [0usize; T];
    for rec in data.chunks(17) {
        let s = std::str::from_utf8(rec).unwrap();
        let t: usize = s[0..2].parse().unwrap();
        let i: usize = s[3..11].parse().unwrap();
        assert_eq!(&s[11..], &format!(":{:04}\n", (t * 31 + i) % 10000));
        assert_eq!(i, next[t], "records of one thread stay in order, none lost");
        next[t] += 1;
    }
    fs.fd_close(shared).unwrap();
    assert_eq!(fs.open_fds(), 1);
}

#[test]
fn rename_replaces_atomically() {
    let (fs, root) = fresh();
    let fs = Arc::new(fs);
    fs.path_create_directory(root, b"a").unwrap();
    fs.path_create_directory(root, b"b").unwrap();
    create(&fs, root, "a/target", b"v-init");
    let stop = Arc::new(AtomicBool::new(false));
    let n = 3000 * scale();
    let (f2, s2) = (fs.clone(), stop.clone());
    threads(move |t| {
        if t < 2 {
            // Writers: write a temp in the other directory, rename it over the target.
            for i in 0..n {
                let tmp = format!("{}/tmp{t}", if i % 2 == 0 { "b" } else { "a" });
                create(&f2, root, &tmp, format!("v-{t}-{i}").as_bytes());
                f2.path_rename(root, tmp.as_bytes(), root, b"a/target").unwrap();
            }
            s2.store(true, Ordering::Relaxed);
        } else {
            // Readers: the target always exists and always holds one complete value.
            while !s2.load(Ordering::Relaxed) {
                let v = read(&f2, root, "a/target").expect("target missing during rename");
                let s = String::from_utf8(v).unwrap();
                assert!(s == "v-init" || s.split('-').count() == 3, "torn value {s:?}");
                let l = names(&f2, root, "a");
                assert!(l.iter().filter(|x| *x == "target").count() == 1, "{l:?}");
            }
        }
    });
    fs.check_invariants().unwrap();
    assert_eq!(fs.open_fds(), 1);
}

#[test]
fn random_ops_keep_the_tree_consistent() {
    let (fs, root) = fresh();
    let fs = Arc::new(fs);
    let names_ = ["a", "b", "c", "d", "a/b", "a/c", "b/a", "b/d", "c/a", "d/b", "a/b/c", "b/a/d"];
    let n = 20000 * scale();
    let f2 = fs.clone();
    threads(move |t| {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ ((t as u64 + 1) * 0x1234_5678_9abc));
        let mut open: Vec<Fd> = Vec::new();
        for _ in 0..n {
            let p = names_[r.below(names_.len())].as_bytes();
            let q = names_[r.below(names_.len())].as_bytes();
            let _ = match r.below(12) {
                0 => f2.path_create_directory(root, p),
                1 => f2.path_remove_directory(root, p),
                2 => f2.path_unlink_file(root, p),
                3 | 4 => f2.path_rename(root, p, root, q),
                5 => f2.path_link(root, 0, p, root, q),
                6 => f2.path_symlink(b"../x", root, p),
                7 => match f2.path_open(root, 0, p, oflags::CREAT, RW, RW, fdflags::APPEND) {
                    Ok(fd) => {
                        open.push(fd);
                        Ok(())
                    }
                    Err(e) => Err(e),
                },
                8 if !open.is_empty() => {
                    let fd = open.swap_remove(r.below(open.len()));
                    f2.fd_write(fd, &[b"xyz"]).unwrap();
                    f2.fd_close(fd)
                }
                9 => {
                    // Paginated listing, 2 entries per call: no name twice.
                    if let Ok(d) = f2.path_open(root, FOLLOW, p, oflags::DIRECTORY, RO, RO, 0) {
                        let mut seen = std::collections::HashSet::new();
                        let mut cookie = 0;
                        loop {
                            let batch = f2.fd_readdir(d, cookie, 2).unwrap();
                            if batch.is_empty() {
                                break;
                            }
                            for e in batch {
                                assert!(seen.insert(e.name.clone()), "name listed twice");
                                cookie = e.next;
                            }
                        }
                        f2.fd_close(d).unwrap();
                    }
                    Ok(())
                }
                _ => f2.path_filestat_get(root, FOLLOW, p).map(drop),
            };
        }
        for fd in open {
            f2.fd_write(fd, &[b"end"]).unwrap();
            f2.fd_close(fd).unwrap();
        }
    });
    fs.check_invariants().unwrap();
    assert_eq!(fs.open_fds(), 1, "fd leak");
}

#[test]
fn cross_directory_renames_never_deadlock() {
    let (fs, root) = fresh();
    let fs = Arc::new(fs);
    for d in ["a", "b", "c", "a/x", "b/y", "c/z"] {
        fs.path_create_directory(root, d.as_bytes()).unwrap();
    }
    let n = 20000 * scale();
    let f2 = fs.clone();
    let dirs = ["a", "b", "c", "a/x", "b/y", "c/z", "a/b", "b/c", "c/a", "a/x/b", "b/y/c", "x", "y"];
    threads(move |t| {
        let mut r = Rng(77 + t as u64);
        for _ in 0..n {
            let p = dirs[r.below(dirs.len())];
            let q = dirs[r.below(dirs.len())];
            let _ = f2.path_rename(root, p.as_bytes(), root, q.as_bytes());
        }
    });
    fs.check_invariants().unwrap();
}

#[test]
fn unlink_while_open_under_contention() {
    let (fs, root) = fresh();
    let fs = Arc::new(fs);
    let n = 3000 * scale();
    let f2 = fs.clone();
    threads(move |t| {
        let name = format!("f{}", t / 2);
        for i in 0..n {
            if t % 2 == 0 {
                let fd = f2.path_open(root, FOLLOW, name.as_bytes(), oflags::CREAT, RW, RW, 0).unwrap();
                f2.fd_pwrite(fd, &[b"0123456789"], 0).unwrap();
                let mut b = [0u8; 10];
                // Whoever unlinks the name, this open file keeps its data.
                assert_eq!(f2.fd_pread(fd, &mut [&mut b], 0).unwrap(), 10);
                assert_eq!(&b, b"0123456789");
                f2.fd_close(fd).unwrap();
            } else if i % 2 == 0 {
                let _ = f2.path_unlink_file(root, name.as_bytes());
            } else {
                let _ = f2.path_rename(root, name.as_bytes(), root, format!("g{t}").as_bytes());
            }
        }
    });
    fs.check_invariants().unwrap();
    assert_eq!(fs.open_fds(), 1);
}

#[test]
fn concurrent_mounts_get_distinct_devices() {
    for _ in 0..50 * scale() {
        let fs = Arc::new(Fs::new(|| 1));
        let f2 = fs.clone();
        // Each thread mounts below its own parent directory, so no directory lock serializes them.
        threads(move |t| {
            for m in 0..15 {
                f2.mount_memory(format!("/p{t}/m{m}").as_bytes(), false).unwrap();
            }
        });
        let mut devs = std::collections::HashSet::new();
        for t in 0..T {
            for m in 0..15 {
                let fd = fs.preopen(format!("/p{t}/m{m}").as_bytes()).unwrap();
                assert!(devs.insert(fs.fd_filestat_get(fd).unwrap().dev), "/p{t}/m{m} shares a device");
            }
        }
    }
}
