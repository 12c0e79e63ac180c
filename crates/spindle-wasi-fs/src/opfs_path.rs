//! Paths on OPFS mounts (pure functions, also compiled natively for their unit tests): the
//! `SPINDLE_FS_MOUNTS` entry syntax and the canonical form of a path below a mount root.

use alloc::vec::Vec;

/// Splits a `SPINDLE_FS_MOUNTS` entry `GUEST=opfs:DIR` into (GUEST, Some(DIR)); anything else
/// is a plain memory mount (entry, None). `opfs:` alone is the OPFS root. (The module build
/// has no start-up mounts.)
#[cfg(any(test, not(spindle_fs_module)))]
pub(crate) fn parse_spec(entry: &[u8]) -> (&[u8], Option<&[u8]>) {
    match entry.iter().position(|&c| c == b'=') {
        Some(i) => match entry[i + 1..].strip_prefix(b"opfs:") {
            Some(dir) => (&entry[..i], Some(dir)),
            None => (entry, None),
        },
        None => (entry, None),
    }
}

/// `base/rel` made canonical: empty and `.` components dropped, `..` pops (None above the
/// mount root, which spindle-fs refuses anyway). The result has no leading or trailing `/`.
pub(crate) fn join(base: &[u8], rel: &[u8]) -> Option<Vec<u8>> {
    let mut parts: Vec<&[u8]> = base.split(|&c| c == b'/').filter(|p| !p.is_empty()).collect();
    for p in rel.split(|&c| c == b'/') {
        match p {
            b"" | b"." => {}
            b".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins() {
        assert_eq!(join(b"", b"a/./b//c").unwrap(), b"a/b/c");
        assert_eq!(join(b"a/b", b"../c").unwrap(), b"a/c");
        assert_eq!(join(b"", b"."), Some(Vec::new()));
        assert_eq!(join(b"a", b"../.."), None);
    }

    #[test]
    fn specs() {
        assert_eq!(parse_spec(b"/data=opfs:sub/dir"), (&b"/data"[..], Some(&b"sub/dir"[..])));
        assert_eq!(parse_spec(b"/data=opfs:"), (&b"/data"[..], Some(&b""[..])));
        assert_eq!(parse_spec(b"/tmp"), (&b"/tmp"[..], None));
        assert_eq!(parse_spec(b"/x=memory"), (&b"/x=memory"[..], None));
    }
}
