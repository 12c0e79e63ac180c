//! Snapshots: export a subtree as a tar stream and import a tar stream into a directory
//! (ustar, with pax extended headers for long names/link targets/large sizes; GNU `L`/`K`
//! long names are read too). Files, directories, symlinks, hard links, modes and mtimes
//! (seconds; pax `mtime` fractions are read) survive a round trip.
//!
//! Import goes through the same confined path calls as the guest, relative to the target
//! directory fd, so a hostile archive (`../x`, `a/../../x`, a symlink to `/` followed by a file
//! under it) is refused with ENOTCAPABLE exactly like a guest escape; a leading `/` is stripped
//! (as GNU tar does). A checksum mismatch or a truncated archive is EINVAL; entries before it
//! stay imported.
//!
//! Thread rules: export takes each directory's read lock only to snapshot its entries and a
//! file's read lock only while copying one 4 KiB piece; the output callback runs with no lock
//! held, so it may write into the same filesystem (a file is then exported as it was piece by
//! piece, not as one snapshot).

use crate::errno::{Errno, Result};
use crate::fs::Fs;
use crate::inode::{Inode, Kind};
use crate::path::resolve_existing;
use crate::types::*;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering::Relaxed;

const BLOCK: usize = 512;
const NS: u64 = 1_000_000_000;

/// Writes `v` as zero-padded octal filling `field` but its last byte (NUL).
fn put_octal(field: &mut [u8], mut v: u64) {
    let n = field.len() - 1;
    for i in (0..n).rev() {
        field[i] = b'0' + (v & 7) as u8;
        v >>= 3;
    }
    field[n] = 0;
}

fn fits_octal(len: usize, v: u64) -> bool {
    v < 1u64 << (3 * (len - 1))
}

fn parse_octal(f: &[u8]) -> Result<u64> {
    if f.first().is_some_and(|&b| b & 0x80 != 0) {
        // GNU base-256.
        let mut v: u64 = (f[0] & 0x7f) as u64;
        for &b in &f[1..] {
            v = v.checked_mul(256).ok_or(Errno::Inval)? | b as u64;
        }
        return Ok(v);
    }
    let mut v: u64 = 0;
    for &b in f {
        match b {
            b'0'..=b'7' => v = v.checked_mul(8).ok_or(Errno::Inval)? + (b - b'0') as u64,
            b' ' | 0 if v == 0 => continue,
            b' ' | 0 => break,
            _ => return Err(Errno::Inval),
        }
    }
    Ok(v)
}

fn put_decimal(out: &mut Vec<u8>, mut v: u64) {
    let mut d = [0u8; 20];
    let mut i = d.len();
    loop {
        i -= 1;
        d[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&d[i..]);
}

/// One pax record "LEN key=value\n" (LEN counts itself).
fn pax_record(out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    let body = key.len() + value.len() + 3;
    let mut len = body + 1;
    loop {
        let mut digits = Vec::new();
        put_decimal(&mut digits, len as u64);
        if body + digits.len() == len {
            out.extend_from_slice(&digits);
            break;
        }
        len = body + digits.len();
    }
    out.push(b' ');
    out.extend_from_slice(key);
    out.push(b'=');
    out.extend_from_slice(value);
    out.push(b'\n');
}

struct Header<'a> {
    name: &'a [u8],
    link: &'a [u8],
    kind: u8,
    mode: u32,
    size: u64,
    mtime: u64,
}

fn checksum(h: &[u8; BLOCK]) -> u64 {
    h.iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { b' ' as u64 } else { b as u64 }).sum()
}

fn emit_header(h: &Header<'_>, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
    let mut pax = Vec::new();
    let (mut name, mut prefix): (&[u8], &[u8]) = (h.name, b"");
    if h.name.len() > 100 {
        // Try the ustar prefix split at a '/', else a pax path.
        match h
            .name
            .iter()
            .rposition(|&b| b == b'/')
            .filter(|&i| i <= 155 && h.name.len() - i - 1 <= 100 && i > 0)
        {
            Some(i) => {
                prefix = &h.name[..i];
                name = &h.name[i + 1..];
            }
            None => {
                pax_record(&mut pax, b"path", h.name);
                name = &h.name[..100];
            }
        }
    }
    let mut link = h.link;
    if link.len() > 100 {
        pax_record(&mut pax, b"linkpath", h.link);
        link = &h.link[..100];
    }
    if !fits_octal(12, h.size) {
        let mut v = Vec::new();
        put_decimal(&mut v, h.size);
        pax_record(&mut pax, b"size", &v);
    }
    if !pax.is_empty() {
        let ph = Header {
            name: b"././@PaxHeader",
            link: b"",
            kind: b'x',
            mode: 0o644,
            size: pax.len() as u64,
            mtime: 0,
        };
        emit_header(&ph, out)?;
        emit_data(&pax, out)?;
    }
    let mut b = [0u8; BLOCK];
    b[..name.len()].copy_from_slice(name);
    put_octal(&mut b[100..108], (h.mode & 0o7777) as u64);
    put_octal(&mut b[108..116], 0);
    put_octal(&mut b[116..124], 0);
    put_octal(&mut b[124..136], if fits_octal(12, h.size) { h.size } else { 0 });
    put_octal(&mut b[136..148], h.mtime.min((1 << 33) - 1));
    b[156] = h.kind;
    b[157..157 + link.len()].copy_from_slice(link);
    b[257..263].copy_from_slice(b"ustar\0");
    b[263..265].copy_from_slice(b"00");
    b[345..345 + prefix.len()].copy_from_slice(prefix);
    let sum = checksum(&b);
    put_octal(&mut b[148..155], sum);
    b[155] = b' ';
    out(&b)
}

fn emit_data(data: &[u8], out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
    out(data)?;
    let pad = (BLOCK - data.len() % BLOCK) % BLOCK;
    out(&[0u8; BLOCK][..pad])
}

impl Fs {
    /// Writes the subtree at `path` (relative to `dirfd`; `.` for the directory itself) as a
    /// tar stream to `out`. Entry names are relative to that subtree.
    pub fn tar_export(&self, dirfd: Fd, path: &[u8], out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let base = self.dir_file(dirfd, rights::PATH_OPEN)?;
        let top = resolve_existing(&base, path, true)?;
        let mut links: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
        let mut todo: Vec<(Vec<u8>, Arc<Inode>)> = Vec::new();
        match top.kind {
            Kind::Dir(_) => todo.push((Vec::new(), top)),
            _ => {
                let name = path.rsplit(|&b| b == b'/').find(|c| !c.is_empty()).unwrap_or(b"file").to_vec();
                self.export_node(&name, &top, &mut links, out)?;
            }
        }
        while let Some((prefix, dir)) = todo.pop() {
            let entries: Vec<(Vec<u8>, Arc<Inode>)> = {
                let d = dir.as_dir().expect("only directories are queued").data.read();
                d.iter().map(|(n, i)| (n.to_vec(), i.clone())).collect()
            };
            let mut entries = entries;
            entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            // Reverse so that popping the stack visits names in order.
            for (name, node) in entries.into_iter().rev() {
                let mut full = prefix.clone();
                full.extend_from_slice(&name);
                if node.is_dir() {
                    full.push(b'/');
                    self.export_node(&full, &node, &mut links, out)?;
                    todo.push((full, node));
                } else {
                    self.export_node(&full, &node, &mut links, out)?;
                }
            }
        }
        out(&[0u8; 2 * BLOCK])
    }

    fn export_node(
        &self,
        name: &[u8],
        node: &Inode,
        links: &mut BTreeMap<u64, Vec<u8>>,
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let mode = node.mode.load(Relaxed);
        self.stamp_marked(node);
        let mtime = node.mtim.load(Relaxed) / NS;
        let mut h = Header { name, link: b"", kind: b'0', mode, size: 0, mtime };
        match &node.kind {
            Kind::Dir(_) => {
                h.kind = b'5';
                emit_header(&h, out)
            }
            Kind::Symlink(t) => {
                h.kind = b'2';
                h.link = t;
                emit_header(&h, out)
            }
            Kind::File(f) => {
                if node.nlink.load(Relaxed) > 1 {
                    if let Some(first) = links.get(&node.ino).cloned() {
                        h.kind = b'1';
                        h.link = &first;
                        return emit_header(&h, out);
                    }
                    links.insert(node.ino, name.to_vec());
                }
                h.size = f.read().size();
                emit_header(&h, out)?;
                // Copy in chunks without holding the file lock across `out`, which may write
                // into this same filesystem (even into this file). A file that shrinks
                // meanwhile is padded with zeros so the archive stays well-formed.
                let mut buf = [0u8; 4096];
                let mut off = 0;
                while off < h.size {
                    let want = (h.size - off).min(buf.len() as u64) as usize;
                    let n = f.read().read_at(off, &mut [&mut buf[..want]]);
                    buf[n..want].fill(0);
                    out(&buf[..want])?;
                    off += want as u64;
                }
                let pad = (BLOCK - (h.size % BLOCK as u64) as usize) % BLOCK;
                out(&[0u8; BLOCK][..pad])
            }
        }
    }

    /// Reads a tar stream into the directory `path` (relative to `dirfd`, created if missing),
    /// replacing files that exist. Returns the number of entries imported.
    pub fn tar_import(&self, dirfd: Fd, path: &[u8], tar: &[u8]) -> Result<usize> {
        match self.path_create_directory(dirfd, path) {
            Ok(()) | Err(Errno::Exist) => {}
            Err(e) => return Err(e),
        }
        let dir_rights = rights::ALL & !rights::WRITE_MODE;
        let d = self.path_open(
            dirfd,
            lookupflags::SYMLINK_FOLLOW,
            path,
            oflags::DIRECTORY,
            dir_rights,
            rights::ALL,
            0,
        )?;
        let r = self.import_into(d, tar);
        self.fd_close(d)?;
        r
    }

    fn import_into(&self, d: Fd, tar: &[u8]) -> Result<usize> {
        let mut pos = 0;
        let mut count = 0;
        let mut ext = Extended::default();
        loop {
            let b: &[u8; BLOCK] =
                tar.get(pos..pos + BLOCK).ok_or(Errno::Inval)?.try_into().expect("block size");
            if b.iter().all(|&x| x == 0) {
                return Ok(count);
            }
            if parse_octal(&b[148..156])? != checksum(b) {
                return Err(Errno::Inval);
            }
            let size = ext.size.take().unwrap_or(parse_octal(&b[124..136])?);
            let start = pos + BLOCK;
            let end = start.checked_add(size as usize).ok_or(Errno::Inval)?;
            let data = tar.get(start..end).ok_or(Errno::Inval)?;
            pos = start + (size as usize).div_ceil(BLOCK) * BLOCK;
            let kind = b[156];
            match kind {
                b'x' => {
                    parse_pax(data, &mut ext)?;
                    continue;
                }
                b'g' => continue,
                b'L' => {
                    ext.name = Some(cstr(data).to_vec());
                    continue;
                }
                b'K' => {
                    ext.link = Some(cstr(data).to_vec());
                    continue;
                }
                _ => {}
            }
            let name = match ext.name.take() {
                Some(n) => n,
                None => {
                    let mut n = Vec::new();
                    let prefix = cstr(&b[345..500]);
                    if &b[257..262] == b"ustar" && !prefix.is_empty() {
                        n.extend_from_slice(prefix);
                        n.push(b'/');
                    }
                    n.extend_from_slice(cstr(&b[..100]));
                    n
                }
            };
            let link = ext.link.take().unwrap_or_else(|| cstr(&b[157..257]).to_vec());
            let mode = parse_octal(&b[100..108])? as u32 & 0o7777;
            let mtime = ext.mtime.take().unwrap_or(parse_octal(&b[136..148])?.saturating_mul(NS));
            let mut rel: &[u8] = &name;
            while let [b'/', rest @ ..] = rel {
                rel = rest;
            }
            while rel.len() > 1 && rel.ends_with(b"/") {
                rel = &rel[..rel.len() - 1];
            }
            if rel.is_empty() || rel == b"." || rel == b"./" {
                continue;
            }
            self.import_entry(d, rel, kind, &link, data, mode, mtime)?;
            count += 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn import_entry(
        &self,
        d: Fd,
        rel: &[u8],
        kind: u8,
        link: &[u8],
        data: &[u8],
        mode: u32,
        mtime: u64,
    ) -> Result<()> {
        self.mkdir_p(d, rel)?;
        let follow = lookupflags::SYMLINK_FOLLOW;
        match kind {
            b'5' => match self.path_create_directory(d, rel) {
                Ok(()) | Err(Errno::Exist) => {}
                Err(e) => return Err(e),
            },
            b'2' => {
                let _ = self.path_unlink_file(d, rel);
                self.path_symlink(link, d, rel)?;
            }
            b'1' => {
                let _ = self.path_unlink_file(d, rel);
                let mut l: &[u8] = link;
                while let [b'/', rest @ ..] = l {
                    l = rest;
                }
                self.path_link(d, 0, l, d, rel)?;
                return Ok(());
            }
            b'0' | 0 | b'7' => {
                let f =
                    self.path_open(d, 0, rel, oflags::CREAT | oflags::TRUNC, rights::ALL, rights::ALL, 0)?;
                let r = self.fd_write(f, &[data]);
                self.fd_close(f)?;
                if r? < data.len() {
                    return Err(Errno::Nospc); // out of memory part-way (file.rs)
                }
            }
            // Devices, fifos and the like have no place in this filesystem: skipped.
            _ => return Ok(()),
        }
        let node = resolve_existing(&*self.dir_file(d, 0)?, rel, kind != b'2' && follow != 0)?;
        node.mode.store(mode, Relaxed);
        node.mtim.store(mtime, Relaxed);
        node.atim.store(mtime, Relaxed);
        Ok(())
    }

    /// Creates the missing parent directories of `rel`.
    fn mkdir_p(&self, d: Fd, rel: &[u8]) -> Result<()> {
        let mut i = 0;
        while let Some(j) = rel[i..].iter().position(|&b| b == b'/') {
            let parent = &rel[..i + j];
            i += j + 1;
            if parent.is_empty() || parent.ends_with(b"/") {
                continue;
            }
            match self.path_create_directory(d, parent) {
                Ok(()) | Err(Errno::Exist) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn cstr(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&x| x == 0).unwrap_or(b.len())]
}

/// What extended headers (pax `x`, GNU `L`/`K`) set for the next entry, overriding its header.
#[derive(Default)]
struct Extended {
    name: Option<Vec<u8>>,
    link: Option<Vec<u8>>,
    size: Option<u64>,
    mtime: Option<u64>,
}

fn parse_pax(mut data: &[u8], ext: &mut Extended) -> Result<()> {
    while !data.is_empty() {
        let sp = data.iter().position(|&b| b == b' ').ok_or(Errno::Inval)?;
        let len = parse_decimal(&data[..sp])? as usize;
        if len <= sp + 1 || len > data.len() || data[len - 1] != b'\n' {
            return Err(Errno::Inval);
        }
        let rec = &data[sp + 1..len - 1];
        let eq = rec.iter().position(|&b| b == b'=').ok_or(Errno::Inval)?;
        let (k, v) = (&rec[..eq], &rec[eq + 1..]);
        match k {
            b"path" => ext.name = Some(v.to_vec()),
            b"linkpath" => ext.link = Some(v.to_vec()),
            b"size" => ext.size = Some(parse_decimal(v)?),
            b"mtime" => {
                let dot = v.iter().position(|&b| b == b'.').unwrap_or(v.len());
                let secs = parse_decimal(&v[..dot])?;
                let mut frac = 0u64;
                let digits = if dot < v.len() { &v[dot + 1..] } else { &[][..] };
                for i in 0..9 {
                    frac = frac * 10 + digits.get(i).map_or(0, |&c| c.wrapping_sub(b'0').min(9) as u64);
                }
                ext.mtime = Some(secs.saturating_mul(NS).saturating_add(frac));
            }
            _ => {}
        }
        data = &data[len..];
    }
    Ok(())
}

fn parse_decimal(s: &[u8]) -> Result<u64> {
    if s.is_empty() {
        return Err(Errno::Inval);
    }
    s.iter().try_fold(0u64, |v, &c| {
        if c.is_ascii_digit() {
            v.checked_mul(10).and_then(|v| v.checked_add((c - b'0') as u64)).ok_or(Errno::Inval)
        } else {
            Err(Errno::Inval)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octal_and_pax() {
        let mut f = [0u8; 12];
        put_octal(&mut f, 0o1234);
        assert_eq!(&f, b"00000001234\0");
        assert_eq!(parse_octal(&f).unwrap(), 0o1234);
        assert_eq!(parse_octal(b"  755 \0").unwrap(), 0o755);
        let mut p = Vec::new();
        pax_record(&mut p, b"path", b"abc");
        assert_eq!(p, b"12 path=abc\n");
        let mut p = Vec::new();
        pax_record(&mut p, b"path", &[b'x'; 90]);
        assert_eq!(&p[..3], b"99 ");
        assert_eq!(p.len(), 99);
        let mut p = Vec::new();
        pax_record(&mut p, b"path", &[b'x'; 91]);
        assert_eq!(&p[..4], b"101 ");
        assert_eq!(p.len(), 101);
    }
}
