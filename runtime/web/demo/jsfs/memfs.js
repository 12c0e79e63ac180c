/**
 * A small in-memory filesystem in JavaScript with a synchronous, fd-based API in the style of
 * node:fs (openSync, readSync, writeSync, closeSync, statSync, fstatSync, mkdirSync, ...): the
 * kind of filesystem @napi-rs/wasm-runtime puts on a page's main thread (memfs there).
 *
 * It is the demo's BASELINE, not part of spindle: one instance lives on the page's main thread and
 * every thread of a program reaches it either directly (when the program itself runs on the main
 * thread) or through the proxy in proxy.js (postMessage + Atomics.wait, one round trip per call).
 *
 * Errors are thrown as `{ errno }` with WASI errno values, so the WASI layer (wasi.js) returns
 * them as they are. Paths are absolute, '/'-separated; '.' and '..' are resolved lexically.
 * The fd table belongs to the filesystem (shared by every thread, as with memfs).
 *
 * Thread rules: one thread only (the page's main thread); nothing here blocks.
 */

export const ERRNO = Object.freeze({
  BADF: 8, EXIST: 20, INVAL: 28, ISDIR: 31, NOENT: 44, NOSYS: 52, NOTDIR: 54, NOTEMPTY: 55, SPIPE: 70,
});
export const FILETYPE = Object.freeze({ DIRECTORY: 3, REGULAR_FILE: 4 });
/** WASI oflags. */
export const O = Object.freeze({ CREAT: 1, DIRECTORY: 2, EXCL: 4, TRUNC: 8 });
/** WASI fdflags. */
const FDFLAG_APPEND = 1;

const fail = (errno) => { throw { errno }; };

let nextIno = 1;

class Node {
  constructor(filetype) {
    this.ino = nextIno++;
    this.filetype = filetype;
    this.children = filetype === FILETYPE.DIRECTORY ? new Map() : null;
    this.data = new Uint8Array(0);
    this.size = 0;
    const now = nowNs();
    this.atim = now; this.mtim = now; this.ctim = now;
  }
}

function nowNs() {
  return Math.round((performance.timeOrigin + performance.now()) * 1e6);
}

export class JsFs {
  constructor() {
    this.root = new Node(FILETYPE.DIRECTORY);
    this.fds = new Map();
    this.nextFd = 10;
    this.mkdirSync('/tmp');
  }

  /** [parent directory node, last name] of an absolute path (the parent must exist). */
  parentOf(path) {
    const parts = split(path);
    const name = parts.pop();
    if (name === undefined) fail(ERRNO.INVAL); // the root itself
    let dir = this.root;
    for (const p of parts) {
      dir = dir.children.get(p) ?? fail(ERRNO.NOENT);
      if (dir.filetype !== FILETYPE.DIRECTORY) fail(ERRNO.NOTDIR);
    }
    return [dir, name];
  }

  lookup(path) {
    if (split(path).length === 0) return this.root;
    const [dir, name] = this.parentOf(path);
    return dir.children.get(name) ?? fail(ERRNO.NOENT);
  }

  file(fd) {
    return this.fds.get(fd) ?? fail(ERRNO.BADF);
  }

  /** Opens (and with O.CREAT creates) `path`; returns the new fd. */
  openSync(path, oflags = 0, fdflags = 0) {
    const [dir, name] = this.parentOf(path);
    let node = dir.children.get(name);
    if (node && (oflags & O.CREAT) && (oflags & O.EXCL)) fail(ERRNO.EXIST);
    if (!node) {
      if (!(oflags & O.CREAT)) fail(ERRNO.NOENT);
      node = new Node(FILETYPE.REGULAR_FILE);
      dir.children.set(name, node);
      dir.mtim = node.ctim;
    }
    if ((oflags & O.DIRECTORY) && node.filetype !== FILETYPE.DIRECTORY) fail(ERRNO.NOTDIR);
    if (oflags & O.TRUNC) {
      if (node.filetype === FILETYPE.DIRECTORY) fail(ERRNO.ISDIR);
      node.size = 0;
      node.mtim = nowNs();
    }
    const fd = this.nextFd++;
    this.fds.set(fd, { node, pos: 0, append: (fdflags & FDFLAG_APPEND) !== 0 });
    return fd;
  }

  closeSync(fd) {
    this.file(fd);
    this.fds.delete(fd);
  }

  /** Up to `length` bytes from the fd's position (a copy). */
  readSync(fd, length) {
    const f = this.file(fd);
    if (f.node.filetype === FILETYPE.DIRECTORY) fail(ERRNO.ISDIR);
    const end = Math.min(f.node.size, f.pos + length);
    const out = f.node.data.slice(Math.min(f.pos, end), end);
    f.pos = Math.max(f.pos, end);
    return out;
  }

  /** Writes all of `bytes` at the fd's position (or at the end with O_APPEND); returns the count. */
  writeSync(fd, bytes) {
    const f = this.file(fd);
    const node = f.node;
    if (node.filetype === FILETYPE.DIRECTORY) fail(ERRNO.ISDIR);
    if (f.append) f.pos = node.size;
    const end = f.pos + bytes.length;
    if (end > node.data.length) {
      const grown = new Uint8Array(Math.max(end, node.data.length * 2, 64));
      grown.set(node.data.subarray(0, node.size));
      node.data = grown;
    }
    if (f.pos > node.size) node.data.fill(0, node.size, f.pos);
    node.data.set(bytes, f.pos);
    f.pos = end;
    node.size = Math.max(node.size, end);
    node.mtim = nowNs();
    return bytes.length;
  }

  /** lseek: returns the new position. `whence` 0 SET, 1 CUR, 2 END (WASI's order). */
  seekSync(fd, offset, whence) {
    const f = this.file(fd);
    const base = whence === 0 ? 0 : whence === 1 ? f.pos : whence === 2 ? f.node.size : fail(ERRNO.INVAL);
    const pos = base + offset;
    if (pos < 0) fail(ERRNO.INVAL);
    f.pos = pos;
    return pos;
  }

  statSync(path) {
    return stat(this.lookup(path));
  }

  fstatSync(fd) {
    return stat(this.file(fd).node);
  }

  mkdirSync(path) {
    const [dir, name] = this.parentOf(path);
    if (dir.children.has(name)) fail(ERRNO.EXIST);
    dir.children.set(name, new Node(FILETYPE.DIRECTORY));
  }

  unlinkSync(path) {
    const [dir, name] = this.parentOf(path);
    const node = dir.children.get(name) ?? fail(ERRNO.NOENT);
    if (node.filetype === FILETYPE.DIRECTORY) fail(ERRNO.ISDIR);
    dir.children.delete(name);
  }

  rmdirSync(path) {
    const [dir, name] = this.parentOf(path);
    const node = dir.children.get(name) ?? fail(ERRNO.NOENT);
    if (node.filetype !== FILETYPE.DIRECTORY) fail(ERRNO.NOTDIR);
    if (node.children.size > 0) fail(ERRNO.NOTEMPTY);
    dir.children.delete(name);
  }
}

/** A plain object (structured-cloneable, JSON-able): sizes and times as numbers. */
function stat(node) {
  return { ino: node.ino, filetype: node.filetype, nlink: 1, size: node.filetype === FILETYPE.DIRECTORY ? 4096 : node.size,
    atim: node.atim, mtim: node.mtim, ctim: node.ctim };
}

function split(path) {
  const out = [];
  for (const p of path.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') out.pop();
    else out.push(p);
  }
  return out;
}
