/**
 * A memory filesystem for napi addons in browsers: spindle's memory FS (spindle-fs as its own
 * wasm module with its own shared memory: fs/memfs.ts), mounted into the addon's program, with a
 * synchronous Node-like API for the page (`fs`) and memfs's volume methods (`vol`), so a page
 * puts input files in and reads results out while every thread of the addon reads and writes the
 * same files directly (no proxy to the page's thread). It is what `memfs()` of
 * @napi-rs/wasm-runtime/fs returns under spindle (napi/fs.ts).
 *
 * The page's calls run on the page's thread with the memory FS's locks, which spin there and
 * never wait (fs/memfs.ts). Paths are absolute or relative to '/'. Errors are Error objects with a
 * Node `code` (ENOENT, EEXIST, ...).
 *
 * Only what a page needs: read/write whole files, directories, stat, remove, rename; not
 * supported: streams, file descriptors, symlinks, watch, permissions.
 */
import { MemFs, type MemFsModule } from '../fs/memfs.js';
import { memoryMountsOf, type MemoryMounts } from '../fs/memory-mounts.js';
import type { Descriptor, Directory } from '../wasi/fd-table.js';
import { WasiErrno } from '../wasi/errno.js';
import {
  ERRNO_EXIST, ERRNO_NOENT, FILETYPE_DIRECTORY, FILETYPE_REGULAR_FILE, FILETYPE_SYMBOLIC_LINK, OFLAGS_CREAT,
  OFLAGS_DIRECTORY, OFLAGS_TRUNC,
} from '../wasi/constants.js';

const ALL_RIGHTS = 0x1fffffffn;
const FOLLOW = 1;
const CHUNK = 1 << 16;

/** Node's names for the WASI errnos a page meets. */
const CODES: Record<number, string> = {
  2: 'EACCES', 8: 'EBADF', 20: 'EEXIST', 28: 'EINVAL', 31: 'EISDIR', 32: 'ELOOP', 37: 'ENAMETOOLONG',
  44: 'ENOENT', 51: 'ENOSPC', 54: 'ENOTDIR', 55: 'ENOTEMPTY', 58: 'ENOTSUP', 63: 'EPERM', 76: 'ENOTCAPABLE',
};

export interface Stats {
  size: number;
  mtimeMs: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** Directory-tree JSON as memfs's `fromJSON`/`toJSON`: path -> contents (null: a directory). */
export type TreeJson = Record<string, string | null>;

export class MemoryFs {
  private readonly root: Directory;

  private constructor(private readonly fs: MemFs) {
    this.root = fs.thread().preopen('/').asDirectory();
  }

  /** A memory filesystem mounted at '/' (`compiled`: MemFs.compile, so this is synchronous). */
  static create(compiled: MemFsModule): MemoryFs {
    return new MemoryFs(MemFs.createSync({ mounts: ['/'], compiled }));
  }

  /** Its mounts, for the program that runs the addon. */
  mounts(): MemoryMounts {
    return memoryMountsOf(this.fs);
  }

  readFileSync(path: string, encoding?: string | { encoding?: string }): Uint8Array | string {
    const bytes = this.call('open', path, () => this.readAll(this.openFile(path, 0)));
    const enc = typeof encoding === 'string' ? encoding : encoding?.encoding;
    return enc ? new TextDecoder().decode(bytes) : bytes;
  }

  writeFileSync(path: string, data: string | Uint8Array): void {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    this.call('open', path, () => {
      const d = this.openFile(path, OFLAGS_CREAT | OFLAGS_TRUNC);
      try {
        for (let off = 0; off < bytes.length;) off += d.write(bytes.subarray(off, off + CHUNK));
      } finally {
        d.close();
      }
    });
  }

  mkdirSync(path: string, options?: { recursive?: boolean }): void {
    const rel = relative(path);
    if (!options?.recursive) { this.call('mkdir', path, () => this.root.createDirectory(rel)); return; }
    const parts = rel === '.' ? [] : rel.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      try {
        this.root.createDirectory(sub);
      } catch (e) {
        if (!(e instanceof WasiErrno) || e.errno !== ERRNO_EXIST) throw this.error(e, 'mkdir', path);
        if (!this.statSync('/' + sub).isDirectory()) throw this.error(WasiErrno.all[54]!, 'mkdir', path);
      }
    }
  }

  readdirSync(path: string): string[] {
    return this.call('scandir', path, () => {
      const d = this.root.open(FOLLOW, relative(path), OFLAGS_DIRECTORY, ALL_RIGHTS, ALL_RIGHTS, 0);
      try {
        return direntNames(d).filter((n) => n !== '.' && n !== '..').sort();
      } finally {
        d.close();
      }
    });
  }

  existsSync(path: string): boolean {
    try {
      this.root.filestat(FOLLOW, relative(path));
      return true;
    } catch {
      return false;
    }
  }

  statSync(path: string): Stats {
    const s = this.call('stat', path, () => this.root.filestat(FOLLOW, relative(path)));
    return {
      size: Number(s.size),
      mtimeMs: Number(s.mtim / 1_000_000n),
      isFile: () => s.filetype === FILETYPE_REGULAR_FILE,
      isDirectory: () => s.filetype === FILETYPE_DIRECTORY,
      isSymbolicLink: () => s.filetype === FILETYPE_SYMBOLIC_LINK,
    };
  }

  unlinkSync(path: string): void {
    this.call('unlink', path, () => this.root.unlinkFile(relative(path)));
  }

  rmdirSync(path: string): void {
    this.call('rmdir', path, () => this.root.removeDirectory(relative(path)));
  }

  /** Removes a file, or with `recursive` a whole tree; `force`: no error when missing. */
  rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void {
    if (!this.existsSync(path)) {
      if (options?.force) return;
      throw this.error(WasiErrno.all[ERRNO_NOENT]!, 'rm', path);
    }
    if (!this.statSync(path).isDirectory()) { this.unlinkSync(path); return; }
    if (!options?.recursive) throw Object.assign(new Error(`EISDIR: is a directory, rm '${path}'`), { code: 'EISDIR', path });
    for (const name of this.readdirSync(path)) this.rmSync(join(path, name), options);
    if (relative(path) !== '.') this.rmdirSync(path);
  }

  renameSync(from: string, to: string): void {
    this.call('rename', from, () => this.root.rename(relative(from), this.root, relative(to)));
  }

  /** memfs's volume: writes every file of `json` (paths relative to `cwd`), making directories. */
  fromJSON(json: TreeJson, cwd = '/'): void {
    for (const [p, contents] of Object.entries(json)) {
      const path = p.startsWith('/') ? p : join(cwd, p);
      if (contents === null) { this.mkdirSync(path, { recursive: true }); continue; }
      this.mkdirSync(dirname(path), { recursive: true });
      this.writeFileSync(path, contents);
    }
  }

  /** memfs's volume: every file under `path` as text (empty directories as null). */
  toJSON(path = '/'): TreeJson {
    const out: TreeJson = {};
    const walk = (dir: string): void => {
      const names = this.readdirSync(dir);
      if (names.length === 0 && dir !== path) out[dir] = null;
      for (const name of names) {
        const p = join(dir, name);
        if (this.statSync(p).isDirectory()) walk(p);
        else out[p] = this.readFileSync(p, 'utf8') as string;
      }
    };
    walk(path);
    return out;
  }

  /** memfs's volume: removes everything. */
  reset(): void {
    this.rmSync('/', { recursive: true, force: true });
  }

  private openFile(path: string, oflags: number): Descriptor & { read(max: number): Uint8Array; write(b: Uint8Array): number } {
    return this.root.open(FOLLOW, relative(path), oflags, ALL_RIGHTS, ALL_RIGHTS, 0) as never;
  }

  private readAll(d: Descriptor & { read(max: number): Uint8Array }): Uint8Array {
    try {
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (let c = d.read(CHUNK); c.length > 0; c = d.read(CHUNK)) { chunks.push(c.slice()); total += c.length; }
      const out = new Uint8Array(total);
      let off = 0;
      for (const c of chunks) { out.set(c, off); off += c.length; }
      return out;
    } finally {
      d.close();
    }
  }

  /** Runs `f`; a WASI errno becomes a Node-style error (`code`, `syscall`, `path`). */
  private call<T>(syscall: string, path: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw this.error(e, syscall, path);
    }
  }

  private error(e: unknown, syscall: string, path: string): unknown {
    if (!(e instanceof WasiErrno)) return e;
    const code = CODES[e.errno] ?? `WASI_ERRNO_${e.errno}`;
    return Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, errno: -e.errno, syscall, path });
  }
}

/** The names in a directory, from fd_readdir's records (24-byte dirent + name). */
function direntNames(d: Descriptor & { readdir?(cookie: bigint, max: number): Uint8Array }): string[] {
  const names: string[] = [];
  let cookie = 0n;
  for (;;) {
    const buf = d.readdir!(cookie, CHUNK);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let off = 0;
    let whole = 0;
    while (off + 24 <= buf.length) {
      const next = view.getBigUint64(off, true);
      const len = view.getUint32(off + 16, true);
      if (off + 24 + len > buf.length) break;
      names.push(new TextDecoder().decode(buf.subarray(off + 24, off + 24 + len)));
      cookie = next;
      off += 24 + len;
      whole++;
    }
    if (buf.length < CHUNK || whole === 0) return names;
  }
}

/** `path` relative to the mount root '/' ('.' for the root). */
function relative(path: string): string {
  const parts = path.split('/').filter((c) => c !== '' && c !== '.');
  return parts.length ? parts.join('/') : '.';
}

function join(a: string, b: string): string {
  return (a.endsWith('/') ? a : a + '/') + b;
}

function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/**
 * The MemoryFs behind a `memfs()` fs or volume object (napi/fs.ts registers them). One map per
 * JavaScript realm, not per copy of this module: in Node, spindle/napi is a CommonJS file of its
 * own (dist/napi/index.cjs) while spindle/napi/fs stays an ES module, and `memfs()` of the one
 * must be found by `loadNapi` of the other.
 */
const owners: WeakMap<object, MemoryFs> = ((globalThis as Record<symbol, unknown>)[Symbol.for('spindle.napi.memoryFs')] ??= new WeakMap()) as WeakMap<object, MemoryFs>;

export function registerMemoryFs(face: object, fs: MemoryFs): void {
  owners.set(face, fs);
}

export function memoryFsOf(face: unknown): MemoryFs | undefined {
  if (face instanceof MemoryFs) return face;
  return typeof face === 'object' && face !== null ? owners.get(face) : undefined;
}
