// A napi module made for one test (tests/napi/web main.js, job `first`): the smallest module
// emnapi and spindle/napi load (malloc, free, emnapi_create_env/delete_env, napi_register_wasm_v1,
// wasi_thread_start, a table; env.memory shared; wasi.thread-spawn, so spindle starts its pool),
// whose start function initializes the shared memory the way wasm-ld's __wasm_init_memory does
// for every wasm32-wasip1-threads program: the first instance to claim INIT_FLAG (0 -> 1)
// initializes, then stores 2 and wakes the others; an instance that finds 1 waits in
// memory.atomic.wait32 until it is 2; one that finds 2 goes on. Its initializing takes a while
// (a loop of 2^27 iterations, ~0.1-0.5 s), where wasm-ld's copies the data segments: so that an
// instance that comes second while it runs must wait.
export const INIT_FLAG = 16;

/** The module's bytes. */
export function ownerFirstModule() {
  const u32 = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const i32 = (n) => { const out = []; for (;;) { const b = n & 0x7f; n >>= 7; if ((n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40))) { out.push(b); return out; } out.push(b | 0x80); } };
  const str = (s) => [...u32(s.length), ...new TextEncoder().encode(s)];
  const vec = (items) => [...u32(items.length), ...items.flat()];
  const section = (id, body) => [id, ...u32(body.length), ...body];
  const I32 = 0x7f;
  const I64 = 0x7e;
  const func = (params, results) => [0x60, ...vec(params.map((p) => [p])), ...vec(results.map((r) => [r]))];
  const types = [func([], []), func([I32], [I32]), func([I32], []), func([], [I32]), func([I32, I32], []), func([I32, I32], [I32])];
  const HEAP = 32; // bump allocator's next offset (from 4096)
  const body = (locals, code) => { const b = [...vec(locals), ...code, 0x0b]; return [...u32(b.length), ...b]; };
  const atomic = (op, align = 2, offset = 0) => [0xfe, ...u32(op), ...u32(align), ...u32(offset)];
  const start = body([[1, I32]], [
    0x02, 0x40, // block $done
    0x02, 0x40, // block $wait
    0x02, 0x40, // block $init
    0x41, ...i32(INIT_FLAG), 0x41, 0, 0x41, 1, ...atomic(0x48), // i32.atomic.rmw.cmpxchg: the old value
    0x0e, 2, 0, 1, 2, // br_table $init $wait $done (default: 2 and up)
    0x0b, // end $init: this instance initializes
    0x41, ...i32(1 << 27), 0x21, 0, // local 0 = 2^27
    0x03, 0x40, 0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, 0x0b, // loop: local0 -= 1; br_if while != 0
    0x41, ...i32(INIT_FLAG), 0x41, 2, ...atomic(0x17), // i32.atomic.store 2
    0x41, ...i32(INIT_FLAG), 0x41, ...i32(-1), ...atomic(0x00), 0x1a, // memory.atomic.notify all; drop
    0x0c, 1, // br $done
    0x0b, // end $wait: another instance initializes
    0x41, ...i32(INIT_FLAG), 0x41, 1, 0x42, ...i32(-1), ...atomic(0x01), 0x1a, // memory.atomic.wait32 (flag, 1, no timeout); drop
    0x0b, // end $done
  ]);
  const malloc = body([], [0x41, ...i32(HEAP), 0x20, 0, 0x41, 15, 0x6a, 0x41, ...i32(-16), 0x71, ...atomic(0x1e), 0x41, ...i32(4096), 0x6a]); // 4096 + fetch_add(HEAP, (size + 15) & -16)
  const nop = body([], []);
  const createEnv = body([], [0x41, ...i32(64), 0x10, 2]); // malloc(64)
  const register = body([], [0x41, 0]); // NULL: the exports object stays as it is
  const funcs = [[0, start], [1, malloc], [2, nop], [3, createEnv], [2, nop], [4, nop], [5, register]]; // indices 1..7 (0: thread-spawn)
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, vec([
      [...str('env'), ...str('memory'), 0x02, 0x03, ...u32(2), ...u32(16)], // shared, 2..16 pages
      [...str('wasi'), ...str('thread-spawn'), 0x00, ...u32(1)],
    ])),
    ...section(3, vec(funcs.map(([t]) => u32(t)))),
    ...section(4, vec([[0x70, 0x00, ...u32(1)]])),
    ...section(7, vec([
      ['malloc', 0, 2], ['free', 0, 3], ['emnapi_create_env', 0, 4], ['emnapi_delete_env', 0, 5],
      ['wasi_thread_start', 0, 6], ['napi_register_wasm_v1', 0, 7], ['__indirect_function_table', 1, 0],
    ].map(([n, kind, i]) => [...str(n), kind, ...u32(i)]))),
    ...section(8, u32(1)),
    ...section(10, vec(funcs.map(([, b]) => b))),
  ];
  return new Uint8Array(bytes);
}
