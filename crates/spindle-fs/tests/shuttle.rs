//! The lock protocols of rename and unlink-while-open under shuttle's randomized scheduler
//! (every atomic of `sync.rs` is a scheduling point). Run with
//! `cargo test -p spindle-fs --release --features shuttle --test shuttle`
//! (`SPINDLE_SHUTTLE_ITERS` sets iterations per test, default 2000).
#![cfg(feature = "shuttle")]

mod common;
use common::*;
use shuttle::thread;
use spindle_fs::*;
use std::sync::Arc;

fn iters() -> usize {
    std::env::var("SPINDLE_SHUTTLE_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
}

fn check(f: impl Fn() + Send + Sync + 'static) {
    shuttle::check_random(f.clone_box(), iters());
    shuttle::check_pct(f, iters(), 3);
}

trait CloneBox: Fn() + Send + Sync + 'static + Sized {
    fn clone_box(&self) -> impl Fn() + Send + Sync + 'static;
}
impl<F: Fn() + Send + Sync + 'static> CloneBox for F {
    fn clone_box(&self) -> impl Fn() + Send + Sync + 'static {
        let p: *const F = self;
        let p = p as usize;
        // SAFETY: `check` keeps `f` alive until both checkers have returned.
        move || unsafe { (*(p as *const F))() }
    }
}

/// Two renames between the same two directories in opposite directions, plus a rmdir and a
/// rename that would make a cycle: never a deadlock, never a cycle, counts stay right.
#[test]
fn cross_directory_renames() {
    check(|| {
        let (fs, root) = fresh();
        for d in ["a", "b", "a/x", "b/y"] {
            fs.path_create_directory(root, d.as_bytes()).unwrap();
        }
        let fs = Arc::new(fs);
        let ops: [(&[u8], &[u8]); 4] =
            [(b"a/x", b"b/x"), (b"b/y", b"a/y"), (b"a", b"b/y/a"), (b"b", b"a/x/b")];
        let hs: Vec<_> = ops
            .into_iter()
            .map(|(p, q)| {
                let fs = fs.clone();
                thread::spawn(move || {
                    let _ = fs.path_rename(root, p, root, q);
                })
            })
            .collect();
        let _ = fs.path_remove_directory(root, b"a/x");
        for h in hs {
            h.join().unwrap();
        }
        fs.check_invariants().unwrap();
    });
}

/// A reader never sees the target name missing while a rename replaces it.
#[test]
fn rename_replace_is_atomic() {
    check(|| {
        let (fs, root) = fresh();
        fs.path_create_directory(root, b"d").unwrap();
        create(&fs, root, "d/target", b"old");
        create(&fs, root, "tmp", b"new");
        let fs = Arc::new(fs);
        let f2 = fs.clone();
        let h = thread::spawn(move || f2.path_rename(root, b"tmp", root, b"d/target").unwrap());
        let v = read(&fs, root, "d/target").expect("target missing mid-rename");
        assert!(v == b"old" || v == b"new");
        h.join().unwrap();
        assert_eq!(read(&fs, root, "d/target").unwrap(), b"new");
        fs.check_invariants().unwrap();
    });
}

/// Unlink (and a rename over the name) while another thread has the file open and writes.
#[test]
fn unlink_while_open() {
    check(|| {
        let (fs, root) = fresh();
        create(&fs, root, "f", b"");
        create(&fs, root, "g", b"gg");
        let fs = Arc::new(fs);
        let (f2, f3) = (fs.clone(), fs.clone());
        let w = thread::spawn(move || {
            if let Ok(fd) = f2.path_open(root, FOLLOW, b"f", 0, RW, RW, fdflags::APPEND) {
                f2.fd_write(fd, &[b"abc"]).unwrap();
                let mut b = [0u8; 8];
                let n = f2.fd_pread(fd, &mut [&mut b], 0).unwrap();
                assert!(&b[..n] == b"abc" || &b[..n] == b"gg" || b[..n].ends_with(b"abc"));
                f2.fd_close(fd).unwrap();
            }
        });
        let u = thread::spawn(move || {
            let _ = f3.path_unlink_file(root, b"f");
        });
        let _ = fs.path_rename(root, b"g", root, b"f");
        w.join().unwrap();
        u.join().unwrap();
        assert_eq!(fs.open_fds(), 1);
        fs.check_invariants().unwrap();
    });
}

/// The directory lock's short reads (`dir_lock.rs`): lookups and stats of one directory while
/// another thread creates, renames and removes entries in it. Under the `shuttle` feature the
/// lock asserts that a short reader never meets a writer; here every answer must also be one
/// that some moment of the writer's sequence could give.
#[test]
fn lookups_during_directory_writes() {
    check(|| {
        let (fs, root) = fresh();
        fs.path_create_directory(root, b"d").unwrap();
        let fs = Arc::new(fs);
        let w = {
            let fs = fs.clone();
            thread::spawn(move || {
                fs.path_create_directory(root, b"d/x").unwrap();
                fs.path_rename(root, b"d/x", root, b"d/y").unwrap();
                fs.path_remove_directory(root, b"d/y").unwrap();
            })
        };
        let readers: Vec<_> = (0..2)
            .map(|i| {
                let fs = fs.clone();
                thread::spawn(move || {
                    let name: &[u8] = if i == 0 { b"d/x" } else { b"d/y" };
                    match fs.path_filestat_get(root, FOLLOW, name) {
                        Ok(st) => assert_eq!(st.filetype, FileType::Directory),
                        Err(e) => assert_eq!(e, Errno::Noent),
                    }
                    let n = fs.path_filestat_get(root, FOLLOW, b"d").unwrap().size;
                    assert!(n <= 1, "d never holds two entries, saw {n}");
                })
            })
            .collect();
        w.join().unwrap();
        for r in readers {
            r.join().unwrap();
        }
        assert_eq!(fs.path_filestat_get(root, FOLLOW, b"d").unwrap().size, 0);
        fs.check_invariants().unwrap();
    });
}

/// Two `fd_read`s of one fd while a third thread closes it. A read holds the slot's write lock
/// from reading the offset to moving it, so each read gets the next bytes or EBADF: never bytes
/// another read got, never a gap; and the close waits for a read in progress.
#[test]
fn reads_race_close() {
    check(|| {
        let (fs, root) = fresh();
        create(&fs, root, "f", b"abcd");
        let fd = fs.path_open(root, FOLLOW, b"f", 0, RO, RO, 0).unwrap();
        let fs = Arc::new(fs);
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let fs = fs.clone();
                thread::spawn(move || {
                    let mut b = [0u8; 2];
                    match fs.fd_read(fd, &mut [&mut b]) {
                        Ok(n) => {
                            assert_eq!(n, 2);
                            Some(b)
                        }
                        Err(e) => {
                            assert_eq!(e, Errno::Badf);
                            None
                        }
                    }
                })
            })
            .collect();
        fs.fd_close(fd).unwrap();
        let mut got: Vec<[u8; 2]> = readers.into_iter().filter_map(|h| h.join().unwrap()).collect();
        got.sort();
        let ok: [&[[u8; 2]]; 3] = [&[], &[*b"ab"], &[*b"ab", *b"cd"]];
        assert!(ok.contains(&&got[..]), "reads of one fd repeated or skipped bytes: {got:?}");
        assert_eq!(fs.fd_read(fd, &mut [&mut [0u8; 2]]), Err(Errno::Badf));
        assert_eq!(fs.open_fds(), 1);
        fs.check_invariants().unwrap();
    });
}

/// `fd_renumber(a, b)` while one thread writes through `a` and another through `b`. The
/// description moves with its offset once the write through `a` has returned, so a write
/// through `b` after the move lands after it, never over it; a write through `a` after the move
/// gets EBADF; a write through `b` before the move lands in `b`'s old file.
#[test]
fn renumber_races_writes() {
    check(|| {
        let (fs, root) = fresh();
        let a = fs.path_open(root, FOLLOW, b"f1", oflags::CREAT, RW, RW, 0).unwrap();
        let b = fs.path_open(root, FOLLOW, b"f2", oflags::CREAT, RW, RW, 0).unwrap();
        let fs = Arc::new(fs);
        let (fa, fb) = (fs.clone(), fs.clone());
        let wa = thread::spawn(move || match fa.fd_write(a, &[b"aa"]) {
            Ok(n) => n == 2,
            Err(e) => {
                assert_eq!(e, Errno::Badf);
                false
            }
        });
        let wb = thread::spawn(move || assert_eq!(fb.fd_write(b, &[b"bb"]).unwrap(), 2));
        fs.fd_renumber(a, b).unwrap();
        let a_wrote = wa.join().unwrap();
        wb.join().unwrap();
        let (f1, f2) = (read(&fs, root, "f1").unwrap(), read(&fs, root, "f2").unwrap());
        let mut want = if a_wrote { b"aa".to_vec() } else { Vec::new() };
        if f2.is_empty() {
            want.extend_from_slice(b"bb");
        } else {
            assert_eq!(f2, b"bb");
        }
        assert_eq!(f1, want, "a write through the renumbered fd was lost or overwritten");
        assert_eq!(fs.fd_write(a, &[b"x"]), Err(Errno::Badf));
        fs.fd_close(b).unwrap();
        assert_eq!(fs.open_fds(), 1);
        fs.check_invariants().unwrap();
    });
}
