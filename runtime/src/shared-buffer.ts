/**
 * Shared buffers by capability, not by the global's name. Every SharedArrayBuffer the runtime
 * makes (control block, output rings, stdin pipe, fd table, memory-FS regions, OPFS channel,
 * wait cells) is made here, and every "is this buffer shared?" is asked here.
 *
 * Why: the global name and the capability are different things. WebKitGTK 2.50 (the engine of
 * Safari), in a cross-origin isolated page, creates a shared `WebAssembly.Memory` whose buffer is
 * a SharedArrayBuffer while `globalThis.SharedArrayBuffer` is undefined (and, unless started with
 * JSC_useSharedArrayBuffer=1, cannot post it to a worker: sharingProblem). So the constructor is
 * the global's where there is one, else the constructor of a shared wasm memory's buffer; a
 * buffer is shared when its toStringTag says so (true across realms too, unlike instanceof); and
 * whether threads can run is asked by doing what they need (sharingProblem).
 *
 * Lowest layer: imports nothing, usable from every file and every thread (page, workers, Node).
 */

/** The shared buffer constructor of this context: undefined until asked, null if there is none. */
let constructorHere: SharedArrayBufferConstructor | null | undefined;

/** Whether `value` is a SharedArrayBuffer (whatever global names it has, from any realm). */
export function isSharedBuffer(value: unknown): value is SharedArrayBuffer {
  return Object.prototype.toString.call(value) === '[object SharedArrayBuffer]';
}

/**
 * The constructor of shared buffers in this context, or null when it cannot share memory (a page
 * that is not cross-origin isolated). A shared `WebAssembly.Memory` is tried when the global name
 * is missing; the answer is kept.
 */
export function sharedBufferConstructor(): SharedArrayBufferConstructor | null {
  if (constructorHere !== undefined) return constructorHere;
  const named = (globalThis as { SharedArrayBuffer?: SharedArrayBufferConstructor }).SharedArrayBuffer;
  if (typeof named === 'function') return (constructorHere = named);
  constructorHere = null;
  try {
    const buffer: unknown = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer;
    if (isSharedBuffer(buffer)) constructorHere = buffer.constructor as SharedArrayBufferConstructor;
  } catch {
    // no shared memory in this context
  }
  return constructorHere;
}

/** What keeps this context from running threads; undefined until asked (see sharingProblem). */
let problemHere: 'no shared memory' | 'not transferable' | 'none' | undefined;

/**
 * What keeps this context from running threads, checked by doing it, never by a global's name:
 * 'no shared memory' when a shared `WebAssembly.Memory` cannot be created, 'not transferable'
 * when one can be created but not posted to another thread (WebKitGTK and WPE 2.50: their
 * SharedArrayBuffers cannot be serialized, WebKit bug 317847), undefined when both work. The
 * answer is kept. The probe memory has one page: JavaScriptCore 2.50 crashes the web process
 * when it serializes a zero-length shared memory.
 */
export function sharingProblem(): 'no shared memory' | 'not transferable' | undefined {
  problemHere ??= probeSharing();
  return problemHere === 'none' ? undefined : problemHere;
}

function probeSharing(): 'no shared memory' | 'not transferable' | 'none' {
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  } catch {
    return 'no shared memory';
  }
  if (!isSharedBuffer(memory.buffer as unknown)) return 'no shared memory';
  if (typeof MessageChannel !== 'function') return 'none';
  // Serialization happens in postMessage itself: a DataCloneError is thrown here, synchronously.
  const channel = new MessageChannel();
  try {
    channel.port1.postMessage(memory);
    return 'none';
  } catch {
    return 'not transferable';
  } finally {
    channel.port1.close();
    channel.port2.close();
  }
}

/** A new zero-filled SharedArrayBuffer of `bytes` bytes. */
export function newSharedBuffer(bytes: number): SharedArrayBuffer {
  const Shared = sharedBufferConstructor();
  if (!Shared) {
    // The entries refuse to start where memory cannot be shared (browser.ts: NOT_ISOLATED), so
    // reaching this is a runtime bug, not a user error.
    throw new Error(`spindle: internal error: a shared buffer of ${bytes} bytes was asked for in a context that cannot share memory`);
  }
  return new Shared(bytes);
}
