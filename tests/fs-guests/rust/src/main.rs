//! The in-program filesystem from Rust std: std::fs on spindle's /tmp (write/read, read_dir,
//! metadata, rename, hard and symbolic links, set_len, remove), and with the argument `threads`
//! a file written by one thread and read by another, and a File shared by threads; last,
//! relative paths after set_current_dir("/tmp").
//! Prints "fs_rust ok" and exits 0, or panics (exit code != 0).

// The one line a Rust program needs: link the crate so its WASI symbols replace the host's.
// (Built without the feature, the program has no such line and links libspindle-fs.a through
// `-C link-arg` instead.)
#[cfg(feature = "crate")]
use spindle_wasi_fs as _;

/// spindle's first fd number (`FD_BASE`); 3 in the build without the in-program FS
/// (FS_GUEST_PLAIN=1 at build time: the program runs on the runtime's filesystem).
const FD_BASE: u32 = if option_env!("FS_GUEST_PLAIN").is_some() { 3 } else { 1 << 30 };

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::sync::Arc;

fn basics() {
    fs::write("/tmp/r.txt", b"hello from rust").unwrap();
    assert_eq!(fs::read_to_string("/tmp/r.txt").unwrap(), "hello from rust");
    let f = File::open("/tmp/r.txt").unwrap();
    assert!(f.as_raw_fd() as u32 >= FD_BASE, "a spindle fd");
    let m = f.metadata().unwrap();
    assert!(m.is_file() && m.len() == 15);
    assert!(m.modified().unwrap() > std::time::UNIX_EPOCH);
    drop(f);

    // set_len, seek, append
    let mut f = OpenOptions::new().read(true).write(true).open("/tmp/r.txt").unwrap();
    f.set_len(5).unwrap();
    f.seek(SeekFrom::End(0)).unwrap();
    f.write_all(b", world").unwrap();
    f.seek(SeekFrom::Start(0)).unwrap();
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    assert_eq!(s, "hello, world");
    f.set_len(100).unwrap();
    assert_eq!(f.metadata().unwrap().len(), 100);
    drop(f);

    // directories
    fs::create_dir_all("/tmp/a/b/c").unwrap();
    for i in 0..10 {
        fs::write(format!("/tmp/a/b/f{i}"), i.to_string()).unwrap();
    }
    let mut names: Vec<String> =
        fs::read_dir("/tmp/a/b").unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let mut want: Vec<String> = (0..10).map(|i| format!("f{i}")).collect();
    want.push("c".into());
    want.sort();
    assert_eq!(names, want);
    let e = fs::read_dir("/tmp/a/b").unwrap().map(|e| e.unwrap()).find(|e| e.file_name() == "c").unwrap();
    assert!(e.file_type().unwrap().is_dir());
    assert!(fs::metadata("/tmp/a/b/c").unwrap().is_dir());
    // ENOTEMPTY (std on wasip1 reports it as an uncategorised error; the raw value is WASI's)
    assert_eq!(fs::remove_dir("/tmp/a/b").unwrap_err().raw_os_error(), Some(55));

    // rename, links
    fs::rename("/tmp/a/b/f0", "/tmp/a/moved").unwrap();
    assert_eq!(fs::read_to_string("/tmp/a/moved").unwrap(), "0");
    assert_eq!(fs::metadata("/tmp/a/b/f0").unwrap_err().kind(), ErrorKind::NotFound);
    fs::hard_link("/tmp/a/moved", "/tmp/a/hard").unwrap();
    #[allow(deprecated)] // the portable std spelling; std::os::wasi::fs::symlink_path is unstable
    fs::soft_link("moved", "/tmp/a/soft").unwrap();
    assert_eq!(fs::read_link("/tmp/a/soft").unwrap().to_str().unwrap(), "moved");
    assert!(fs::symlink_metadata("/tmp/a/soft").unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string("/tmp/a/soft").unwrap(), "0");
    fs::write("/tmp/a/hard", "changed").unwrap();
    assert_eq!(fs::read_to_string("/tmp/a/moved").unwrap(), "changed");

    fs::remove_dir_all("/tmp/a").unwrap();
    assert_eq!(fs::metadata("/tmp/a").unwrap_err().kind(), ErrorKind::NotFound);
    fs::remove_file("/tmp/r.txt").unwrap();
}

fn threads() {
    // A file written by one thread is read by another.
    std::thread::spawn(|| fs::write("/tmp/t.txt", "from a thread").unwrap()).join().unwrap();
    let s = std::thread::spawn(|| fs::read_to_string("/tmp/t.txt").unwrap()).join().unwrap();
    assert_eq!(s, "from a thread");
    // A File opened here (O_APPEND) is written by 4 threads at once: every record lands whole.
    let f = Arc::new(OpenOptions::new().create(true).append(true).open("/tmp/shared.bin").unwrap());
    let hs: Vec<_> = (0..4u8)
        .map(|t| {
            let f = f.clone();
            std::thread::spawn(move || {
                for _ in 0..256 {
                    (&*f).write_all(&[t; 16]).unwrap();
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let data = fs::read("/tmp/shared.bin").unwrap();
    assert_eq!(data.len(), 4 * 256 * 16);
    let mut per = [0; 4];
    for chunk in data.chunks(16) {
        assert!(chunk.iter().all(|&b| b == chunk[0]));
        per[chunk[0] as usize] += 1;
    }
    assert_eq!(per, [256; 4]);
}

/// A memory mount made at run time is found by std::fs (registered as a wasi-libc preopen).
#[cfg(feature = "crate")]
fn runtime_mount() {
    assert_eq!(fs::metadata("/rdata").unwrap_err().kind(), ErrorKind::NotFound);
    let fd = spindle_wasi_fs::mount(b"/rdata").unwrap();
    assert!(fd as u32 >= FD_BASE);
    fs::write("/rdata/x", "mounted").unwrap();
    assert_eq!(fs::read_to_string("/rdata/x").unwrap(), "mounted");
    assert_eq!(fs::rename("/rdata/x", "/tmp/x").unwrap_err().raw_os_error(), Some(75));
    // EXDEV
}

/// Relative paths after `set_current_dir`: std hands them to wasi-libc's
/// `__wasilibc_find_relpath` (with its own 512-byte buffer), which joins them to the cwd.
/// Runs last: the cwd cannot be set back to "/" (wasi-libc's chdir("/") is ENOENT while no
/// preopen is registered for "/"; tests/fs-guests/c/preopens.c pins the C side).
fn cwd() {
    use std::env::{current_dir, set_current_dir};
    use std::path::Path;
    assert_eq!(current_dir().unwrap(), Path::new("/"));
    set_current_dir("/tmp").unwrap();
    assert_eq!(current_dir().unwrap(), Path::new("/tmp"));
    fs::write("relfile", "relative").unwrap();
    assert_eq!(fs::read("relfile").unwrap(), b"relative");
    assert_eq!(fs::read_to_string("/tmp/relfile").unwrap(), "relative");
    assert_eq!(fs::read_to_string("./relfile").unwrap(), "relative");
    fs::create_dir("reldir").unwrap();
    set_current_dir("reldir").unwrap();
    assert_eq!(current_dir().unwrap(), Path::new("/tmp/reldir"));
    fs::write("inner", "in reldir").unwrap();
    assert_eq!(fs::read_to_string("/tmp/reldir/inner").unwrap(), "in reldir");
    set_current_dir("/tmp").unwrap();
    // A relative part longer than std's first 512-byte buffer: wasi-libc (chdir linked) says it
    // does not fit and std retries with a bigger buffer.
    let dir = ["a", "b", "c"].map(|c| c.repeat(200)).join("/");
    fs::create_dir_all(&dir).unwrap();
    let long = format!("{dir}/{}", "d".repeat(100));
    assert_eq!(long.len(), 703);
    fs::write(&long, "long").unwrap();
    assert_eq!(fs::read_to_string(&long).unwrap(), "long");
    assert_eq!(fs::read_to_string(format!("/tmp/{long}")).unwrap(), "long");
    fs::remove_dir_all("a".repeat(200)).unwrap();
    // No preopen for "/", so no way back to it.
    assert_eq!(set_current_dir("/").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(current_dir().unwrap(), Path::new("/tmp"));
    fs::remove_file("relfile").unwrap();
    fs::remove_dir_all("reldir").unwrap();
    assert_eq!(fs::metadata("/tmp/relfile").unwrap_err().kind(), ErrorKind::NotFound);
}

fn main() {
    basics();
    #[cfg(feature = "crate")]
    runtime_mount();
    if std::env::args().any(|a| a == "threads") {
        threads();
    }
    cwd();
    println!("fs_rust ok");
}
