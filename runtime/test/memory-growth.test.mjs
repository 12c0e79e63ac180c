// Memory growth seen by other threads (issue 15, item 3): one thread mallocs fresh 256 KiB blocks
// (the heap grows), another memsets and memcpys each (tests/guests/c/grow_consumer.c), with
// wasi-libc's dlmalloc and with spindle-alloc, in V8's both tiers (the CLI's default, and
// --no-optimize). On V8 the consumer's bulk operations trapped ("memory access out of bounds"):
// V8 refreshes another thread's view of a shared memory's size lazily.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { guest, runCliAsync } from './helpers.mjs';

const RUNS = 3;
const EXPECTED = 'grow_consumer blocks=256 bytes=67108864 checksum=d29cfc347d15aa25\n';
// Known issue until the runtime refreshes the consumer's view (the growth guard): the test runs
// and reports, without failing the suite.
const KNOWN_ISSUE = 'V8 traps bulk memory operations on memory another thread grew (README, known issue)';

const programs = [['dlmalloc', guest('c', 'grow_consumer')], ['spindle-alloc', guest('c', 'grow_consumer_spindle_alloc')]];
const tiers = [['default tier', []], ['--no-optimize', ['--no-optimize']]];

describe('producer/consumer of fresh heap memory never traps', () => {
  for (const [alloc, wasm] of programs) {
    for (const [tier, flags] of tiers) {
      test(`${alloc}, ${tier}: ${RUNS} runs in a row exit 0 with the checksum`, { todo: KNOWN_ISSUE }, async () => {
        for (let i = 0; i < RUNS; i++) {
          const r = await runCliAsync(['run', ...flags, wasm]);
          assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status: 0, stdout: EXPECTED, stderr: '' }, `run ${i + 1}`);
        }
      });
    }
  }
});
