// The JavaScript heap limit of Node pool workers (runtime/src/platform/node/index.ts
// `workerHeapLimitMib`): capped below 2 GiB to save each worker V8's private copy of the builtins,
// but not for a worker whose shared memory is near half the cap as it starts: Node 26's V8 then
// runs a full, memory-reducing collection ("external memory pressure") as the worker receives it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { runtimeDir } from './helpers.mjs';
import { command } from './fixtures/wasm-command.mjs';

const { countsReceivedMemory, workerHeapLimitMib, WORKER_HEAP_CAP_MIB } = await import(join(runtimeDir, 'dist', 'platform', 'node', 'index.js'));

const MIB = 2 ** 20;
const PAGE = 65536;
const scratch = mkdtempSync(join(tmpdir(), 'spindle-worker-heap-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('workerHeapLimitMib', () => {
  const HALF = (2047 / 2) * MIB;
  const MARGIN = 64 * MIB;
  test('caps a worker whose memory is small as it starts, or that has no shared memory', () => {
    assert.equal(WORKER_HEAP_CAP_MIB, 2047);
    assert.equal(workerHeapLimitMib(4096, 0), 2047, 'no shared memory');
    assert.equal(workerHeapLimitMib(4096, 2 * PAGE), 2047, 'a C guest at start (its maximum, 1 GiB, does not matter)');
    assert.equal(workerHeapLimitMib(4096, HALF - MARGIN), 2047, 'room left for the margin');
  });

  test("leaves the main thread's limit to a worker whose memory is near half the cap or above, or not known", () => {
    assert.equal(workerHeapLimitMib(4096, HALF - MARGIN + PAGE), undefined);
    assert.equal(workerHeapLimitMib(4096, 16384 * PAGE), undefined, "a napi-rs loader's 1 GiB");
    assert.equal(workerHeapLimitMib(4096, 65536 * PAGE), undefined);
    assert.equal(workerHeapLimitMib(4096, Infinity), undefined, 'a spare: its program is not known yet');
  });

  test('never caps below a main thread limit that is already under 2 GiB (the worker inherits it)', () => {
    assert.equal(workerHeapLimitMib(1024, 0), undefined);
    assert.equal(workerHeapLimitMib(2047, 16 * PAGE), undefined);
  });
});

test('only V8 14 and later (Node 26) count a received memory; Node 20-24 keep the cap whatever the memory', () => {
  assert.equal(countsReceivedMemory('14.6.202.33-node.22'), true);
  assert.equal(countsReceivedMemory('15.0.1'), true);
  assert.equal(countsReceivedMemory('13.6.233.17-node.37'), false);
  assert.equal(countsReceivedMemory('12.4.254.21-node.33'), false);
  assert.equal(countsReceivedMemory('11.3.244.8-node.38'), false);
});

describe('a program whose shared memory is above 1 GiB', () => {
  // 16,400 pages: 1025 MiB, above half the cap (1023.5 MiB). Before the fix, on Node 26 every
  // pool worker traced "Mark-Compact (reduce) ... external memory pressure" as it booted; Node
  // 20-24's V8 does not count the received memory there, so this passes on them either way.
  test('its pool workers boot without a memory-reducing collection', () => {
    const wasm = join(scratch, 'big-memory.wasm');
    writeFileSync(wasm, command({ threads: true, padBytes: 0, pages: 16400 }));
    const script = `import { run } from ${JSON.stringify(pathToFileURL(join(runtimeDir, 'dist', 'index.js')).href)};
      process.exitCode = await run({ name: 'big-memory.wasm', bytes: (await import('node:fs')).readFileSync(${JSON.stringify(wasm)}) });`;
    const r = spawnSync(process.execPath, ['--trace-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const pressure = r.stdout.split('\n').filter((l) => l.includes('external memory pressure'));
    assert.deepEqual(pressure, [], 'a full collection forced by the received memory');
  });
});
