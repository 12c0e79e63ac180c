//! Out of memory while writing file data: a short write or ENOSPC, as from a full tmpfs, and
//! the file system goes on working. The global allocator of this test binary refuses
//! chunk-sized (>= 4 KiB) allocations once a budget of them is spent; smaller ones (metadata,
//! the test harness) always succeed. One test function, so no other test shares the switch.
mod common;
use common::*;
use spindle_fs::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::SeqCst};

/// How many more large allocations may succeed; negative: unlimited.
static LARGE_LEFT: AtomicIsize = AtomicIsize::new(-1);

struct Budget;

// SAFETY: forwards to the system allocator, or returns null (allowed for any allocation).
unsafe impl GlobalAlloc for Budget {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.size() >= 4096 && LARGE_LEFT.fetch_sub(1, SeqCst) == 0 {
            LARGE_LEFT.store(0, SeqCst);
            return std::ptr::null_mut();
        }
        // SAFETY: same layout contract.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: same layout contract.
        let p = unsafe { self.alloc(l) };
        if !p.is_null() {
            // SAFETY: `p` has `l.size()` bytes.
            unsafe { p.write_bytes(0, l.size()) };
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: allocated by `System` with `l`.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Budget = Budget;

fn limit(large: isize) {
    LARGE_LEFT.store(large, SeqCst);
}

#[test]
fn writes_stop_at_out_of_memory_and_the_fs_goes_on() {
    // A failed assert must not run out of memory itself (the default hook's backtrace would,
    // and the process would hang or abort instead of reporting).
    std::panic::set_hook(Box::new(|info| {
        limit(-1);
        eprintln!("{info}");
    }));
    let (fs, root) = fresh();
    let fd = fs.path_open(root, FOLLOW, b"big", oflags::CREAT, RW, RW, 0).unwrap();
    let block = vec![7u8; 40 * 1024];
    let mut back = vec![0u8; 3 * 4096]; // allocated before the limit
    limit(-1);
    assert_eq!(fs.fd_write(fd, &[&block[..100]]).unwrap(), 100); // the head (small allocations)

    // Room for 3 more chunks: the head's growth to 4 KiB, then chunks 1 and 2 of the file.
    limit(3);
    assert_eq!(
        fs.fd_write(fd, &[&block]).unwrap(),
        3 * 4096 - 100,
        "a short write up to the memory there was"
    );
    assert_eq!(fs.fd_write(fd, &[&block]), Err(Errno::Nospc), "nothing more fits");
    assert_eq!(
        fs.fd_pwrite(fd, &[&block[..10]], 1 << 20),
        Err(Errno::Nospc),
        "a failed write does not extend"
    );
    assert_eq!(fs.fd_filestat_get(fd).unwrap().size, 3 * 4096);
    assert_eq!(fs.fd_tell(fd).unwrap(), 3 * 4096);
    // What was written is all there; overwriting allocated bytes needs no memory.
    assert_eq!(fs.fd_pread(fd, &mut [&mut back], 0).unwrap(), back.len());
    assert!(back.iter().all(|&b| b == 7));
    assert_eq!(fs.fd_pwrite(fd, &[&[9u8; 5000]], 10).unwrap(), 5000);
    // Metadata still works (small allocations), and so does every other call.
    create(&fs, root, "small", b"x");
    assert_eq!(read(&fs, root, "small").unwrap(), b"x");

    // A tar import that runs out of memory fails with ENOSPC instead of keeping a short file.
    limit(-1);
    let mut tar = Vec::new();
    fs.tar_export(root, b"big", &mut |b| {
        tar.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    let dest = fs.preopen(b"/dest").unwrap();
    limit(1);
    assert_eq!(fs.tar_import(dest, b".", &tar), Err(Errno::Nospc));

    // Memory comes back: truncate and write again.
    limit(-1);
    fs.fd_filestat_set_size(fd, 0).unwrap();
    fs.fd_seek(fd, 0, Whence::Set).unwrap();
    assert_eq!(fs.fd_write(fd, &[&block]).unwrap(), block.len());
    fs.fd_close(fd).unwrap();
    assert_eq!(read(&fs, root, "big").unwrap(), block);
}
