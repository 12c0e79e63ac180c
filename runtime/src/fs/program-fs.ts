/**
 * The runtime's filesystem for one program, setup side (the thread that creates the program:
 * Node's main thread or the calling thread): checks the filesystem options, creates the shared fd
 * table with stdio at 0-2 and the preopens at 3, 4, ... (host directories in the order given,
 * then memory mounts in the order given), fills memory mounts from --preload, and at the end of
 * the program, once every thread has stopped, writes --save tar files and closes the host fds the
 * program left open.
 *
 * Default: no preopens at all (as wasmtime): a program sees only what it is given.
 * Errors in the options are SpindleErrors (BAD_OPTION) raised before any thread starts.
 */
import { SpindleError } from '../errors.js';
import { hostDirEntryFor, type FsInit } from './runtime-fs.js';
import type { HostFsDriver, LoadedOpfsDir, MountSpec, OpenedRoot } from './drivers.js';
import { SharedFdTable } from './shared-fd-table.js';
import { openMemoryMounts, type MemoryMounts } from './memory-mounts.js';
import type { OpfsMounts } from './memfs.js';

/** Loads an OPFS directory for this program (browser: platform `opfs`, platform/browser/opfs-owner.ts). */
export type OpfsLoad = (dir: string) => Promise<LoadedOpfsDir>;

/** A host directory for the program (`--dir HOST[::GUEST]`, `--dir-ro`). */
export interface HostDirOption {
  /** The directory on the host. */
  host: string;
  /** Where the program sees it. Default: the host path as given. */
  guest?: string;
  /** Every change through it fails with EPERM. Default false. */
  readOnly?: boolean;
}

/** Copies a host directory or .tar file into a memory mount before the program starts. */
export interface PreloadOption { from: string; to: string }
/** Writes a memory mount's subtree as a tar file at the end of the program. */
export interface SaveOption { from: string; to: string }

export interface FsOptions {
  /** Host directories, as objects or wasmtime's "HOST[::GUEST]" strings. */
  dirs?: readonly (string | HostDirOption)[];
  /**
   * Guest paths of memory directories (shared by all threads, gone at exit unless saved); in a
   * browser also 'GUEST=opfs:DIR', an OPFS mount (DIR in OPFS, '' = its root; persisted on fsync,
   * written back on close).
   */
  mounts?: readonly string[];
  preload?: readonly (string | PreloadOption)[];
  save?: readonly (string | SaveOption)[];
}

export function hasFsOptions(o: FsOptions): boolean {
  return !!(o.dirs?.length || o.mounts?.length || o.preload?.length || o.save?.length);
}

/** "HOST[::GUEST]" as wasmtime 46 parses --dir. */
export function parseDir(s: string, readOnly = false): HostDirOption {
  const i = s.indexOf('::');
  return i < 0 ? { host: s, guest: s, readOnly } : { host: s.slice(0, i), guest: s.slice(i + 2), readOnly };
}

/** "A::B" (--preload HOST::GUEST, --save GUEST::HOST.tar). */
export function parsePair(flag: string, s: string | PreloadOption): PreloadOption {
  if (typeof s !== 'string') return s;
  const i = s.indexOf('::');
  if (i <= 0 || i + 2 >= s.length) {
    throw new SpindleError('BAD_OPTION', `${flag} takes SOURCE::TARGET (got '${s}'); e.g. ${flag === '--save' ? '--save /data::out.tar' : '--preload ./site::/data'}`);
  }
  return { from: s.slice(0, i), to: s.slice(i + 2) };
}

/** What program setup takes from the platform (platform/types.ts). */
export interface ProgramFsDrivers {
  readonly hostFs: HostFsDriver | undefined;
  readonly opfsLoad: OpfsLoad | undefined;
  /** Reads the memory FS module's file (memfs.ts). */
  readonly readFile: (url: URL) => Promise<Uint8Array>;
}

export class ProgramFs {
  private constructor(
    readonly init: FsInit,
    private readonly table: SharedFdTable,
    private readonly memory: MemoryMounts | null,
    private readonly saves: readonly SaveOption[],
    private readonly hostFs: HostFsDriver | undefined,
  ) {}

  /**
   * Sets the filesystem up; throws SpindleError (BAD_OPTION) on a bad option or a corrupt tar.
   * `premade`: memory mounts that already exist (made by an embedder before the program, napi/);
   * the options' memory mounts must then be exactly theirs.
   */
  static async create(options: FsOptions, drivers: ProgramFsDrivers, premade?: MemoryMounts): Promise<ProgramFs> {
    const { dirs, roots } = openDirs(options, drivers.hostFs);
    try {
      const p = plan(options, drivers, dirs, roots);
      return ProgramFs.build(p, drivers.hostFs, roots, premade ? checkPremade(p, premade) : await openMemory(p, drivers));
    } catch (e) {
      for (const r of roots) drivers.hostFs!.closeOsFd(r.fd);
      throw e;
    }
  }

  /**
   * The same, synchronously, for options that need no memory mount made here (host directories,
   * or `premade` memory mounts): a memory mount compiles the memory-FS module, which is
   * asynchronous.
   */
  static createSync(options: FsOptions, drivers: ProgramFsDrivers, premade?: MemoryMounts): ProgramFs {
    const { dirs, roots } = openDirs(options, drivers.hostFs);
    try {
      const p = plan(options, drivers, dirs, roots);
      if (!premade && p.memGuests.length) {
        throw new SpindleError('BAD_OPTION', `memory mounts (${p.memGuests.join(', ')}) need the asynchronous API (the memory-FS module is compiled asynchronously); `
          + 'use it, or give host directories only');
      }
      return ProgramFs.build(p, drivers.hostFs, roots, premade ? checkPremade(p, premade) : null);
    } catch (e) {
      for (const r of roots) drivers.hostFs!.closeOsFd(r.fd);
      throw e;
    }
  }

  /** The table, once the host directories are open (the caller closes their fds on an error). */
  private static build(p: Plan, hostFs: HostFsDriver | undefined, roots: readonly OpenedRoot[], memory: MemoryMounts | null): ProgramFs {
    for (const pre of p.preload) memory!.importTar(pre.to, readPreload(hostFs!, pre.from), `--preload ${pre.from}`);
    const table = SharedFdTable.create();
    p.mounts.forEach((m, i) => {
      if (m.host !== null) table.insertEntry(hostDirEntryFor(roots[i]!.fd, m.host, i, i + 1));
      else table.insertEntry(memory!.preopenEntry(m.guest, i, i + 1));
    });
    return new ProgramFs({ table: table.buffer, mounts: p.mounts, memfs: (memory?.init ?? null) as FsInit['memfs'] }, table, memory, p.saves, hostFs);
  }

  /**
   * The end of the program: once `stopped` (every worker terminated) resolves, writes the --save
   * tar files (each to a temporary name, then renamed: never a partial file) and closes the host
   * fds the program left open. Awaited only when there is something to save.
   */
  async finish(stopped: Promise<unknown>): Promise<void> {
    if (this.saves.length === 0) {
      void stopped.then(() => this.closeHostFds());
      return;
    }
    await stopped;
    this.closeHostFds();
    for (const s of this.saves) {
      const tar = this.memory!.exportTar(s.from);
      try {
        this.hostFs!.writeFileAtomic(s.to, tar);
      } catch (e) {
        throw new SpindleError('BAD_TAR', `--save ${s.from}::${s.to}: cannot write ${s.to} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
      }
    }
  }

  private closeHostFds(): void {
    const hostFs = this.hostFs;
    if (hostFs) this.table.closeAll((os) => hostFs.closeOsFd(os));
  }
}

/** The options checked, in the order they become preopens. */
interface Plan {
  readonly mounts: readonly MountSpec[];
  readonly opfsDirs: readonly { guest: string; dir: string }[];
  readonly memGuests: readonly string[];
  readonly preload: readonly PreloadOption[];
  readonly saves: readonly SaveOption[];
}

/** The host directories of the options, opened (SpindleError BAD_OPTION when one cannot be). */
function openDirs(options: FsOptions, hostFs: HostFsDriver | undefined): { dirs: HostDirOption[]; roots: OpenedRoot[] } {
  const dirs = (options.dirs ?? []).map((d) => (typeof d === 'string' ? parseDir(d) : d));
  if (dirs.length > 0 && !hostFs) throw new SpindleError('BAD_OPTION', 'host directories (dirs, --dir) need Node.js; in a browser use memory mounts');
  return { dirs, roots: openRoots(dirs, hostFs) };
}

/** Checks the other options (SpindleError BAD_OPTION) once the host directories are open. */
function plan(options: FsOptions, drivers: ProgramFsDrivers, dirs: readonly HostDirOption[], roots: readonly OpenedRoot[]): Plan {
  const { hostFs, opfsLoad } = drivers;
  const mounts: MountSpec[] = dirs.map((d, i) => ({ guest: d.guest ?? d.host, host: roots[i]!.path, readOnly: d.readOnly ?? false }));
  const opfsDirs: { guest: string; dir: string }[] = [];
  for (const m of options.mounts ?? []) {
    const i = m.indexOf('=opfs:');
    const guest = checkGuest('--mount', i < 0 ? m : m.slice(0, i));
    if (i >= 0) opfsDirs.push({ guest, dir: checkOpfsDir(m, m.slice(i + 6), opfsLoad) });
    mounts.push({ guest, host: null, readOnly: false });
  }
  const preload = (options.preload ?? []).map((p) => parsePair('--preload', p));
  const saves = (options.save ?? []).map((p) => parsePair('--save', p));
  const memGuests = mounts.filter((m) => m.host === null).map((m) => m.guest);
  for (const p of preload) requireMemoryMount('--preload', p.to, memGuests);
  for (const s of saves) requireMemoryMount('--save', s.from, memGuests);
  if (preload.length && !hostFs) throw new SpindleError('BAD_OPTION', '--preload reads host files: it needs Node.js');
  if (saves.length && !hostFs) throw new SpindleError('BAD_OPTION', '--save writes host files: it needs Node.js');
  return { mounts, opfsDirs, memGuests, preload, saves };
}

/** The memory mounts of the plan (OPFS ones loaded first), or null without any. */
async function openMemory(p: Plan, drivers: ProgramFsDrivers): Promise<MemoryMounts | null> {
  if (!p.memGuests.length) return null;
  const opfs = p.opfsDirs.length ? await loadOpfs(p.opfsDirs, drivers.opfsLoad!) : undefined;
  const opfsGuests = new Set(p.opfsDirs.map((o) => o.guest));
  return openMemoryMounts(p.memGuests.filter((g) => !opfsGuests.has(g)), drivers.readFile, opfs);
}

/** Premade memory mounts serve exactly the options' memory mounts (no OPFS among them). */
function checkPremade(p: Plan, premade: MemoryMounts): MemoryMounts {
  const want = [...p.memGuests].sort().join(', ');
  const have = [...premade.guests].sort().join(', ');
  if (p.opfsDirs.length || want !== have) {
    throw new SpindleError('BAD_OPTION', `the memory filesystem given has mounts ${have || 'none'} but the options ask for ${want || 'none'}; give the same mounts`);
  }
  return premade;
}

/** Opens every host directory to mount (all or none: on an error the opened ones are closed). */
function openRoots(dirs: readonly HostDirOption[], hostFs: HostFsDriver | undefined): OpenedRoot[] {
  const roots: OpenedRoot[] = [];
  for (const d of dirs) {
    const root = d.host === ''
      ? { error: `give the host directory (e.g. --dir .::${d.guest || '/data'}); an empty one is refused` }
      : hostFs!.root(d.host);
    if ('error' in root) {
      for (const r of roots) hostFs!.closeOsFd(r.fd);
      throw new SpindleError('BAD_OPTION', `--dir ${d.host}::${d.guest ?? ''}: ${root.error}`);
    }
    roots.push(root);
  }
  return roots;
}

function readPreload(hostFs: HostFsDriver, from: string): Uint8Array {
  try {
    return hostFs.readTree(from);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SpindleError('BAD_OPTION', `--preload ${from}: ${code === 'ENOENT' ? 'no such file or directory' : `cannot read it (${code ?? String(e)})`}`);
  }
}

/** The OPFS directory of mount entry `entry` ('a/b', '' = the root), or why it cannot be. */
function checkOpfsDir(entry: string, dir: string, opfsLoad: OpfsLoad | undefined): string {
  if (!opfsLoad) throw new SpindleError('BAD_OPTION', `mount '${entry}': OPFS exists only in browsers; in Node use a memory mount (with preload/save) or a host directory (dirs)`);
  const parts = dir.split('/').filter((c) => c !== '');
  if (parts.some((c) => c === '.' || c === '..')) throw new SpindleError('BAD_OPTION', `mount '${entry}': give the OPFS directory without '.' or '..' (e.g. /data=opfs:app/files)`);
  return parts.join('/');
}

/** Loads every OPFS directory (in order, through the program's I/O worker). */
async function loadOpfs(dirs: readonly { guest: string; dir: string }[], load: OpfsLoad): Promise<OpfsMounts> {
  let channel: SharedArrayBuffer | undefined;
  const mounts = [];
  for (const d of dirs) {
    let l: LoadedOpfsDir;
    try {
      l = await load(d.dir);
    } catch (e) {
      throw new SpindleError('BAD_OPTION', `OPFS mount ${d.guest}=opfs:${d.dir}: ${(e as Error).message} (see the console)`);
    }
    channel = l.channel;
    mounts.push({ path: d.guest, mount: l.mount, tar: l.tar });
  }
  return { channel: channel!, mounts };
}

function checkGuest(flag: string, guest: string): string {
  if (!guest.startsWith('/') || guest.split('/').some((c) => c === '..' || c === '.')) {
    throw new SpindleError('BAD_OPTION', `${flag} ${guest}: give an absolute guest path without '.' or '..' (e.g. /tmp)`);
  }
  return guest.length > 1 ? guest.replace(/\/+$/, '') : guest;
}

function requireMemoryMount(flag: string, guest: string, memGuests: readonly string[]): void {
  const inside = memGuests.some((m) => guest === m || guest.startsWith(m === '/' ? '/' : m + '/'));
  if (!inside) {
    throw new SpindleError('BAD_OPTION', `${flag}: ${guest} is not inside a memory mount; add --mount ${guest}=memory (mounts: ${memGuests.join(', ') || 'none'})`);
  }
}
