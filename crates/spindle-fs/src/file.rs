//! Regular-file contents: fixed-size chunks in an ordered map, so growth never copies the file
//! and holes cost nothing (a missing chunk reads as zeros). Chunk 0 is special: it is a vector
//! (`head`) that grows with the data up to one chunk, so a small file costs its size and one
//! allocation, not a 4 KiB chunk plus a map node; truncation keeps the head's capacity, so a
//! file rewritten with O_TRUNC reuses it without allocating.
//!
//! Invariants: `head.len() <= min(size, CHUNK)` and `head.capacity() <= CHUNK`; bytes of chunk
//! 0 at or past `head.len()` read as zero; every map key `i` satisfies `1 <= i` and
//! `i * CHUNK < size` (chunks past the end are freed on truncate); bytes of a map chunk at or
//! past `size` are zero, so extending a file (truncate up, a write past the end) exposes zeros
//! without touching them.
//!
//! Out of memory: file data is where a memory filesystem's memory goes, so its allocations are
//! fallible: a write that cannot get memory for its bytes stops there, as a full tmpfs does
//! (a short write, or ENOSPC if nothing was written), and the file keeps what was written.
//! The map's own nodes (one per ~11 chunks) and all other metadata still allocate infallibly.
//!
//! Thread rules: `FileData` has no lock of its own; it lives in the inode's `RwLock`
//! (`inode.rs`): reads and preads share it, writes and size changes take it exclusively, which
//! is what makes an O_APPEND write atomic with respect to other writes.

use crate::errno::{Errno, Result};
use alloc::boxed::Box;
use alloc::collections::btree_map::Entry;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::alloc::Layout;

/// Bytes per chunk (one wasm page is 16 of them).
pub(crate) const CHUNK: usize = 4096;
/// Largest file size, as on Linux (`MAX_LFS_FILESIZE`): offsets stay valid `i64`.
pub(crate) const MAX_SIZE: u64 = i64::MAX as u64;

type Chunk = [u8; CHUNK];

/// The contents of one regular file.
#[derive(Default)]
pub(crate) struct FileData {
    /// Chunk 0, as long as its data (module doc).
    head: Vec<u8>,
    /// Chunks 1 and up.
    chunks: BTreeMap<u64, Box<Chunk>>,
    size: u64,
}

impl FileData {
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Bytes held in memory (allocated chunks), for the tests.
    #[cfg(test)]
    pub(crate) fn allocated(&self) -> usize {
        self.head.capacity() + self.chunks.len() * CHUNK
    }

    /// Reads from `off` into `bufs` in order; returns bytes read (0 at or past the end).
    pub(crate) fn read_at(&self, mut off: u64, bufs: &mut [&mut [u8]]) -> usize {
        let mut total = 0;
        for buf in bufs.iter_mut() {
            if off >= self.size {
                break;
            }
            let n = (buf.len() as u64).min(self.size - off) as usize;
            self.read_into(off, &mut buf[..n]);
            total += n;
            off += n as u64;
            if n < buf.len() {
                break;
            }
        }
        total
    }

    fn read_into(&self, off: u64, out: &mut [u8]) {
        let mut done = 0;
        while done < out.len() {
            let pos = off + done as u64;
            let (idx, at) = (pos / CHUNK as u64, (pos % CHUNK as u64) as usize);
            let n = (CHUNK - at).min(out.len() - done);
            let dst = &mut out[done..done + n];
            if idx == 0 {
                let have = self.head.len().saturating_sub(at).min(n);
                if have > 0 {
                    dst[..have].copy_from_slice(&self.head[at..at + have]);
                }
                dst[have..].fill(0);
            } else {
                match self.chunks.get(&idx) {
                    Some(c) => dst.copy_from_slice(&c[at..at + n]),
                    None => dst.fill(0),
                }
            }
            done += n;
        }
    }

    /// Writes `bufs` in order at `off`, growing the file; returns bytes written: fewer than
    /// asked if memory ran out after some bytes (module doc), ENOSPC if before any.
    pub(crate) fn write_at(&mut self, off: u64, bufs: &[&[u8]]) -> Result<usize> {
        let len: usize = bufs.iter().map(|b| b.len()).sum();
        let end = off.checked_add(len as u64).ok_or(Errno::Fbig)?;
        if end > MAX_SIZE {
            return Err(Errno::Fbig);
        }
        let mut done = 0;
        for buf in bufs {
            let n = self.write_one(off + done as u64, buf);
            done += n;
            if n < buf.len() {
                break;
            }
        }
        if done == 0 && len > 0 {
            return Err(Errno::Nospc);
        }
        self.size = self.size.max(off + done as u64);
        Ok(done)
    }

    /// Writes `data` at `off`; returns the bytes written (fewer if memory ran out).
    fn write_one(&mut self, off: u64, data: &[u8]) -> usize {
        let mut done = 0;
        while done < data.len() {
            let pos = off + done as u64;
            let (idx, at) = (pos / CHUNK as u64, (pos % CHUNK as u64) as usize);
            let n = (CHUNK - at).min(data.len() - done);
            let part = &data[done..done + n];
            if idx == 0 {
                if self.write_head(at, part).is_err() {
                    break;
                }
            } else {
                let chunk = match self.chunks.entry(idx) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => match zero_chunk() {
                        Some(c) => e.insert(c),
                        None => break,
                    },
                };
                chunk[at..at + n].copy_from_slice(part);
            }
            done += n;
        }
        done
    }

    /// Writes `data` at `at` in chunk 0 (`at + data.len() <= CHUNK`); Err if out of memory
    /// (nothing written then).
    fn write_head(&mut self, at: usize, data: &[u8]) -> core::result::Result<(), ()> {
        let end = at + data.len();
        let cap = self.head.capacity();
        if end > cap {
            // Doubling (from 64 bytes) bounds the copies of a growing head; never past CHUNK.
            // If that much is not available, exactly what this write needs.
            let want = end.max((cap * 2).clamp(64, CHUNK));
            let len = self.head.len();
            if self.head.try_reserve_exact(want - len).is_err() {
                self.head.try_reserve_exact(end - len).map_err(|_| ())?;
            }
        }
        let len = self.head.len();
        if at > len {
            self.head.resize(at, 0);
        }
        let overlap = len.saturating_sub(at).min(data.len());
        self.head[at..at + overlap].copy_from_slice(&data[..overlap]);
        self.head.extend_from_slice(&data[overlap..]);
        Ok(())
    }

    /// Truncates or extends to `size`; new bytes read as zero.
    pub(crate) fn set_size(&mut self, size: u64) -> Result<()> {
        if size > MAX_SIZE {
            return Err(Errno::Fbig);
        }
        if size < self.size {
            let first_gone = size.div_ceil(CHUNK as u64).max(1);
            let _ = self.chunks.split_off(&first_gone);
            let (idx, at) = (size / CHUNK as u64, (size % CHUNK as u64) as usize);
            if idx == 0 {
                self.head.truncate(at);
            } else if at != 0 {
                if let Some(c) = self.chunks.get_mut(&idx) {
                    c[at..].fill(0);
                }
            }
        }
        self.size = size;
        Ok(())
    }
}

/// A zeroed chunk, or None if the allocator has no memory for it.
#[cold]
fn zero_chunk() -> Option<Box<Chunk>> {
    // Box::new([0; CHUNK]) may build the array on the stack first; go through the zeroed
    // allocator path instead (fresh wasm pages are zero already).
    let layout = Layout::new::<Chunk>();
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { alloc::alloc::alloc_zeroed(layout) } as *mut Chunk;
    // SAFETY: non-null, allocated by the global allocator with `Chunk`'s layout and zeroed,
    // which is a valid `[u8; CHUNK]`; the Box frees it with the same layout.
    (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(f: &FileData) -> alloc::vec::Vec<u8> {
        let mut v = alloc::vec![0xAAu8; f.size() as usize];
        let n = f.read_at(0, &mut [&mut v[..]]);
        assert_eq!(n, v.len());
        v
    }

    #[test]
    fn holes_read_as_zero() {
        let mut f = FileData::default();
        f.write_at(3 * CHUNK as u64 + 5, &[b"xy"]).unwrap();
        assert_eq!(f.size(), 3 * CHUNK as u64 + 7);
        assert_eq!(f.chunks.len(), 1);
        let v = read_all(&f);
        assert!(v[..3 * CHUNK + 5].iter().all(|&b| b == 0));
        assert_eq!(&v[3 * CHUNK + 5..], b"xy");
    }

    #[test]
    fn truncate_then_extend_exposes_zeros() {
        let mut f = FileData::default();
        f.write_at(0, &[&[7u8; 10000]]).unwrap();
        f.set_size(5000).unwrap();
        assert_eq!((f.head.len(), f.chunks.len()), (CHUNK, 1));
        f.set_size(9000).unwrap();
        let v = read_all(&f);
        assert!(v[..5000].iter().all(|&b| b == 7));
        assert!(v[5000..].iter().all(|&b| b == 0));
        f.set_size(100).unwrap();
        f.set_size(200).unwrap();
        let v = read_all(&f);
        assert!(v[..100].iter().all(|&b| b == 7) && v[100..].iter().all(|&b| b == 0));
        let mut x = [9u8; 50];
        assert_eq!(f.read_at(150, &mut [&mut x]), 50); // past the head, inside the size
        assert!(x.iter().all(|&b| b == 0));
        f.set_size(0).unwrap();
        assert_eq!((f.head.len(), f.chunks.len()), (0, 0));
        // The head's capacity stays for the rewrite.
        assert_eq!(f.allocated(), CHUNK);
    }

    #[test]
    fn scatter_gather_across_chunks() {
        let mut f = FileData::default();
        let a = [1u8; 3000];
        let b = [2u8; 3000];
        assert_eq!(f.write_at(100, &[&a, &b]).unwrap(), 6000);
        let mut x = [0u8; 50];
        let mut y = [0u8; 7000];
        let n = f.read_at(90, &mut [&mut x, &mut y]);
        assert_eq!(n, 6010);
        assert!(x[..10].iter().all(|&c| c == 0) && x[10..].iter().all(|&c| c == 1));
        assert_eq!(y[2959], 1);
        assert_eq!(y[2960], 2);
        assert_eq!(f.read_at(6100, &mut [&mut x]), 0);
    }

    #[test]
    fn small_files_cost_their_size_and_head_writes_overlap_and_leave_holes() {
        let mut f = FileData::default();
        f.write_at(0, &[&[1u8; 1024]]).unwrap();
        assert!(f.allocated() < 2048 && f.chunks.is_empty());
        f.write_at(1000, &[&[2u8; 100]]).unwrap(); // overlaps the end and extends
        f.write_at(2000, &[b"z"]).unwrap(); // leaves a hole in chunk 0
        f.write_at(4090, &[&[3u8; 10]]).unwrap(); // crosses into chunk 1
        let v = read_all(&f);
        assert_eq!(v.len(), 4100);
        assert!(v[..1000].iter().all(|&b| b == 1) && v[1000..1100].iter().all(|&b| b == 2));
        assert!(v[1100..2000].iter().all(|&b| b == 0) && v[2000] == b'z');
        assert!(v[2001..4090].iter().all(|&b| b == 0) && v[4090..].iter().all(|&b| b == 3));
        assert_eq!((f.head.len(), f.chunks.len()), (CHUNK, 1));
        assert!(f.head.capacity() <= CHUNK);
        let mut x = [9u8; 8];
        assert_eq!(f.read_at(1996, &mut [&mut x]), 8);
        assert_eq!(x, [0, 0, 0, 0, b'z', 0, 0, 0]);
    }

    #[test]
    fn too_big() {
        let mut f = FileData::default();
        assert_eq!(f.write_at(MAX_SIZE, &[b"a"]), Err(Errno::Fbig));
        assert_eq!(f.write_at(u64::MAX, &[b"a"]), Err(Errno::Fbig));
        assert_eq!(f.write_at(MAX_SIZE - 1, &[b"a"]), Ok(1));
    }
}
