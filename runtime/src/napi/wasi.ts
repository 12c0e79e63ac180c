/**
 * `WASI`, as @napi-rs/wasm-runtime exports it (the class of @tybys/wasm-util that the generated
 * browser loaders construct), for spindle: it does not implement WASI itself. It records what the
 * loader asks for, and the napi host (napi/host.ts) gives the addon spindle's WASI preview1 with
 * those settings: `preopens` (guest -> host directory in Node; with `fs` from `memfs()`, that
 * memory filesystem), `args`, `env`, and `print`/`printErr` for the output.
 *
 * Platform-free.
 */
import { SpindleError } from '../errors.js';
import type { OutputOption } from '../program.js';
import type { NapiHostOptions } from './host.js';
import { memoryFsOf } from './memory-fs.js';

export interface WasiOptions {
  version?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  /** Guest path -> host path. */
  preopens?: Readonly<Record<string, string>>;
  /** `memfs().fs` for a memory filesystem; Node's `fs` (or nothing) for host directories. */
  fs?: unknown;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  returnOnExit?: boolean;
}

const NOT_DIRECT = 'spindle\'s WASI is used through spindle/napi\'s instantiateNapiModule(Sync), which gives the addon its imports; '
  + 'it cannot be given to another WASI host';

export class WASI {
  /** What the napi host reads (napi/host.ts `hostOptionsFor`). */
  readonly options: WasiOptions;

  constructor(options: WasiOptions = {}) {
    this.options = { ...options };
  }

  /** emnapi's WASIInstance methods: only reachable when this object is given to a WASI host other than spindle's. */
  getImportObject(): never { throw new SpindleError('BAD_OPTION', NOT_DIRECT); }
  initialize(): never { throw new SpindleError('BAD_OPTION', NOT_DIRECT); }
  start(): never { throw new SpindleError('BAD_OPTION', NOT_DIRECT); }
}

/**
 * Spindle's options for a `WASI` of this file. `hostFs`: whether host directories exist (Node).
 * Preopens with a `memfs()` filesystem are its mounts; every other `fs` means host directories.
 */
export function hostOptionsOfWasi(wasi: WASI, hostFs: boolean): NapiHostOptions {
  const o = wasi.options;
  const out: NapiHostOptions = {};
  if (o.args) out.args = o.args.slice(1);
  if (o.env) out.env = Object.entries(o.env).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`);
  if (o.print) out.stdout = lines(o.print);
  if (o.printErr) out.stderr = lines(o.printErr);
  const preopens = Object.entries(o.preopens ?? {});
  const memory = memoryFsOf(o.fs);
  if (memory) {
    const mounts = memory.mounts();
    for (const [guest, host] of preopens) {
      if (host !== guest || !mounts.guests.includes(guest)) {
        throw new SpindleError('BAD_OPTION', `WASI preopen '${guest}': '${host}' with a memfs() filesystem: spindle mounts that filesystem at ${mounts.guests.join(', ')}; `
          + `give preopens { '${mounts.guests[0]}': '${mounts.guests[0]}' }`);
      }
    }
    out.memoryMounts = mounts;
  } else if (preopens.length) {
    if (!hostFs) {
      throw new SpindleError('BAD_OPTION', 'WASI preopens without a memfs() filesystem are host directories, which need Node.js; '
        + 'in a browser pass `fs` from memfs() (@napi-rs/wasm-runtime/fs)');
    }
    out.dirs = preopens.map(([guest, host]) => ({ host, guest }));
  }
  return out;
}

/** Output bytes to a text callback, one call per complete line (the rest when the program ends is lost only on a crash of the page). */
function lines(print: (text: string) => void): OutputOption {
  const decoder = new TextDecoder();
  let pending = '';
  return (chunk) => {
    const parts = (pending + decoder.decode(chunk, { stream: true })).split('\n');
    pending = parts.pop()!;
    for (const line of parts) print(line);
  };
}
