// Wasm exception handling (issue 15: "yosys-like programs run on Node 24+ in the default mode"):
// a threaded WASI command (it imports thread-spawn, so the CLI restarts Node with --no-liftoff and
// the thread guards rewrite it) that throws and catches a wasm exception, in both encodings:
// legacy (try/catch/throw: what clang's -fwasm-exceptions emits by default) and exnref
// (try_table/throw). Built by hand (fixtures/wasm-builder.mjs): this machine's clang has no
// libc++abi/libunwind for wasm. A line whose V8 lacks an encoding must refuse the module with one
// line and status 1, never run it silently.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ModuleBuilder, op } from './fixtures/wasm-builder.mjs';
import { assertOneLineError, runCli } from './helpers.mjs';

const P1 = 'wasi_snapshot_preview1';
const V8_MAJOR = Number(process.versions.v8.split('.')[0]);

/** `_start`: throws 42 and catches it (`tryCatch` gives the encoding), then prints the outcome. */
function ehProgram(tryCatch) {
  const m = new ModuleBuilder();
  const fdWrite = m.importFunc(P1, 'fd_write', ['i32', 'i32', 'i32', 'i32'], ['i32']);
  m.importFunc('wasi', 'thread-spawn', ['i32'], ['i32']);
  m.importMemory('env', 'memory', { initial: 1, maximum: 2, shared: true });
  const tag = m.tag(['i32']);
  const caught = 'caught 42\n', missed = 'exception lost\n';
  m.data(64, caught).data(128, missed);
  m.data(0, new Uint8Array(new Uint32Array([64, caught.length, 128, missed.length]).buffer)); // two iovecs
  const start = m.func([], [], [
    ...tryCatch(tag), // leaves the caught i32 on the stack
    ...op.i32(42), 0x46, // i32.eq
    0x04, 0x7f, ...op.i32(0), 0x05, ...op.i32(8), 0x0b, // if (result i32): iovec 0 else iovec 8
    0x21, 0, // local.set 0
    ...op.i32(0), ...op.i32(0), 0x6a, 0x1a, // a no-op pair, keeps the body realistic
    // memory.fill before the write: a site the growth guard rewrites in an EH module
    ...op.i32(200), ...op.i32(0), ...op.i32(16), 0xfc, 0x0b, 0x00,
    ...op.i32(1), ...op.localGet(0), ...op.i32(1), ...op.i32(32), ...op.call(fdWrite), ...op.drop(),
  ], ['i32']);
  m.exportFunc('_start', start);
  m.exportFunc('wasi_thread_start', m.func(['i32', 'i32'], [], []));
  return m.build();
}

const ENCODINGS = {
  // block (result i32) (try_table (catch tag 0) (throw tag 42)) i32.const 0 end
  exnref: (tag) => [0x02, 0x7f, 0x1f, 0x40, 0x01, 0x00, tag, 0x00, ...op.i32(42), 0x08, tag, 0x0b, ...op.i32(0), 0x0b],
  // try (result i32) (throw tag 42) catch tag end
  legacy: (tag) => [0x06, 0x7f, ...op.i32(42), 0x08, tag, 0x07, tag, 0x0b],
};

const dir = mkdtempSync(join(tmpdir(), 'spindle-eh-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe(`wasm exception handling on Node ${process.versions.node} (V8 ${process.versions.v8})`, () => {
  for (const [encoding, tryCatch] of Object.entries(ENCODINGS)) {
    const bytes = ehProgram(tryCatch);
    const file = join(dir, `eh-${encoding}.wasm`);
    writeFileSync(file, bytes);
    const supported = WebAssembly.validate(bytes);
    test(`${encoding}: ${supported ? 'the program catches its exception, in the default mode and with --no-optimize' : 'refused with one line (this V8 lacks it)'}`, () => {
      if (encoding === 'legacy' || V8_MAJOR >= 13) assert.ok(supported, `V8 ${process.versions.v8} should validate ${encoding} exception handling`);
      for (const flags of [[], ['--no-optimize']]) {
        const r = runCli(['run', ...flags, file]);
        if (supported) {
          assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 0, stdout: 'caught 42\n', stderr: '' }, flags.join(' '));
        } else {
          assert.equal(r.status, 1, r.stderr);
          assertOneLineError(r.stderr, /^spindle: error: eh-exnref\.wasm does not compile/);
        }
      }
    });
  }
});
