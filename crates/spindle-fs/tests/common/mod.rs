#![allow(dead_code)]
use spindle_fs::*;

pub const RW: u64 = rights::ALL;
pub const RO: u64 = rights::ALL & !rights::WRITE_MODE;
pub const FOLLOW: u32 = lookupflags::SYMLINK_FOLLOW;

pub fn fresh() -> (Fs, Fd) {
    let fs = Fs::new(|| 1);
    let root = fs.preopen(b"/sandbox").unwrap();
    (fs, root)
}

pub fn create(fs: &Fs, dir: Fd, path: &str, data: &[u8]) {
    let fd = fs.path_open(dir, FOLLOW, path.as_bytes(), oflags::CREAT | oflags::TRUNC, RW, RW, 0).unwrap();
    assert_eq!(fs.fd_write(fd, &[data]).unwrap(), data.len());
    fs.fd_close(fd).unwrap();
}

pub fn read(fs: &Fs, dir: Fd, path: &str) -> Result<Vec<u8>> {
    let fd = fs.path_open(dir, FOLLOW, path.as_bytes(), 0, RO, RO, 0)?;
    let mut out = Vec::new();
    let mut buf = [0u8; 1000];
    loop {
        let n = fs.fd_read(fd, &mut [&mut buf[..]])?;
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    fs.fd_close(fd)?;
    Ok(out)
}

pub fn names(fs: &Fs, dir: Fd, path: &str) -> Vec<String> {
    let fd = fs.path_open(dir, FOLLOW, path.as_bytes(), oflags::DIRECTORY, RO, RO, 0).unwrap();
    let mut v: Vec<String> = fs
        .fd_readdir(fd, 0, usize::MAX)
        .unwrap()
        .into_iter()
        .map(|e| String::from_utf8(e.name).unwrap())
        .filter(|n| n != "." && n != "..")
        .collect();
    fs.fd_close(fd).unwrap();
    v.sort();
    v
}
