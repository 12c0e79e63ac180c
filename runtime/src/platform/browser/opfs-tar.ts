/**
 * Reads an OPFS directory tree into a tar stream (ustar; GNU 'L' records for names over 100
 * bytes), the format spindle-fs's `tar_import` reads: how a mount is loaded. Runs on the OPFS
 * I/O worker. Temporaries of an interrupted write-back (`.spindle-tmp.*`) are deleted on the way:
 * the file they were replacing is still whole.
 */
import { TMP_PREFIX } from '../../fs/opfs-names.js';

const BLOCK = 512;

/** The tree below `dir` as a tar stream; `skipped` collects files that could not be read. */
export async function tarOf(dir: FileSystemDirectoryHandle, skipped: string[]): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await walk(dir, '', parts, skipped);
  parts.push(new Uint8Array(2 * BLOCK));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

type Entries = AsyncIterable<[string, FileSystemHandle]>;

async function walk(dir: FileSystemDirectoryHandle, prefix: string, parts: Uint8Array[], skipped: string[]): Promise<void> {
  const list: [string, FileSystemHandle][] = [];
  for await (const e of (dir as unknown as { entries(): Entries }).entries()) list.push(e);
  for (const [name, handle] of list) {
    const path = prefix + name;
    if (name.startsWith(TMP_PREFIX)) {
      await dir.removeEntry(name).catch(() => {});
      continue;
    }
    if (handle.kind === 'directory') {
      parts.push(...entry(path + '/', '5', 0, Date.now()));
      await walk(handle as FileSystemDirectoryHandle, path + '/', parts, skipped);
      continue;
    }
    let file: File;
    try {
      file = await (handle as FileSystemFileHandle).getFile();
    } catch {
      skipped.push(path); // e.g. open with a SyncAccessHandle in another tab
      continue;
    }
    const data = new Uint8Array(await file.arrayBuffer());
    parts.push(...entry(path, '0', data.length, file.lastModified));
    parts.push(data, new Uint8Array((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
}

/** The header block(s) of one entry. */
function entry(name: string, type: '0' | '5', size: number, mtimeMs: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(name);
  const out: Uint8Array[] = [];
  if (bytes.length > 100) {
    const long = new Uint8Array(bytes.length + 1);
    long.set(bytes);
    out.push(header(new TextEncoder().encode('././@LongLink'), 'L', long.length, 0));
    out.push(long, new Uint8Array((BLOCK - (long.length % BLOCK)) % BLOCK));
  }
  out.push(header(bytes.subarray(0, 100), type, size, Math.floor(mtimeMs / 1000)));
  return out;
}

function header(name: Uint8Array, type: string, size: number, mtime: number): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (at: number, s: string): void => h.set(new TextEncoder().encode(s), at);
  const octal = (at: number, width: number, v: number): void => put(at, v.toString(8).padStart(width - 1, '0') + '\0');
  h.set(name, 0);
  octal(100, 8, type === '5' ? 0o755 : 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, mtime);
  put(148, '        ');
  put(156, type);
  put(257, 'ustar\0');
  put(263, '00');
  const sum = h.reduce((a, b) => a + b, 0);
  put(148, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}
