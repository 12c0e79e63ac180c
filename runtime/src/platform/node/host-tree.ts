/**
 * Host files for --preload and --save (Node): a .tar file's bytes or a host directory packed as a
 * ustar stream (regular files, directories and symlinks, in sorted order, mtime and mode kept; other
 * kinds of entry are skipped), and writing a file without ever leaving a partial one (a temporary
 * name in the same directory, then rename).
 */
import { closeSync, fsyncSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The tar stream of `path`: the file itself if it is one, else its directory tree. */
export function readTree(path: string): Uint8Array {
  return statSync(path).isDirectory() ? packDir(path) : new Uint8Array(readFileSync(path));
}

export function writeFileAtomic(path: string, bytes: Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.spindle-${process.pid}-${Date.now()}.tmp`);
  const fd = openSync(tmp, 'wx', 0o666);
  try {
    for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

const BLOCK = 512;
const encoder = new TextEncoder();

/** A ustar stream of the tree under `root` (paths relative to it). */
export function packDir(root: string): Uint8Array {
  const parts: Uint8Array[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, r));
      if (st.isDirectory()) {
        parts.push(header(r + '/', '5', 0, st.mode, st.mtimeMs));
        walk(r);
      } else if (st.isSymbolicLink()) {
        parts.push(header(r, '2', 0, st.mode, st.mtimeMs, readlinkSync(join(root, r))));
      } else if (st.isFile()) {
        const data = readFileSync(join(root, r));
        parts.push(header(r, '0', data.length, st.mode, st.mtimeMs), data, new Uint8Array((BLOCK - (data.length % BLOCK)) % BLOCK));
      }
    }
  };
  walk('');
  parts.push(new Uint8Array(2 * BLOCK));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

function header(path: string, type: string, size: number, mode: number, mtimeMs: number, link = ''): Uint8Array {
  const h = new Uint8Array(BLOCK);
  let name = encoder.encode(path), prefix = new Uint8Array(0);
  if (name.length > 100) {
    // ustar: split at a slash into prefix (155) / name (100).
    const cut = path.lastIndexOf('/', path.length - 2);
    prefix = encoder.encode(path.slice(0, cut));
    name = encoder.encode(path.slice(cut + 1));
    if (prefix.length > 155 || name.length > 100 || cut < 0) throw new Error(`path too long for a tar archive: ${path}`);
  }
  h.set(name, 0);
  octal(h, 100, 8, mode & 0o7777);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, Math.floor(mtimeMs / 1000));
  h.fill(0x20, 148, 156);
  h[156] = type.charCodeAt(0);
  h.set(encoder.encode(link).subarray(0, 100), 157);
  h.set(encoder.encode('ustar\0' + '00'), 257);
  h.set(prefix, 345);
  let sum = 0;
  for (const b of h) sum += b;
  octal(h, 148, 7, sum);
  return h;
}

function octal(h: Uint8Array, at: number, len: number, value: number): void {
  h.set(encoder.encode(value.toString(8).padStart(len - 1, '0')), at);
}
