//! tar export/import round trips and hostile archives.
mod common;
use common::*;
use spindle_fs::*;

fn export(fs: &Fs, fd: Fd, path: &str) -> Vec<u8> {
    let mut out = Vec::new();
    fs.tar_export(fd, path.as_bytes(), &mut |b| {
        out.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn round_trip_keeps_everything() {
    let fs = Fs::new(|| 1_700_000_000_123_456_789);
    let src = fs.preopen(b"/src").unwrap();
    let long_dir = "d".repeat(120);
    let long_file = "f".repeat(200);
    fs.path_create_directory(src, b"sub").unwrap();
    fs.path_create_directory(src, long_dir.as_bytes()).unwrap();
    create(&fs, src, "sub/hello.txt", b"hello");
    create(&fs, src, &format!("{long_dir}/{long_file}"), b"long");
    let big: Vec<u8> = (0..20000u32).map(|i| (i % 251) as u8).collect();
    create(&fs, src, "big.bin", &big);
    fs.path_symlink(b"sub/hello.txt", src, b"link").unwrap();
    fs.path_symlink("x".repeat(150).as_bytes(), src, b"longlink").unwrap();
    fs.path_link(src, 0, b"sub/hello.txt", src, b"hard").unwrap();
    let fd = fs.path_open(src, 0, b"sparse", oflags::CREAT, RW, RW, 0).unwrap();
    fs.fd_pwrite(fd, &[b"end"], 10000).unwrap();
    fs.fd_close(fd).unwrap();
    fs.path_create_directory(src, b"empty").unwrap();
    fs.path_filestat_set_times(src, 0, b"sub/hello.txt", 0, 42_000_000_000, fstflags::MTIM).unwrap();

    let tar = export(&fs, src, ".");
    assert_eq!(tar.len() % 512, 0);

    let dst = fs.preopen(b"/dst").unwrap();
    let n = fs.tar_import(dst, b"copy", &tar).unwrap();
    assert_eq!(n, 10);
    assert_eq!(read(&fs, dst, "copy/sub/hello.txt").unwrap(), b"hello");
    assert_eq!(read(&fs, dst, &format!("copy/{long_dir}/{long_file}")).unwrap(), b"long");
    assert_eq!(read(&fs, dst, "copy/big.bin").unwrap(), big);
    assert_eq!(read(&fs, dst, "copy/link").unwrap(), b"hello");
    let mut b = [0u8; 200];
    let k = fs.path_readlink(dst, b"copy/longlink", &mut b).unwrap();
    assert_eq!(&b[..k], "x".repeat(150).as_bytes());
    let s = fs.path_filestat_get(dst, 0, b"copy/hard").unwrap();
    assert_eq!(s.nlink, 2);
    assert_eq!(s.ino, fs.path_filestat_get(dst, 0, b"copy/sub/hello.txt").unwrap().ino);
    assert_eq!(s.mtim, 42_000_000_000);
    let r = read(&fs, dst, "copy/sparse").unwrap();
    assert_eq!(r.len(), 10003);
    assert!(r[..10000].iter().all(|&c| c == 0));
    assert_eq!(fs.path_filestat_get(dst, 0, b"copy/empty").unwrap().filetype, FileType::Directory);
    assert_eq!(fs.path_filestat_get(dst, 0, b"copy/big.bin").unwrap().mtim, 1_700_000_000_000_000_000);
    // Export of the copy is byte-identical to the original export.
    assert_eq!(export(&fs, dst, "copy"), tar);
    fs.check_invariants().unwrap();
}

/// Builds a one-entry ustar archive by hand.
fn entry(name: &str, kind: u8, link: &str, data: &[u8]) -> Vec<u8> {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"0000644\0");
    h[124..136].copy_from_slice(format!("{:011o}\0", data.len()).as_bytes());
    h[136..148].copy_from_slice(b"00000000000\0");
    h[156] = kind;
    h[157..157 + link.len()].copy_from_slice(link.as_bytes());
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| b as u32).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    let mut v = h.to_vec();
    v.extend_from_slice(data);
    v.resize(v.len().div_ceil(512) * 512, 0);
    v
}

#[test]
fn hostile_archives_are_refused() {
    let fs = Fs::new(|| 0);
    fs.mount_memory(b"/outside", false).unwrap();
    let out = fs.preopen(b"/outside").unwrap();
    let d = fs.preopen(b"/in").unwrap();
    let end = vec![0u8; 1024];
    for bad in [
        [entry("../outside/x", b'0', "", b"evil"), end.clone()].concat(),
        [entry("a/../../x", b'0', "", b"evil"), end.clone()].concat(),
        [entry("up", b'2', "..", b""), entry("up/x", b'0', "", b"evil"), end.clone()].concat(),
        [entry("root", b'2', "/", b""), entry("root/outside/x", b'0', "", b"evil"), end.clone()].concat(),
    ] {
        assert_eq!(fs.tar_import(d, b".", &bad), Err(Errno::Notcapable));
    }
    assert_eq!(read(&fs, out, "x"), Err(Errno::Noent));
    // A leading slash is stripped and stays inside.
    fs.tar_import(d, b".", &[entry("/abs/ok", b'0', "", b"fine"), end.clone()].concat()).unwrap();
    assert_eq!(read(&fs, d, "abs/ok").unwrap(), b"fine");
    // Corrupt: bad checksum, truncated data.
    let mut bad = entry("c", b'0', "", b"data");
    bad[0] = b'C';
    assert_eq!(fs.tar_import(d, b".", &[bad, end.clone()].concat()), Err(Errno::Inval));
    let trunc = entry("t", b'0', "", &[1u8; 2000]);
    assert_eq!(fs.tar_import(d, b".", &trunc[..1000]), Err(Errno::Inval));
}

/// Interop with the system's GNU tar, when it is installed: it reads our archives and we read
/// its (pax format, long names, symlinks, hard links).
#[test]
fn interop_with_system_tar() {
    use std::process::Command;
    if Command::new("tar").arg("--version").output().is_err() {
        eprintln!("no system tar: skipped");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("spindle-tar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let src = tmp.join("src");
    let long = "n".repeat(180);
    std::fs::create_dir_all(src.join("dir").join(&long)).unwrap();
    std::fs::write(src.join("dir").join(&long).join("file.txt"), b"from gnu tar").unwrap();
    std::fs::write(src.join("a.txt"), b"AAA").unwrap();
    std::os::unix::fs::symlink("a.txt", src.join("sym")).unwrap();
    std::fs::hard_link(src.join("a.txt"), src.join("hard")).unwrap();
    let archive = tmp.join("gnu.tar");
    let st = Command::new("tar")
        .args(["--format=pax", "-cf"])
        .arg(&archive)
        .arg("-C")
        .arg(&src)
        .arg(".")
        .status()
        .unwrap();
    assert!(st.success());

    let fs = Fs::new(|| 0);
    let d = fs.preopen(b"/x").unwrap();
    fs.tar_import(d, b".", &std::fs::read(&archive).unwrap()).unwrap();
    assert_eq!(read(&fs, d, &format!("dir/{long}/file.txt")).unwrap(), b"from gnu tar");
    assert_eq!(read(&fs, d, "sym").unwrap(), b"AAA");
    assert_eq!(fs.path_filestat_get(d, 0, b"hard").unwrap().nlink, 2);

    let mut ours = Vec::new();
    fs.tar_export(d, b".", &mut |b| {
        ours.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    let ours_path = tmp.join("ours.tar");
    std::fs::write(&ours_path, &ours).unwrap();
    let out = tmp.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let st = Command::new("tar").arg("-xf").arg(&ours_path).arg("-C").arg(&out).status().unwrap();
    assert!(st.success());
    assert_eq!(std::fs::read(out.join("dir").join(&long).join("file.txt")).unwrap(), b"from gnu tar");
    assert_eq!(std::fs::read_link(out.join("sym")).unwrap().to_str().unwrap(), "a.txt");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn export_may_write_into_the_same_filesystem() {
    let (fs, root) = fresh();
    create(&fs, root, "a.txt", &[b'a'; 10000]);
    let out = fs.path_open(root, 0, b"snap.tar", oflags::CREAT, RW, RW, 0).unwrap();
    // The archive file itself is inside the exported tree: no deadlock.
    fs.tar_export(root, b".", &mut |b| fs.fd_write(out, &[b]).map(drop)).unwrap();
    fs.fd_close(out).unwrap();
    let tar = read(&fs, root, "snap.tar").unwrap();
    let d = fs.preopen(b"/restore").unwrap();
    fs.tar_import(d, b".", &tar).unwrap();
    assert_eq!(read(&fs, d, "a.txt").unwrap(), vec![b'a'; 10000]);
}
