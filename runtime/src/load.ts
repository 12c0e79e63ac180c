/**
 * Turns what the user gave (a path, a URL, bytes or a compiled module) into a compiled module
 * and the facts the runtime needs about it, and refuses, with a message that says what to do,
 * anything that cannot run.
 *
 * A threaded program's bytes are rewritten before compiling (thread-guards.ts). The runtime never
 * changes V8's flags (they are process-wide and only safe at process start): which flags a
 * program's process should start with is compile-policy.ts's answer, applied by the CLI when it
 * starts Node, or by an embedder.
 */
import { SpindleError } from './errors.js';
import { isWasm, readImports, type MemoryImport } from './wasm-imports.js';
import { isSharedBuffer } from './shared-buffer.js';
import { jspiForWorkers } from './jspi.js';
import { guardThreads, type GuardResult } from './thread-guards.js';
import { compileKeepingAlive } from './compile-policy.js';

/** Bytes with the name to show for them (argv[0], messages), e.g. a file the caller read itself. */
export interface NamedBytes { bytes: Uint8Array; name: string }

export type ModuleSource = string | URL | Uint8Array | ArrayBuffer | WebAssembly.Module | NamedBytes;

/** A source once read: bytes (or a module given already compiled) and its display name. */
export interface ReadSource { bytes?: Uint8Array; module?: WebAssembly.Module; name: string }

export interface LoadedProgram {
  module: WebAssembly.Module;
  /** Base name of the file, used as argv[0]. */
  name: string;
  /** The imported memory's limits, or undefined when the module defines its own memory. */
  memory: MemoryImport | undefined;
  /** The module imports wasi.thread-spawn. */
  usesThreads: boolean;
  /** Bytes of its code section (the compile policy weighs them); absent for a module given compiled. */
  codeBytes?: number;
  hasThreadStart: boolean;
  /**
   * What thread-guards.ts did to a threaded program's bytes: how many bulk memory instructions it
   * guards and waits it wraps, or why it left the module unchanged. Absent when it did not look
   * (no threads, or a module given already compiled: such a program is exposed to V8's lazy size
   * refresh and, on Node 20's baseline tier, to its wait bug).
   */
  threadGuards?: { bulk: number; waits: number; functions: number; unchanged?: string };
  /** The bytes `module` was compiled from, for a threaded program (host-worker.ts compiles them preemptible). */
  threadBytes?: Uint8Array;
  /** The key its thread-guard rewrite is kept under across runs (GuardResult.key), when it is. */
  cacheKey?: string;
}

/** The WASI preview1 function names (every one a host must provide). */
export type KnownImports = (module: string, name: string) => boolean;

/** The thread guards' rewrite (thread-guards.ts), or a platform's cached form of it. */
export type GuardRewrite = (bytes: Uint8Array) => GuardResult;

/** Compiles and checks a source read by `readModuleSource`. */
export async function loadProgram(
  source: ReadSource,
  known: KnownImports,
  memory?: WebAssembly.Memory,
  kind: ModuleKind = 'command',
  rewrite: GuardRewrite = guardThreads,
): Promise<LoadedProgram> {
  const { bytes, module: given, name } = source;
  const summary = bytes ? summarize(bytes, name) : undefined;
  const guard = bytes && summary!.all.some(isThreadSpawn) ? rewrite(bytes) : undefined;
  const module = given ?? await compile(guard?.bytes ?? bytes!, name);
  return withGuards(check(module, name, summary, known, memory, kind), guard, kind);
}

/** Adds what the thread guards did (or why they left the module as it was) to a program's facts. */
function withGuards(program: LoadedProgram, guard: ReturnType<typeof guardThreads> | undefined, kind: ModuleKind): LoadedProgram {
  if (!guard) return program;
  const { bulk, waits, functions, unchanged } = guard;
  // Kept only where threads can be hosted (JSPI; elsewhere they would only hold memory: so never
  // for a reactor, whose threads are never hosted, program.ts), and only when every wait of the
  // module goes through the wrapper: a raw wait in a hosted thread would block its host worker, so
  // such a program keeps a worker per thread. (rolldown's binding: 12 MB held for nothing.)
  const hostable = kind === 'command' && jspiForWorkers() && (unchanged === undefined || guard.walked === true);
  return { ...program, threadGuards: { bulk, waits, functions, ...(unchanged ? { unchanged } : {}) }, ...(hostable ? { threadBytes: guard.bytes } : {}),
    ...(guard.key ? { cacheKey: guard.key } : {}) };
}

/**
 * The same, synchronously, for bytes or a compiled module in hand (a reactor loaded from a
 * synchronous API: napi/). Compiles on the calling thread: browsers refuse that on the page's
 * main thread for modules over a few MB, so there use `loadProgram`.
 */
export function loadProgramSync(
  source: Uint8Array | ArrayBuffer | WebAssembly.Module,
  known: KnownImports,
  memory?: WebAssembly.Memory,
  kind: ModuleKind = 'command',
  name = 'module.wasm',
  rewrite: GuardRewrite = guardThreads,
): LoadedProgram {
  if (source instanceof WebAssembly.Module) return check(source, name, undefined, known, memory, kind);
  const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
  const summary = summarize(bytes, name);
  const guard = summary.all.some(isThreadSpawn) ? rewrite(bytes) : undefined;
  let module;
  try {
    module = new WebAssembly.Module((guard?.bytes ?? bytes) as Uint8Array<ArrayBuffer>);
  } catch (e) {
    throw new SpindleError('BAD_MODULE', `${name} does not compile: ${(e as Error).message.replace(/^WebAssembly\.Module\(\): /, '')}`);
  }
  return withGuards(check(module, name, summary, known, memory, kind), guard, kind);
}

/**
 * A command runs `_start` (a WASI program); a reactor is a library module (`_initialize`, called
 * exports, no `_start`: a napi-rs addon).
 */
export type ModuleKind = 'command' | 'reactor';

type Summary = ReturnType<typeof readImports>;

function isThreadSpawn(i: { module: string; name: string }): boolean {
  return i.module === 'wasi' && i.name === 'thread-spawn';
}

/** The import section of `bytes`, or a SpindleError saying the file is not wasm. */
function summarize(bytes: Uint8Array, name: string): Summary {
  if (!isWasm(bytes)) {
    throw new SpindleError('NOT_WASM', `${name} is not a WebAssembly module (no \\0asm header); pass a .wasm file built for wasm32-wasip1 or wasm32-wasip1-threads`);
  }
  try {
    return readImports(bytes);
  } catch {
    throw new SpindleError('BAD_MODULE', `${name} is not a valid WebAssembly module (its import section is malformed); rebuild it`);
  }
}

/** Refuses, with a message saying what to do, a compiled module that cannot run; else its facts. */
function check(
  module: WebAssembly.Module, name: string, summary: Summary | undefined, known: KnownImports,
  memory: WebAssembly.Memory | undefined, kind: ModuleKind,
): LoadedProgram {
  // The import section read from the bytes lists the same imports the compiled module would.
  const imports = summary?.all ?? WebAssembly.Module.imports(module);
  const usesThreads = imports.some(isThreadSpawn);
  const exports = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  const memoryImport = summary?.memory ?? (imports.some((i) => i.kind === 'memory') ? limitsFromOption(name, imports, memory) : undefined);
  for (const i of imports) {
    if (i.kind === 'memory') continue;
    if (!known(i.module, i.name)) {
      throw new SpindleError('UNKNOWN_IMPORT', `${name} imports ${i.kind} "${i.module}"."${i.name}", which no WASI host provides; `
        + 'link it into the program (or build for wasm32-wasip1/wasm32-wasip1-threads without that dependency)');
    }
  }
  if (usesThreads && memoryImport && !memoryImport.shared) {
    throw new SpindleError('MEMORY_NOT_SHARED', `${name} spawns threads but its memory import "${memoryImport.module}"."${memoryImport.name}" is not shared; `
      + 'link with -Wl,--shared-memory,--import-memory (wasm32-wasip1-threads does this by default)');
  }
  if (kind === 'command' && !exports.has('_start')) {
    throw new SpindleError('NO_START', `${name} has no _start export; spindle runs WASI commands (a reactor or library module cannot be run)`);
  }
  if (kind === 'reactor' && exports.has('_start')) {
    throw new SpindleError('BAD_MODULE', `${name} is a WASI command (it exports _start), not a library module; run it with spindle's run() instead`);
  }
  const facts: LoadedProgram = { module, name, memory: memoryImport, usesThreads, hasThreadStart: exports.has('wasi_thread_start') };
  return summary ? { ...facts, codeBytes: summary.codeBytes } : facts;
}

/** Node (a path or file: URL is read from disk); anything else fetches every string and URL. */
const inNode = typeof process !== 'undefined' && !!process.versions?.node;

/** Reads a source's bytes (a path or file: URL from disk in Node; any other string or URL is fetched). */
export async function readModuleSource(source: ModuleSource, readFile: (path: string | URL) => Promise<Uint8Array>): Promise<ReadSource> {
  if (source instanceof WebAssembly.Module) return { module: source, name: 'module.wasm' };
  if (isNamedBytes(source)) return { bytes: source.bytes, name: source.name };
  if (source instanceof Uint8Array) return { bytes: source, name: 'module.wasm' };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source), name: 'module.wasm' };
  const url = source instanceof URL ? source : /^[a-z][a-z0-9+.-]*:\/\//i.test(source) ? new URL(source)
    : inNode ? undefined : new URL(source, globalThis.location?.href); // a browser: relative to the page
  if (url && (url.protocol !== 'file:' || !inNode)) {
    let res;
    try {
      res = await fetch(url);
    } catch (e) {
      throw new SpindleError('ENOENT_MODULE', `cannot fetch ${url.href}: ${(e as Error).message}; check the URL and that the server is running`);
    }
    if (!res.ok) throw new SpindleError('ENOENT_MODULE', `cannot fetch ${url.href}: HTTP ${res.status}; check the URL`);
    return { bytes: new Uint8Array(await res.arrayBuffer()), name: baseName(url.pathname) };
  }
  const path = url ? url : (source as string);
  const shown = url ? url.pathname : (source as string);
  try {
    return { bytes: await readFile(path), name: baseName(shown) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SpindleError('ENOENT_MODULE', `cannot find ${shown}: no such file; check the path to the .wasm program`);
    if (code === 'EISDIR') throw new SpindleError('ENOENT_MODULE', `${shown} is a directory; give the path of a .wasm file`);
    throw new SpindleError('ENOENT_MODULE', `cannot read ${shown}: ${(e as Error).message}`);
  }
}

async function compile(bytes: Uint8Array, name: string): Promise<WebAssembly.Module> {
  try {
    return await compileKeepingAlive(bytes);
  } catch (e) {
    throw new SpindleError('BAD_MODULE', `${name} does not compile: ${(e as Error).message.replace(/^WebAssembly\.compile\(\): /, '')}`);
  }
}

function isNamedBytes(source: ModuleSource): source is NamedBytes {
  return typeof source === 'object' && !(source instanceof URL) && 'bytes' in source && source.bytes instanceof Uint8Array;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || 'module.wasm';
}

/** A compiled module's memory limits are not observable; the caller must give its memory. */
function limitsFromOption(name: string, imports: readonly { module: string; name: string; kind: string }[], memory: WebAssembly.Memory | undefined): MemoryImport {
  const imp = imports.find((i) => i.kind === 'memory')!;
  if (!memory) {
    throw new SpindleError('BAD_OPTION', `${name} was given as a compiled WebAssembly.Module that imports memory; `
      + 'pass its bytes instead, or pass the shared memory to use as the `memory` option');
  }
  const shared = isSharedBuffer(memory.buffer);
  return { module: imp.module, name: imp.name, initial: memory.buffer.byteLength / 65536, maximum: undefined, shared };
}
