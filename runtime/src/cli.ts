#!/usr/bin/env node
/**
 * The `spindle` command. wasmtime-compatible where the two overlap:
 *
 *   spindle run [OPTIONS] [--] PROGRAM.wasm [ARGS...]
 *   spindle PROGRAM.wasm [ARGS...]
 *
 * Exit status: the program's; 2 for a usage error; 1 when the program cannot be run.
 * A user mistake prints one line, never a stack trace of the runtime.
 */
import { readFileSync, writeSync } from 'node:fs';
import type { RunOptions } from './index.js';
import type { HostDirOption } from './fs/program-fs.js';
import { relaunchFlags, shapeOf, type TierChoice } from './compile-policy.js';
import { relaunch } from './relaunch.js';

const HELP = `spindle: run wasm32-wasip1-threads and wasm32-wasip1 programs on Node.js

Usage:
  spindle run [OPTIONS] [--] PROGRAM.wasm [ARGS...]
  spindle PROGRAM.wasm [ARGS...]
  spindle check PROGRAM.wasm...    list WASI filesystem imports that bypass spindle's in-program FS (exit 1 if any)
  spindle serve [DIR] [--port N]   a local web server that runs programs in a browser
  spindle bench [--quick] [--threads 1,2,4] [--runs N] [--out DIR] [--only IDS]   benchmarks (needs the repository)

Options (before PROGRAM.wasm; everything after it goes to the program):
  --env NAME=VALUE      set an environment variable (repeatable); --env NAME passes the host's value
  --threads N           workers started with the program, ahead of its first thread spawns
                        (default: 2 x cores)
  --max-threads N       most threads alive at once; past it pthread_create fails with EAGAIN (default 512)
  --no-host-threads     a worker for every thread beyond the --threads pool; by default,
                        where Node's workers have JSPI (22+; on 22 spindle sets the V8 flag
                        --experimental-wasm-jspi when it first hosts a thread; on 20 the CLI
                        starts threaded programs with --experimental-wasm-stack-switching), they share one
                        host worker per core, each suspended while it waits
                        (docs/threads-beyond-the-pool.md)
  --main-thread         run _start on the calling thread instead of a worker (always done
                        for programs that cannot spawn threads)
  --optimize            the optimizing tier for every function the program calls (Node started
                        with --no-liftoff), whatever its shape: for long loops entered once in a
                        single-threaded or a large program (slower start)
  --no-optimize         V8's default tiering for every program (baseline code first: faster
                        start, slower long loops). By default the CLI starts Node with
                        --no-liftoff for threaded programs of up to 2 MiB of code (and
                        --no-wasm-lazy-compilation up to 256 KiB), and with V8's default
                        tiering otherwise (README, "Compile policy")
  --dir HOST[::GUEST]   give the program the host directory HOST, seen at GUEST (default: HOST);
                        wasmtime's syntax; confined: no '..', absolute path or symlink leads out;
                        on Linux neither does a rename or symlink swap made meanwhile by another
                        thread or process (macOS: not guaranteed; Windows: no --dir; README)
  --dir-ro HOST[::GUEST]  the same, read-only (every change fails, as in wasmtime: EPERM)
  --mount GUEST=memory  a memory directory at GUEST, shared by all threads (gone at exit)
  --preload SRC::GUEST  copy a host directory or .tar file into GUEST (inside a --mount) first
  --save GUEST::FILE.tar  write GUEST (inside a --mount) to FILE.tar when the program ends
                        (also on a non-zero exit; never a partial file)
                        Without these options the program has no filesystem (as in wasmtime).
  -h, --help            show this help
  --version             print spindle's version

Exit status: the program's exit code; 134 when a thread traps; 2 for a usage error;
1 when the program cannot be run.
`;

class UsageError extends Error {}

/** `dirs` holds the raw --dir/--dir-ro values until the runtime is loaded (see `runProgram`). */
interface Parsed { options: RunOptions; program: string; tiers: TierChoice; dirs: [string, boolean][] }

function parse(argv: string[]): Parsed | 'help' | 'version' {
  let args = argv;
  if (args[0] === 'run') args = args.slice(1);
  const env: string[] = [];
  const options: RunOptions = { env, mounts: [], preload: [], save: [] };
  const dirs: [string, boolean][] = [];
  let tiers: TierChoice = 'auto';
  let i = 0;
  const value = (flag: string): string => {
    const v = args[++i];
    if (v === undefined) throw new UsageError(`${flag} needs a value; see 'spindle --help'`);
    return v;
  };
  for (; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const val = () => inline ?? value(flag);
    if (a === '--') { i++; break; }
    if (!a.startsWith('-') || a === '-') break;
    switch (flag) {
      case '-h': case '--help': return 'help';
      case '--version': return 'version';
      case '--env': env.push(envEntry(val())); break;
      case '--threads': options.threads = count(flag, val()); break;
      case '--max-threads': options.maxThreads = count(flag, val()); break;
      case '--host-threads': options.hostThreads = true; break;
      case '--no-host-threads': options.hostThreads = false; break;
      case '--main-thread': options.runOnCallingThread = true; break;
      case '--optimize': tiers = 'optimize'; break;
      case '--no-optimize': tiers = 'baseline'; break;
      case '--dir': dirs.push([val(), false]); break;
      case '--dir-ro': dirs.push([val(), true]); break;
      case '--mapdir': throw new UsageError(`--mapdir is wasmtime's old syntax; use --dir HOST::GUEST`);
      case '--mount': (options.mounts as string[]).push(mountEntry(val())); break;
      case '--preload': (options.preload as string[]).push(val()); break;
      case '--save': (options.save as string[]).push(val()); break;
      default: throw new UsageError(`unknown option ${flag}; see 'spindle --help'`);
    }
  }
  const program = args[i];
  if (program === undefined) throw new UsageError("no program given; usage: spindle run PROGRAM.wasm [ARGS...]");
  options.args = args.slice(i + 1);
  return { options, program, tiers, dirs };
}

function mountEntry(s: string): string {
  if (/=opfs:/.test(s)) throw new UsageError(`--mount ${s}: OPFS exists only in browsers (run it there with mounts: ['${s}']); in Node use --mount GUEST=memory or --dir HOST::GUEST`);
  const m = /^(.+)=memory$/.exec(s);
  if (!m) throw new UsageError(`--mount takes GUEST=memory (got '${s}'); e.g. --mount /tmp=memory`);
  return m[1]!;
}

function envEntry(s: string): string {
  if (s.includes('=')) return s;
  const v = process.env[s];
  if (v === undefined) throw new UsageError(`--env ${s}: the host has no variable ${s}; use --env ${s}=VALUE`);
  return `${s}=${v}`;
}

function count(flag: string, s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65536) throw new UsageError(`${flag} takes a whole number (got '${s}')`);
  return n;
}

/**
 * Node decodes the command line as UTF-8 and turns invalid bytes into U+FFFD without a word; a
 * program would get other bytes than it was given. Where the raw bytes can be read
 * (/proc/self/cmdline, Linux), an argument that is not UTF-8 is refused, as wasmtime refuses it.
 */
function checkUtf8Argv(count: number): void {
  // Node puts U+FFFD in place of every invalid sequence: without one, the bytes were UTF-8
  // (a checked U+FFFD given as such passes below), and the read and decode (~2 ms) are skipped.
  if (count <= 0 || !process.argv.slice(-count).some((a) => a.includes('\uFFFD'))) return;
  let raw: Buffer;
  try {
    raw = readFileSync('/proc/self/cmdline');
  } catch {
    return; // not Linux: Node's decoding stands (README: host table)
  }
  const parts = raw.subarray(0, raw.at(-1) === 0 ? -1 : raw.length).toString('latin1').split('\0');
  const strict = new TextDecoder('utf-8', { fatal: true });
  parts.slice(-count).forEach((p, i) => {
    try {
      strict.decode(Buffer.from(p, 'latin1'));
    } catch {
      throw new UsageError(`argument ${i + 1} of the command line is not valid UTF-8; WASI programs get their arguments as UTF-8 here (wasmtime refuses them too): pass it in UTF-8`);
    }
  });
}

function fail(message: string, status: number): never {
  writeSync(2, `spindle: error: ${message}\n`);
  process.exit(status);
}

/** `spindle run` (and help, version); cli-start.ts runs the other subcommands itself. */
async function main(): Promise<void> {
  let parsed;
  try {
    checkUtf8Argv(process.argv.length - 2);
    parsed = parse(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) fail(e.message, 2);
    throw e;
  }
  if (parsed === 'help') { writeSync(1, HELP); process.exit(0); }
  if (parsed === 'version') { writeSync(1, '0.1.0\n'); process.exit(0); }
  await runProgram(parsed);
}

/**
 * Loads and runs the program; exits with its status (or relaunches Node with the flags it needs).
 * The runtime itself is imported only once the process is known to run the program: a relaunch
 * costs this process no more than reading the module's import section.
 */
async function runProgram({ program: path, options, tiers, dirs }: Parsed): Promise<void> {
  let name = path;
  const finished = guardSilentExit(() => name);
  try {
    const bytes = readProgramBytes(path);
    const flags = bytes ? relaunchFlags(shapeOf(bytes), tiers, process.execArgv, options.hostThreads) : [];
    if (flags.length) {
      finished(); // the child's status will be this process's
      return await relaunch(flags, baseName(path));
    }
    const [{ createProgram, load }, { parseDir }, { readModuleSource, loadProgramSync }, { nodePlatform }, { isWasiImport }, { cachedGuardThreads }] = await Promise.all([
      import('./index.js'), import('./fs/program-fs.js'), import('./load.js'), import('./platform/node/index.js'),
      import('./known-imports.js'), import('./platform/node/guard-cache.js')]);
    options.dirs = dirs.map(([spec, readOnly]): HostDirOption => parseDir(spec, readOnly));
    const source = bytes ? { bytes, name: baseName(path) } : await readModuleSource(path, nodePlatform.readFile);
    name = source.name;
    // What load() does, compiled synchronously for a small module: no timer and no task hop
    // before the first output (the CLI has nothing else to do meanwhile).
    const program = source.bytes && source.bytes.length <= SYNC_COMPILE_MAX
      ? loadProgramSync(source.bytes, isWasiImport, undefined, 'command', source.name, cachedGuardThreads)
      : await load(source, options);
    // A program that cannot spawn threads gains nothing from a worker: run it right here (no
    // worker to boot; the CLI's main thread has nothing else to do). Threaded programs keep
    // _start on a worker, where an exit from any thread can always end the program.
    if (!program.usesThreads) options.runOnCallingThread = true;
    const code = await createProgram(program, options).start();
    finished();
    process.exit(code);
  } catch (e) {
    finished();
    const { SpindleError } = await import('./errors.js');
    if (e instanceof SpindleError) fail(e.message, e.code === 'BAD_OPTION' || e.code === 'ENOENT_MODULE' ? 2 : 1);
    throw e;
  }
}

/**
 * Modules up to this size compile with `new WebAssembly.Module` on the CLI's thread (V8 still
 * spreads the work over its background threads); larger ones with WebAssembly.compile.
 */
const SYNC_COMPILE_MAX = 1 << 20;

/** The bytes of a program given as a local path, or undefined (a URL, or a file that cannot be
 * read: the runtime's loader then reads it or says why not). */
function readProgramBytes(path: string): Uint8Array | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return undefined;
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || 'module.wasm';
}

/**
 * Never a silent success: if Node is about to exit 0 before the program's status is known (its
 * event loop ran dry: nothing left that the runtime waits on), say so and exit 1 instead.
 * Returns the function that marks the status as known.
 */
function guardSilentExit(name: () => string): () => void {
  let done = false;
  process.on('exit', (code) => {
    if (done || code !== 0) return;
    writeSync(2, `spindle: error: Node stopped before ${name()} ended (nothing left running in the runtime, `
      + 'no exit status from the program); this is a bug of spindle or of Node: please report it\n');
    process.exitCode = 1;
  });
  return () => { done = true; };
}

void main();
