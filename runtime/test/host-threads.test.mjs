// Threads beyond the pool on host workers (hostThreads, default true where Node has JSPI;
// runtime/src/host-worker.ts, docs/threads-beyond-the-pool.md): many threads per worker, each
// suspended (JSPI) while it waits. Outcomes only, never timings. The hosting tests need JSPI
// for workers (Node 22+) and skip elsewhere; on a Node without it nothing changes.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createProgram, load } from '../dist/index.js';
import { guardThreads } from '../dist/thread-guards.js';
import { loadProgram } from '../dist/load.js';
import { isWasiImport } from '../dist/known-imports.js';
import { ARMED_EXPORT, preemptible, YIELD_EXPORT } from '../dist/preempt.js';
import { cliPath, exitGuard, guest, RUN_TIMEOUT_MS } from './helpers.mjs';

exitGuard(after);
const c = (name) => guest('c', name);
// JSPI for the host workers: the engine's own (Node 24+), or the earlier form that Node 22's V8
// (12.4) gives workers started after spindle sets --experimental-wasm-jspi (jspi.ts). Node 20's
// V8 (11.3) has it only behind a flag that crashes a running process
// (docs/known-issues/node20-stack-switching-flag.md): threads are hosted there only when Node
// was started with --experimental-wasm-stack-switching (then this test runs them too).
const JSPI = (typeof WebAssembly.Suspending === 'function' && typeof WebAssembly.promising === 'function')
  || typeof WebAssembly.Suspender === 'function' || process.versions.v8.startsWith('12.4.');
const skip = JSPI ? false : `no JSPI for workers in Node ${process.version} (docs/known-issues/node20-stack-switching-flag.md): threads are never hosted here`;

/** Runs a guest through createProgram; the pool's counters tell whether threads were hosted. */
async function runWithStats(wasm, args, options = {}, timeoutMs = RUN_TIMEOUT_MS) {
  const out = [];
  const program = createProgram(typeof wasm === 'string' ? await load(wasm) : wasm, {
    args, stdin: '', ...options, stdout: (b) => out.push(Buffer.from(b)), stderr: (b) => out.push(Buffer.from(b)),
  });
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => { program.kill(); reject(new Error(`run did not finish within ${timeoutMs} ms`)); }, timeoutMs); });
  try {
    const code = await Promise.race([program.start(), timeout]);
    return { code, output: Buffer.concat(out).toString(), stats: program.poolStats() };
  } finally {
    clearTimeout(timer);
  }
}

describe('host threads: many threads per worker (JSPI)', { skip }, () => {
  test('512 threads alive at once, all blocked, then joined: beyond the pool they share one host worker', async () => {
    const r = await runWithStats(c('blocked'), ['512'], { hostThreads: true, threads: 4 });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /^blocked threads=512 joined=512 /);
    // The main worker, the 4 of the pool and one host worker per core: not one worker per thread.
    assert.equal(r.stats.started, 5 + availableParallelism(), JSON.stringify(r.stats));
  });

  test('a 100-deep chain of threads, each starting the next and joining it, completes', async () => {
    const r = await runWithStats(c('chain'), ['100'], { hostThreads: true, threads: 4 });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /^chain depth=100 reached=100 /);
    assert.equal(r.stats.started, 5 + availableParallelism(), JSON.stringify(r.stats));
  });

  test('co-hosted threads that wait for each other by spinning on plain atomics all finish (preemption)', async () => {
    // threads: 0: every spawned thread is hosted; one host worker per core, one player more than
    // that, so two players share a host worker. Without the loop budget (preempt.ts) the one that
    // spins there never lets the other take its turn, and the ring stops.
    const hosts = availableParallelism(), players = hosts + 1;
    const r = await runWithStats(c('spin_flag'), ['8', String(players)], { hostThreads: true, threads: 0 }, 60_000);
    assert.equal(r.code, 0, r.output);
    assert.equal(r.output, `spin_flag players=${players} rounds=8 turns=${8 * players}\n`);
    assert.equal(r.stats.started, 1 + hosts, JSON.stringify(r.stats)); // the main worker and the host workers
  });

  test('co-hosted threads that wait for each other by spinning through a cycle of tail calls all finish (preemption)', async (t) => {
    // spin_flag's ring, but each wait bounces between two functions that return_call each other:
    // no loop to count. Without a budget on tail calls (preempt.ts) the ring stops as above.
    const wasm = readFileSync(c('spin_tail'));
    if (!WebAssembly.validate(wasm)) {
      t.skip(`Node ${process.version} (V8 ${process.versions.v8}) refuses wasm tail calls (return_call): spin_tail cannot run here`);
      return;
    }
    const hosts = availableParallelism(), players = hosts + 1;
    const r = await runWithStats(c('spin_tail'), ['8', String(players)], { hostThreads: true, threads: 0 }, 60_000);
    assert.equal(r.code, 0, r.output);
    assert.equal(r.output, `spin_tail players=${players} rounds=8 turns=${8 * players}\n`);
    assert.equal(r.stats.started, 1 + hosts, JSON.stringify(r.stats)); // the main worker and the host workers
  });

  test('exit() in a hosted thread ends the program with its status, a co-hosted thread asleep', async () => {
    const r = await runWithStats(c('exit_in_thread'), ['9'], { hostThreads: true, threads: 0 });
    assert.equal(r.code, 9, r.output);
    assert.match(r.output, /thread calling exit\(9\)/);
  });

  test('a thread waiting for stdin suspends: co-hosted threads doing file I/O, sched_yield and sleeps finish meanwhile', async () => {
    // The input is given only once the other 7 threads have said "done": a read that blocked the
    // host worker would stop them, and the run would never end.
    const dir = mkdtempSync(join(tmpdir(), 'spindle-hosted-io-'));
    try {
      const r = await new Promise((resolve) => {
        const child = spawn(process.execPath, [cliPath, '--host-threads', '--threads', '0', '--dir', `${dir}::/out`, c('hosted_io'), '8'],
          { stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '', err = '', fed = false;
        child.stdout.on('data', (b) => {
          out += b;
          if (!fed && (out.match(/^done \d+$/gm) ?? []).length === 7) { fed = true; child.stdin.end('input after the others'); }
        });
        child.stderr.on('data', (b) => { err += b; });
        child.stdin.on('error', () => {});
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.on('close', (status) => { clearTimeout(timer); resolve({ status, out, err, fed }); });
      });
      assert.ok(r.fed, `the other threads did not finish while thread 0 waited for input: ${JSON.stringify(r)}`);
      assert.equal(r.status, 0, JSON.stringify(r));
      assert.match(r.out, /^hosted_io threads=8 ok=8 log_lines=8 stdin_bytes=22$/m);
      assert.equal(readFileSync(join(dir, 't5.txt'), 'utf8'), 'thread 5 was here\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the preemptible compile counts loops down and exports its hook', async () => {
    const guarded = guardThreads(readFileSync(c('spin_flag'))).bytes;
    const r = preemptible(guarded);
    assert.equal(r.unchanged, undefined);
    assert.ok(r.loops > 0);
    const exports = WebAssembly.Module.exports(new WebAssembly.Module(r.bytes)).map((e) => e.name);
    assert.ok(exports.includes(YIELD_EXPORT) && exports.includes(ARMED_EXPORT), exports.join(', '));
  });
});

describe('host threads: default behaviour', () => {
  test('by default, where Node has JSPI, threads beyond the pool share the host workers', { skip }, async () => {
    const r = await runWithStats(c('blocked'), ['16'], { threads: 2 });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /^blocked threads=16 joined=16 /);
    assert.equal(r.stats.started, 3 + availableParallelism(), JSON.stringify(r.stats));
  });

  test('with hostThreads: false, every thread beyond the pool gets a worker of its own', async () => {
    const r = await runWithStats(c('blocked'), ['16'], { threads: 2, hostThreads: false });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /^blocked threads=16 joined=16 /);
    assert.ok(r.stats.started >= 17, JSON.stringify(r.stats));
  });

  test('maxThreads counts hosted threads too: past it pthread_create fails with EAGAIN', { skip }, async () => {
    // eagain.c: 4 threads with maxThreads 4, a fifth fails; the pool (threads: 2) holds only 2 of them.
    const r = await runWithStats(c('eagain'), [], { threads: 2, maxThreads: 4 });
    assert.equal(r.code, 0, r.output);
    assert.equal(r.output, 'pthread_create failed: EAGAIN\ncreated 4 threads, joined all\ncreate after join: ok\n');
    assert.ok(r.stats.started > 3, `no thread was hosted: ${JSON.stringify(r.stats)}`);
  });

  test('a program whose waits may not all go through the wrapper keeps a worker per thread', { skip }, async () => {
    // The thread guards leave a module unchanged when they cannot walk one of its bodies: its
    // waits stay raw instructions, and a raw wait in a hosted thread would block its whole host
    // worker (here the first hosted thread would block it, the others would never start, and
    // main would wait for them forever).
    const bytes = new Uint8Array(readFileSync(c('blocked')));
    const notWalked = (b) => ({ bytes: b, bulk: 0, waits: 0, atomics: 0, elided: 0, functions: 0, unchanged: 'a function body could not be walked: (test)' });
    const program = await loadProgram({ bytes, name: 'blocked.wasm' }, isWasiImport, undefined, 'command', notWalked);
    assert.equal(program.threadBytes, undefined);
    const r = await runWithStats(program, ['16'], { threads: 2, hostThreads: true });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /^blocked threads=16 joined=16 /);
    assert.ok(r.stats.started >= 17, JSON.stringify(r.stats));
  });

  test('spindle changes V8\'s flags only where it must, and only once a thread is hosted', async () => {
    // A fresh process each: V8's cached-data tag covers its flags, so it changes when a flag is set.
    // Only Node 22's V8 (12.4) needs one (jspi.ts workerJspiFlag); never with hostThreads: false,
    // never for a program that stays within the pool.
    const flagChanged = (threads, hostThreads) => {
      const script = `import { cachedDataVersionTag } from 'node:v8';
        import { createProgram, load } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
        const tag = cachedDataVersionTag();
        const p = createProgram(await load(${JSON.stringify(c('blocked'))}), { args: ['8'], stdin: '', stdout: () => {}, threads: ${threads}, hostThreads: ${hostThreads} });
        const code = await p.start();
        console.log(JSON.stringify({ code, changed: cachedDataVersionTag() !== tag }));`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.code, 0);
      return out.changed;
    };
    const needsFlag = process.versions.v8.startsWith('12.4.');
    assert.equal(flagChanged(2, true), needsFlag, 'hosted threads');
    assert.equal(flagChanged(2, false), false, 'hostThreads: false');
    assert.equal(flagChanged(16, true), false, 'every thread within the pool');
  });

  test('Node 20 started with --experimental-wasm-stack-switching (as the CLI restarts threaded programs there) hosts threads beyond the pool',
    { skip: process.versions.v8.startsWith('11.3.') ? false : `only Node 20's V8 (11.3) needs the flag at start; this is ${process.version}` }, () => {
      // compile-policy.test.mjs checks that the CLI adds the flag; this, that a process started with it hosts.
      const script = `import { createProgram, load } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
        const out = [];
        const p = createProgram(await load(${JSON.stringify(c('blocked'))}), { args: ['16'], stdin: '', stdout: (b) => out.push(Buffer.from(b)), threads: 2 });
        const code = await p.start();
        console.log(JSON.stringify({ code, output: Buffer.concat(out).toString(), stats: p.poolStats() }));`;
      const r = spawnSync(process.execPath, ['--experimental-wasm-stack-switching', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.code, 0, out.output);
      assert.match(out.output, /^blocked threads=16 joined=16 /);
      assert.equal(out.stats.started, 3 + availableParallelism(), `threads beyond the pool were not hosted: ${JSON.stringify(out.stats)}`);
    });

  test('on a Node without JSPI the option changes nothing', { skip: JSPI ? `this Node (${process.version}) has JSPI` : false }, async () => {
    const r = await runWithStats(c('blocked'), ['16'], { threads: 2, hostThreads: true });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /^blocked threads=16 joined=16 /);
    assert.ok(r.stats.started >= 17, JSON.stringify(r.stats));
  });
});
