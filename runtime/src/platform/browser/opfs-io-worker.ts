/**
 * The OPFS I/O worker: the one place that touches OPFS for a program's OPFS mounts (design:
 * crates/spindle-wasi-fs/src/opfs.rs). A dedicated module worker started by the program's owner
 * (opfs-owner.ts); it owns every FileSystemSyncAccessHandle, and serves the request channel
 * (opfs-channel.ts) in order, one record at a time, as soon as records arrive (the queue is
 * flushed whenever this worker is idle: there is no extra delay).
 *
 * A file's write-back (WRITE_BEGIN, WRITE_DATA..., WRITE_END) fills `.spindle-tmp.NAME` through a
 * SyncAccessHandle, flushes and closes it, then `move()`s it over NAME. Chromium replaces an
 * existing destination in that move (checked: runtime/test/opfs.test.mjs), so after a crash NAME
 * holds the old or the new bytes, never a mix. Directory renames have no such primitive (OPFS
 * directory handles have no move() in Chromium): the tree is recreated under the new name file
 * by file (each file moved atomically) and the old one removed; a crash in between leaves both
 * names, each with whole files.
 *
 * Errors (per file): QuotaExceededError -> ENOSPC, anything else -> EIO, stored as the file's
 * deferred error (the program sees it at its next fsync or close) and printed on the console.
 * Thread rules: never blocks (Atomics.waitAsync); the channel's producers never touch OPFS.
 */
import { Channel, ERRNO, errorKey, OP, type OpfsRecord, RESP_BYTES } from '../../fs/opfs-channel.js';
import { TMP_PREFIX } from '../../fs/opfs-names.js';
import { tarOf } from './opfs-tar.js';

/** What the owner posts once. */
export interface IoWorkerInit {
  channel: SharedArrayBuffer;
}

interface SyncHandle {
  write(buffer: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

interface Pending {
  mount: number;
  path: string;
  parent: FileSystemDirectoryHandle;
  tmp: FileSystemFileHandle;
  handle: SyncHandle | null;
  name: string;
  errno: number;
}

const mounts: FileSystemDirectoryHandle[] = [];
const loaded = new Map<number, Uint8Array>();
let pending: Pending | null = null;

/** The WASI errno for an OPFS failure (exported for the tests through the page). */
export function errnoOf(e: unknown): number {
  const name = (e as { name?: string } | null)?.name;
  if (name === 'QuotaExceededError') return ERRNO.NOSPC;
  if (name === 'NotFoundError') return ERRNO.NOENT;
  return ERRNO.IO;
}

function split(path: string): { dirs: string[]; name: string } {
  const parts = path.split('/').filter((p) => p !== '');
  return { dirs: parts.slice(0, -1), name: parts[parts.length - 1] ?? '' };
}

async function dirAt(root: FileSystemDirectoryHandle, dirs: string[], create = false): Promise<FileSystemDirectoryHandle> {
  let d = root;
  for (const c of dirs) d = await d.getDirectoryHandle(c, { create });
  return d;
}

async function serveOne(ch: Channel, r: OpfsRecord): Promise<void> {
  switch (r.op) {
    case OP.LOAD: return load(ch, r.a);
    case OP.LOAD_CHUNK: return loadChunk(ch, r.mount, r.arg);
    case OP.WRITE: await begin(r); data({ ...r, arg: 0 }); return end(ch);
    case OP.WRITE_BEGIN: return begin(r);
    case OP.WRITE_DATA: return data(r);
    case OP.WRITE_END: return end(ch);
    case OP.BARRIER: return;
    default: return namespace(ch, r);
  }
}

async function load(ch: Channel, dir: string): Promise<void> {
  try {
    const root = await dirAt(await navigator.storage.getDirectory(), dir.split('/').filter((p) => p), true);
    const skipped: string[] = [];
    const tar = await tarOf(root, skipped);
    if (skipped.length) console.warn(`spindle: OPFS mount '${dir}': could not read ${skipped.join(', ')} (open elsewhere?)`);
    mounts.push(root);
    loaded.set(mounts.length - 1, tar);
    ch.respond(0, mounts.length - 1, tar.length);
  } catch (e) {
    console.error(`spindle: cannot load OPFS directory '${dir}':`, e);
    ch.respond(errnoOf(e), 0, 0);
  }
}

function loadChunk(ch: Channel, mount: number, off: number): void {
  const tar = loaded.get(mount);
  if (!tar) { ch.respond(ERRNO.INVAL, mount, 0); return; }
  const chunk = tar.subarray(off, off + RESP_BYTES);
  ch.respond(0, mount, chunk.length, chunk);
  if (off + chunk.length >= tar.length) loaded.delete(mount);
}

async function begin(r: OpfsRecord): Promise<void> {
  const { dirs, name } = split(r.a);
  const p: Pending = { mount: r.mount, path: r.a, name, errno: 0, handle: null } as Pending;
  pending = p;
  try {
    p.parent = await dirAt(mounts[r.mount]!, dirs, true);
    p.tmp = await p.parent.getFileHandle(TMP_PREFIX + name, { create: true });
    p.handle = await (p.tmp as unknown as { createSyncAccessHandle(): Promise<SyncHandle> }).createSyncAccessHandle();
    p.handle.truncate(0);
  } catch (e) {
    fail(p, e);
  }
}

function data(r: OpfsRecord): void {
  const p = pending;
  if (!p?.handle || p.errno) return;
  try {
    const n = p.handle.write(r.data, { at: r.arg });
    // Over the quota, Chromium (156) returns a short (or bogus) count instead of throwing
    // QuotaExceededError (checked with Storage.overrideQuotaForOrigin in opfs.test.mjs).
    if (n !== r.data.length) throw new DOMException(`short write (${n} of ${r.data.length} bytes)`, 'QuotaExceededError');
  } catch (e) {
    fail(p, e);
  }
}

async function end(ch: Channel): Promise<void> {
  const p = pending;
  pending = null;
  if (!p) return;
  try {
    if (p.handle && !p.errno) {
      p.handle.flush();
      p.handle.close();
      p.handle = null;
      await (p.tmp as unknown as { move(dir: FileSystemDirectoryHandle, name: string): Promise<void> }).move(p.parent, p.name);
    }
  } catch (e) {
    fail(p, e);
  }
  if (p.errno) {
    try { p.handle?.close(); } catch { /* already closed */ }
    await p.parent?.removeEntry(TMP_PREFIX + p.name).catch(() => {});
    ch.setError(errorKey(p.mount, p.path), p.errno);
  }
}

function fail(p: Pending, e: unknown): void {
  if (p.errno) return;
  p.errno = errnoOf(e);
  console.error(`spindle: OPFS write-back of '${p.path}' failed (errno ${p.errno}):`, e);
}

async function namespace(ch: Channel, r: OpfsRecord): Promise<void> {
  const root = mounts[r.mount]!;
  const { dirs, name } = split(r.a);
  try {
    const parent = await dirAt(root, dirs, true);
    if (r.op === OP.MKDIR) await parent.getDirectoryHandle(name, { create: true });
    else if (r.op === OP.UNLINK || r.op === OP.RMDIR) await parent.removeEntry(name).catch(ignoreMissing);
    else if (r.op === OP.RENAME) await rename(root, parent, name, r.b);
  } catch (e) {
    console.error(`spindle: OPFS mirror of operation ${r.op} on '${r.a}' failed:`, e);
    ch.setError(errorKey(r.mount, r.op === OP.RENAME ? r.b : r.a), errnoOf(e));
  }
}

function ignoreMissing(e: unknown): void {
  if ((e as { name?: string }).name !== 'NotFoundError') throw e;
}

async function rename(root: FileSystemDirectoryHandle, from: FileSystemDirectoryHandle, name: string, to: string): Promise<void> {
  const dest = split(to);
  const destParent = await dirAt(root, dest.dirs, true);
  const file = await from.getFileHandle(name).catch(() => null);
  if (file) {
    await (file as unknown as { move(d: FileSystemDirectoryHandle, n: string): Promise<void> }).move(destParent, dest.name);
    return;
  }
  const dir = await from.getDirectoryHandle(name).catch(() => null);
  if (!dir) return; // never reached OPFS (e.g. created and renamed before its write-back)
  await destParent.removeEntry(dest.name).catch(() => {}); // POSIX: only an empty directory can be replaced
  await copyTree(dir, await destParent.getDirectoryHandle(dest.name, { create: true }));
  await from.removeEntry(name, { recursive: true });
}

async function copyTree(src: FileSystemDirectoryHandle, dst: FileSystemDirectoryHandle): Promise<void> {
  const list: [string, FileSystemHandle][] = [];
  for await (const e of (src as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) list.push(e);
  for (const [n, h] of list) {
    if (h.kind === 'file') await (h as unknown as { move(d: FileSystemDirectoryHandle, n: string): Promise<void> }).move(dst, n);
    else await copyTree(h as FileSystemDirectoryHandle, await dst.getDirectoryHandle(n, { create: true }));
  }
}

/** Set when the program has ended: the worker closes once the channel is empty. */
let ending = false;

async function serve(ch: Channel): Promise<void> {
  for (;;) {
    const batch: OpfsRecord[] = [];
    for (let r = ch.take(); r; r = ch.take()) batch.push(r);
    if (!batch.length && ending) { (globalThis as unknown as { close(): void }).close(); return; }
    if (!batch.length) { await ch.waitForWork(); await ch.gather(); continue; }
    const stale = superseded(batch);
    for (const [i, r] of batch.entries()) {
      if (stale.has(i)) continue; // finished with the later write of the same file
      try {
        await serveOne(ch, r);
      } finally {
        ch.finished(r.seq);
      }
    }
  }
}

/**
 * Indexes of whole-file writes that a later whole-file write of the same file replaces before
 * any namespace change: writing them would only cost time (the queue catches up with a program
 * that rewrites its files faster than OPFS takes them). They are never marked finished on
 * their own: the later write's sequence number, once done, covers them (DONE only grows), so
 * an fsync waiting for a skipped one returns when newer bytes are in OPFS.
 */
function superseded(batch: OpfsRecord[]): Set<number> {
  const stale = new Set<number>();
  const last = new Map<string, number>();
  for (const [i, r] of batch.entries()) {
    if (r.op === OP.WRITE) {
      const key = `${r.mount}/${r.a}`;
      const prev = last.get(key);
      if (prev !== undefined) stale.add(prev);
      last.set(key, i);
    } else if (r.op !== OP.BARRIER && r.op !== OP.LOAD_CHUNK) {
      last.clear();
    }
  }
  return stale;
}

/** Messages from the owner: the channel once, then `{ end: true }` when the program ended. */
const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<IoWorkerInit | { end: true }>) => void) | null };
scope.onmessage = (e) => {
  if ('end' in e.data) ending = true;
  else void serve(new Channel(e.data.channel));
};
