/**
 * args_get, args_sizes_get, environ_get, environ_sizes_get.
 *
 * Invariants: the strings are encoded to UTF-8 once, at the first call (the host's lists are
 * immutable; nothing is read from the host while the import object is built), and both the
 * sizes and the bytes written come from that one encoding (browser_wasi_shim counted UTF-16 units in
 * one and wrote UTF-8 in the other). `*_get` validates the whole pointer array and the whole buffer
 * before writing anything, so an EFAULT leaves guest memory untouched.
 *
 * Thread rules: the encoded strings are immutable; nothing here blocks.
 */
import { ERRNO_SUCCESS } from './constants.js';
import type { GuestMemory } from './guest-memory.js';
import { utf8 } from './guest-memory.js';
import type { WasiHost } from './host.js';

/** NUL-terminated UTF-8 strings, as the guest will see them. */
interface StringList {
  readonly items: readonly Uint8Array[];
  /** Sum of the item lengths including one NUL each. */
  readonly bufSize: number;
}

function encodeList(strings: readonly string[]): StringList {
  const items = strings.map((s) => {
    const bytes = utf8(s);
    const z = new Uint8Array(bytes.length + 1);
    z.set(bytes);
    return z;
  });
  return { items, bufSize: items.reduce((n, item) => n + item.length, 0) };
}

function sizesGet(mem: GuestMemory, list: StringList, countPtr: number, sizePtr: number): number {
  mem.range(countPtr, 4);
  mem.range(sizePtr, 4);
  mem.setU32(countPtr, list.items.length);
  mem.setU32(sizePtr, list.bufSize);
  return ERRNO_SUCCESS;
}

function listGet(mem: GuestMemory, list: StringList, ptrsPtr: number, bufPtr: number): number {
  const ptrs = mem.range(ptrsPtr, list.items.length * 4);
  let at = mem.range(bufPtr, list.bufSize);
  list.items.forEach((item, i) => {
    mem.setU32(ptrs + i * 4, at);
    mem.write(at, item);
    at += item.length;
  });
  return ERRNO_SUCCESS;
}

/** The four argument/environment imports for the host's `args` and `env` ("KEY=VALUE" strings). */
export function argsEnvFunctions(mem: GuestMemory, host: Pick<WasiHost, 'args' | 'env'>) {
  let argList: StringList | undefined;
  let envList: StringList | undefined;
  const args = () => (argList ??= encodeList(host.args));
  const env = () => (envList ??= encodeList(host.env));
  return {
    args_sizes_get: (argcPtr: number, bufSizePtr: number): number =>
      sizesGet(mem, args(), argcPtr, bufSizePtr),
    args_get: (argvPtr: number, bufPtr: number): number => listGet(mem, args(), argvPtr, bufPtr),
    environ_sizes_get: (countPtr: number, bufSizePtr: number): number =>
      sizesGet(mem, env(), countPtr, bufSizePtr),
    environ_get: (environPtr: number, bufPtr: number): number =>
      listGet(mem, env(), environPtr, bufPtr),
  };
}
