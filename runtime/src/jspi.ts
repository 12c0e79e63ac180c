/**
 * JSPI (JavaScript Promise Integration), typed: `WebAssembly.Suspending` (an import that may
 * suspend the wasm stack that calls it until the Promise it returns settles) and
 * `WebAssembly.promising` (an export whose call returns a Promise, the stack it runs on being
 * the one that suspends). Present without flags in Node 24 and 26, Chromium and Firefox; absent
 * in Node 20 and 22 and WebKit (checked 2026-11-27, docs/threads-beyond-the-pool.md).
 */
interface Jspi {
  Suspending: new (f: (...args: any[]) => unknown) => WebAssembly.ImportValue;
  promising<A extends unknown[]>(f: (...args: A) => unknown): (...args: A) => Promise<unknown>;
}

/** Whether this engine has JSPI. */
export function hasJspi(): boolean {
  const w = WebAssembly as unknown as Partial<Jspi>;
  return typeof w.Suspending === 'function' && typeof w.promising === 'function';
}

/** WebAssembly with JSPI's two members: call only where `hasJspi()`. */
export const jspi = WebAssembly as unknown as Jspi;
