/**
 * The filesystem proxy of the demo's baseline, wired the way @napi-rs/wasm-runtime wires memfs in
 * browsers (its fs-proxy.js): a worker that calls a filesystem method allocates a response
 * SharedArrayBuffer, posts `{ __fs__: { sab, type, payload } }` to the page, and blocks in
 * Atomics.wait until the page's main thread has run the method on the one filesystem it owns and
 * written the result into the buffer. One message and one wait per call.
 *
 * Response buffer (Int32 words, then bytes), as in @napi-rs/wasm-runtime:
 *   word 0  status: 21 waiting, 0 success, 1 error (the payload is the thrown value)
 *   word 1  payload type: 0 undefined, 3 number, 6 JSON, 10 bytes
 *   word 2  payload size in bytes (at most RESPONSE_PAYLOAD_SIZE)
 *   bytes 16..  payload
 *
 * Thread rules: `createFsProxy` runs on workers only (it blocks); `createOnMessage` runs on the
 * page's main thread only (it never blocks).
 */

const RESPONSE_HEADER_SIZE = 16;
const RESPONSE_PAYLOAD_SIZE = 10240;
const WAITING = 21;
const T_UNDEFINED = 0;
const T_NUMBER = 3;
const T_JSON = 6;
const T_BYTES = 10;

function encode(value) {
  if (value === undefined) return [T_UNDEFINED, new Uint8Array(0)];
  if (typeof value === 'number') return [T_NUMBER, new Uint8Array(new Float64Array([value]).buffer)];
  if (value instanceof Uint8Array) return [T_BYTES, value];
  return [T_JSON, new TextEncoder().encode(JSON.stringify(value))];
}

function decode(type, bytes) {
  if (type === T_UNDEFINED) return undefined;
  if (type === T_NUMBER) return new Float64Array(bytes.slice().buffer)[0];
  if (type === T_BYTES) return bytes.slice();
  return JSON.parse(new TextDecoder().decode(bytes.slice()));
}

/** The page's side: a handler for worker messages that serves `__fs__` requests on `fs`. Returns false for other messages. */
export function createOnMessage(fs) {
  return function onMessage(data) {
    const request = data?.__fs__;
    if (!request) return false;
    const { sab, type, payload } = request;
    let status = 0;
    let value;
    try {
      value = fs[type](...payload);
    } catch (e) {
      status = 1;
      value = typeof e?.errno === 'number' ? { errno: e.errno } : { message: String(e?.message ?? e) };
    }
    let [t, bytes] = encode(value);
    if (bytes.length > RESPONSE_PAYLOAD_SIZE) {
      status = 1;
      [t, bytes] = encode({ message: 'payload overflow' });
    }
    new Uint8Array(sab.buffer, RESPONSE_HEADER_SIZE, bytes.length).set(bytes);
    Atomics.store(sab, 1, t);
    Atomics.store(sab, 2, bytes.length);
    Atomics.store(sab, 0, status);
    Atomics.notify(sab, 0);
    return true;
  };
}

/** A worker's side: an object whose every method call is run by the page (see the module note). */
export function createFsProxy(post = (message) => globalThis.postMessage(message)) {
  return new Proxy({}, {
    get(_target, type) {
      return (...payload) => {
        const sab = new Int32Array(new SharedArrayBuffer(RESPONSE_HEADER_SIZE + RESPONSE_PAYLOAD_SIZE));
        Atomics.store(sab, 0, WAITING);
        post({ __fs__: { sab, type, payload } });
        Atomics.wait(sab, 0, WAITING);
        const status = Atomics.load(sab, 0);
        const value = decode(Atomics.load(sab, 1), new Uint8Array(sab.buffer, RESPONSE_HEADER_SIZE, Atomics.load(sab, 2)));
        if (status !== 0) throw value;
        return value;
      };
    },
  });
}
