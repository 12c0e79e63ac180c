/**
 * Checks a tar stream's structure before the memory FS imports it, so that a corrupt archive is
 * refused as a whole (nothing imported) with a message that says what is wrong and where.
 * spindle-fs's importer (crates/spindle-fs/src/tar.rs) stops at the first bad header and keeps
 * what it imported before it; this pass accepts exactly the streams that importer can read to the
 * end: ustar/v7 headers with valid checksums and octal (or GNU base-256) numbers, pax `x`
 * records ("LEN key=value\n"), GNU `L`/`K` long names, every entry's data present, and an
 * all-zero end-of-archive block. It also refuses names that climb out of the target directory
 * (`..` above it), which the importer would refuse half-way with ENOTCAPABLE.
 *
 * Not detectable here (the import may then fail part-way, with the errno in the message): a
 * symlink in the archive or the filesystem that leads outside, a hard link to a missing target,
 * a file where the filesystem has a directory, a read-only mount.
 */

const BLOCK = 512;

/** What is wrong with `tar`, or undefined when spindle-fs can import it entirely. */
export function tarProblem(tar: Uint8Array): string | undefined {
  let pos = 0;
  let entry = 0;
  let paxSize: number | undefined;
  let longName: string | undefined;
  for (;;) {
    if (pos + BLOCK > tar.length) {
      return pos >= tar.length
        ? `truncated: no end-of-archive block after ${entry} entries (the stream ends at byte ${tar.length})`
        : `truncated: header block at byte ${pos} is cut off (the stream ends at byte ${tar.length})`;
    }
    const h = tar.subarray(pos, pos + BLOCK);
    if (h.every((b) => b === 0)) return undefined;
    const at = pos;
    const where = () => `entry ${entry + 1} ('${longName ?? headerName(h)}', header at byte ${at})`;
    const sum = octal(h.subarray(148, 156));
    if (sum === undefined || sum !== checksum(h)) return `${where()}: bad header checksum (not a tar stream, or corrupted)`;
    const size = paxSize ?? octal(h.subarray(124, 136));
    paxSize = undefined;
    if (size === undefined) return `${where()}: bad size field`;
    if (octal(h.subarray(100, 108)) === undefined) return `${where()}: bad mode field`;
    if (octal(h.subarray(136, 148)) === undefined) return `${where()}: bad mtime field`;
    const start = pos + BLOCK;
    if (start + size > tar.length) return `${where()}: truncated: its ${size} bytes of data run past the end of the stream (byte ${tar.length})`;
    const data = tar.subarray(start, start + size);
    pos = start + Math.ceil(size / BLOCK) * BLOCK;
    const kind = h[156]!;
    if (kind === 0x78 /* x */) {
      const pax = paxRecords(data);
      if (typeof pax === 'string') return `${where()}: bad pax extended header: ${pax}`;
      if (pax.size !== undefined) paxSize = pax.size;
      if (pax.path !== undefined) longName = pax.path;
      continue;
    }
    if (kind === 0x67 /* g */) continue;
    if (kind === 0x4c /* L */) { longName = cstr(data); continue; }
    if (kind === 0x4b /* K */) continue;
    const name = longName ?? headerName(h);
    longName = undefined;
    entry++;
    if (climbsOut(name)) return `entry ${entry} ('${name}', header at byte ${at}): the name leads outside the target directory ('..')`;
  }
}

/** The header's name: ustar prefix + '/' + name, or the v7 name. */
function headerName(h: Uint8Array): string {
  const name = cstr(h.subarray(0, 100));
  const ustar = h[257] === 0x75 && h[258] === 0x73 && h[259] === 0x74 && h[260] === 0x61 && h[261] === 0x72;
  const prefix = ustar ? cstr(h.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cstr(b: Uint8Array): string {
  const end = b.indexOf(0);
  return new TextDecoder().decode(b.slice(0, end < 0 ? b.length : end));
}

/** The header checksum with its own field counted as spaces. */
function checksum(h: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < BLOCK; i++) s += i >= 148 && i < 156 ? 0x20 : h[i]!;
  return s;
}

/** A numeric field as spindle-fs reads it (octal with leading/trailing blanks, or base-256). */
function octal(f: Uint8Array): number | undefined {
  if (f.length > 0 && (f[0]! & 0x80) !== 0) {
    let v = f[0]! & 0x7f;
    for (let i = 1; i < f.length; i++) v = v * 256 + f[i]!;
    return Number.isSafeInteger(v) ? v : undefined;
  }
  let v = 0;
  for (const b of f) {
    if (b >= 0x30 && b <= 0x37) v = v * 8 + (b - 0x30);
    else if (b === 0x20 || b === 0) { if (v !== 0) break; }
    else return undefined;
  }
  return v;
}

/** The records of a pax header that matter for structure, or what is wrong with them. */
function paxRecords(data: Uint8Array): { size?: number; path?: string } | string {
  const out: { size?: number; path?: string } = {};
  let p = 0;
  while (p < data.length) {
    const sp = data.indexOf(0x20, p);
    if (sp < 0) return `record at offset ${p} has no length`;
    const len = decimal(data.subarray(p, sp));
    if (len === undefined || len <= sp - p + 1 || p + len > data.length || data[p + len - 1] !== 0x0a) {
      return `record at offset ${p} has a bad length`;
    }
    const rec = data.subarray(sp + 1, p + len - 1);
    const eq = rec.indexOf(0x3d);
    if (eq < 0) return `record at offset ${p} has no '='`;
    const key = new TextDecoder().decode(rec.subarray(0, eq));
    const value = rec.subarray(eq + 1);
    if (key === 'size') {
      const v = decimal(value);
      if (v === undefined) return `bad size '${new TextDecoder().decode(value)}'`;
      out.size = v;
    } else if (key === 'path') {
      out.path = new TextDecoder().decode(value);
    } else if (key === 'mtime') {
      const dot = value.indexOf(0x2e);
      if (decimal(value.subarray(0, dot < 0 ? value.length : dot)) === undefined) return 'bad mtime';
    }
    p += len;
  }
  return out;
}

function decimal(s: Uint8Array): number | undefined {
  if (s.length === 0) return undefined;
  let v = 0;
  for (const c of s) {
    if (c < 0x30 || c > 0x39) return undefined;
    v = v * 10 + (c - 0x30);
  }
  return Number.isSafeInteger(v) ? v : undefined;
}

/** Whether a relative name (leading '/' stripped, as the importer does) climbs above its root. */
function climbsOut(name: string): boolean {
  let depth = 0;
  for (const c of name.split('/')) {
    if (c === '..') { if (--depth < 0) return true; }
    else if (c !== '' && c !== '.') depth++;
  }
  return false;
}
