// spindle/napi with real napi-rs packages in Node (tests/napi): @oxc-parser/binding-wasm32-wasi
// parses 300+ files (parseSync, then parse() on the addon's threads) and rolldown bundles a
// multi-file project read from a host directory, through both routes (the direct API; the
// packages' own loaders with spindle's drop-in for @napi-rs/wasm-runtime), on Node 20 and 26;
// every output must equal the stock loader's (@napi-rs/wasm-runtime) in the same Node (Node 26
// once when it is the Node running the tests: tools/test.sh runs this file on 26 too). Then the
// stock stack's correctness problems, each shown on the stock stack and fixed on spindle, with a
// Node-API addon of our own (tests/napi/peer/peer.c). Last, the README's Node example, as the
// README runs it.
//
// Needs `bash tests/napi/setup.sh` (tools/test.sh runs it) and `bash tests/napi/peer/build.sh`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { numbered, repoRoot, RUN_TIMEOUT_MS, writeDated } from './helpers.mjs';

const { COMPILE_ENTRIES, COMPILE_FOLDERS } = await import(pathToFileURL(join(repoRoot, 'runtime', 'dist', 'platform', 'node', 'worker-code.js')).href);

const napiDir = join(repoRoot, 'tests', 'napi');
// tools/node-lines.sh installs it there (tests/napi/setup.sh runs it).
const node26 = join(repoRoot, 'build', 'node-lines', '26', 'node_modules', 'node26', 'bin', 'node');
const LINES = process.versions.node.split('.')[0] === '26'
  ? [['Node 26, running the tests', process.execPath]]
  : [['the Node running the tests', process.execPath], ['Node 26', node26]];
const peerWasm = join(repoRoot, 'build', 'napi', 'peer.wasm');
const SETUP = "run 'bash tests/napi/setup.sh' (tools/test.sh does)";

function requireSetup() {
  for (const p of [join(napiDir, 'stock', 'node_modules', 'rolldown'), join(repoRoot, 'runtime', 'examples', 'napi', 'node_modules', 'spindle'), node26]) {
    assert.ok(existsSync(p), `${p} is missing: ${SETUP}`);
  }
}

/** Runs tests/napi/work.mjs ROUTE JOB [ARGS] under `node`; its JSON line. */
function work(node, route, job, args = []) {
  const r = spawnSync(node, [join(napiDir, 'work.mjs'), route, job, ...args], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, cwd: repoRoot });
  assert.equal(r.status, 0, `${route} ${job} failed (status ${r.status}, signal ${r.signal}):\n${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/**
 * Runs `script` (which prints oxc's parse of `let n: number = 1`: "let") twice with the cache
 * directory `cache`: the first run must write exactly one entry into `folder`, the second must use
 * it (no new entry, the entry not rewritten). A rewrite is a new file renamed over the old one
 * (cache-dir.ts writeEntryAtomic), hence another inode; a read may `touch` the entry (its mtime:
 * guard-cache.ts marks what it reads as used), which keeps it.
 */
function assertWrittenOnceThenUsed(box, script, cache, folder) {
  writeFileSync(join(box, 'load.mjs'), script);
  const entries = () => (existsSync(folder) ? readdirSync(folder) : []);
  const load = () => {
    const r = spawnSync(process.execPath, [join(box, 'load.mjs')],
      { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: { ...process.env, SPINDLE_CACHE_DIR: cache } });
    assert.equal(r.status, 0, `loading oxc failed:\n${r.stdout}${r.stderr}`);
    return r.stdout.trim();
  };
  assert.equal(load(), 'let');
  const first = entries();
  assert.equal(first.length, 1, `entries in ${folder} after the first run: ${first.join(', ')}`);
  const written = statSync(join(folder, first[0])).ino;
  assert.equal(load(), 'let');
  assert.deepEqual(entries(), first, 'the second run made another entry');
  assert.equal(statSync(join(folder, first[0])).ino, written, 'the second run rewrote the entry instead of using it');
}

for (const [line, node] of LINES) {
  describe(`napi-rs packages on spindle/napi (${line})`, () => {
    before(requireSetup);

    test('oxc-parser: 300+ files through parseSync and parse(), direct API and drop-in, output equal to the stock loader\'s', () => {
      const stock = work(node, 'stock', 'parse');
      assert.ok(stock.files >= 300, `the corpus has ${stock.files} files`);
      assert.equal(stock.asyncDigest, stock.digest, 'the stock loader itself gives parse() and parseSync() the same output');
      for (const route of ['direct', 'dropin']) {
        const r = work(node, route, 'parse');
        assert.deepEqual({ files: r.files, errors: r.errors, digest: r.digest, asyncDigest: r.asyncDigest },
          { files: stock.files, errors: stock.errors, digest: stock.digest, asyncDigest: stock.digest }, `${route} differs from the stock loader`);
      }
    });

    test('rolldown: a multi-file project from a host directory, direct API and drop-in, output bytes equal to the stock loader\'s', () => {
      const stock = work(node, 'stock', 'bundle');
      assert.ok(stock.files >= 3, `rolldown made ${stock.files} chunks; the project has two dynamic imports`);
      for (const route of ['direct', 'dropin']) {
        const r = work(node, route, 'bundle');
        assert.deepEqual({ files: r.files, bytes: r.bytes, digest: r.digest }, { files: stock.files, bytes: stock.bytes, digest: stock.digest }, `${route} differs from the stock loader`);
      }
    });

    test('rolldown through the drop-in: a project reached through an absolute symlink bundles as on the stock loader (the preopened root follows it)', () => {
      // The generated loaders preopen '/'; rolldown's resolver reads the link and walks its target.
      const box = mkdtempSync(join(tmpdir(), 'spindle-napi-abs-'));
      try {
        cpSync(join(napiDir, 'project'), join(box, 'real'), { recursive: true });
        symlinkSync(join(box, 'real'), join(box, 'link'));
        const args = ['--project', join(box, 'link')];
        const stock = work(node, 'stock', 'bundle', args);
        const r = work(node, 'dropin', 'bundle', args);
        assert.deepEqual({ files: r.files, bytes: r.bytes, digest: r.digest }, { files: stock.files, bytes: stock.bytes, digest: stock.digest });
      } finally {
        rmSync(box, { recursive: true, force: true });
      }
    });
  });
}

describe('napi: what the stock stack gets wrong, right on spindle (tests/napi/peer/peer.c)', () => {
  let box;
  before(() => {
    assert.ok(existsSync(peerWasm), `${peerWasm} is missing: run 'bash tests/napi/peer/build.sh'`);
    requireSetup();
    box = mkdtempSync(join(tmpdir(), 'spindle-napi-peer-'));
    mkdirSync(join(box, 'sandbox'));
    writeFileSync(join(box, 'sandbox', 'data.txt'), 'inside the sandbox');
    writeFileSync(join(box, 'secret.txt'), 'outside the sandbox');
  });
  after(() => rmSync(box, { recursive: true, force: true }));

  /** The process that runs the addon on spindle or on the stock stack (`wasi`: node or wasm-util); `hung` when it did not end. */
  function peerRun(stack, call, arg, timeout = RUN_TIMEOUT_MS) {
    const sandbox = join(box, 'sandbox');
    const args = stack === 'spindle'
      ? [join(napiDir, 'peer-spindle.mjs'), sandbox, call, arg]
      : [join(napiDir, 'peer-stock.cjs'), stack, sandbox, call, arg];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout });
    return { ...r, hung: r.signal === 'SIGTERM' && r.status === null, stdout: r.stdout.trim() };
  }

  /** The addon's answer, or null when the process hangs. */
  function peer(stack, call, arg, timeout) {
    const r = peerRun(stack, call, arg, timeout);
    if (r.hung) return null;
    assert.equal(r.status, 0, `${stack} ${call} failed:\n${r.stdout}${r.stderr}`);
    return r.stdout;
  }

  test('an fd opened on one thread is the same file on another thread (stock: EBADF, one fd table per thread)', () => {
    assert.equal(peer('spindle', 'readOnOtherThread', '/sandbox/data.txt'), 'ok: inside the sandbox');
    assert.equal(peer('node', 'readOnOtherThread', '/sandbox/data.txt'), 'error: Bad file descriptor');
    assert.equal(peer('wasm-util', 'readOnOtherThread', '/sandbox/data.txt'), 'error: Bad file descriptor');
  });

  test('`..` never leaves a preopen (stock @tybys/wasm-util: it reads the host\'s files)', () => {
    const hostname = readFileSync('/etc/hostname', 'utf8').slice(0, 128);
    const escape = '/sandbox/../../../../../../../../etc/hostname';
    assert.equal(peer('wasm-util', 'readPath', escape), `ok: ${hostname}`.trim());
    for (const path of [escape, '/sandbox/../secret.txt']) {
      assert.equal(peer('spindle', 'readPath', path), 'error: open: Operation not permitted', path);
    }
    assert.equal(peer('spindle', 'readPath', '/sandbox/./data.txt'), 'ok: inside the sandbox');
  });

  test('a thread starts a thread while the main thread blocks in pthread_join (stock: deadlock)', () => {
    assert.equal(peer('spindle', 'nestedSpawn', '/sandbox'), 'ok: written by a thread of a thread');
    // The stock stack routes the inner spawn through the main thread, which is blocked: it never ends.
    assert.equal(peer('node', 'nestedSpawn', '/sandbox', 15_000), null, 'the stock stack was expected to hang');
  });

  test('a thread that traps ends the process with the trap, named, also while the main thread waits for it (stock: a hang)', () => {
    const trap = /spindle: thread \d+ trapped: wasm trap: unreachable/;
    // The main thread is free (the process goes on, as a server's would): it ends the process with 134.
    const free = peerRun('spindle', 'trapOnThread', 'detach');
    assert.deepEqual({ status: free.status, stdout: free.stdout }, { status: 134, stdout: 'started' });
    assert.match(free.stderr, trap);
    // The main thread waits for that thread forever inside the addon: the worker ends the process.
    const stuck = peerRun('spindle', 'trapOnThread', 'join');
    assert.deepEqual({ signal: stuck.signal, hung: stuck.hung }, { signal: 'SIGABRT', hung: false });
    assert.match(stuck.stderr, trap);
    // The stock stack: when the main thread is free, the trap becomes an uncaught exception on
    // the main thread (exit 1), or, in some runs (CI, 2026-11-25: after the whole 60 s linger),
    // it is lost and the process exits 0: never 134 with the thread named. A hang when the main
    // thread waits for the thread.
    const stock = peerRun('node', 'trapOnThread', 'detach');
    assert.ok([0, 1].includes(stock.status), `stock stack, free main thread: status ${stock.status}`);
    assert.doesNotMatch(stock.stderr, trap);
    assert.equal(peerRun('node', 'trapOnThread', 'join', 15_000).hung, true, 'the stock stack was expected to hang');
  });
});

// The README's Node example, run as the README says (`npm run parse|bundle|direct` in
// runtime/examples/napi, installed by tests/napi/setup.sh): the drop-in through npm overrides, and
// the direct API with one host directory.
describe('the Node example of the README (runtime/examples/napi)', () => {
  const example = join(repoRoot, 'runtime', 'examples', 'napi');
  const CHUNKS = /^(main|about-[\w-]+|home-[\w-]+|math-[\w-]+|strings-[\w-]+)\.js: \d+ bytes$/;
  before(requireSetup);

  /** `npm run -s SCRIPT` there, on the Node running the tests; its output lines. */
  function npmRun(script) {
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
    const r = spawnSync('npm', ['run', '-s', script], { cwd: example, env, encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
    assert.equal(r.status, 0, `npm run ${script} failed (status ${r.status}, signal ${r.signal}):\n${r.stdout}${r.stderr}`);
    return r.stdout.trim().split('\n');
  }

  /** The 5 chunks of tests/napi/project (main and its 4 dynamic imports), one line each. */
  function assertChunks(lines) {
    assert.equal(lines.length, 5, lines.join('\n'));
    for (const l of lines) assert.match(l, CHUNKS);
    assert.ok(lines.some((l) => l.startsWith('main.js: ')), lines.join('\n'));
  }

  test('npm run parse: oxc-parser\'s own loader on the drop-in, parseSync and parse()', () => {
    assert.deepEqual(npmRun('parse'), ['ExportNamedDeclaration', 'ForOfStatement']);
  });

  test('npm run bundle: rolldown\'s own loader on the drop-in bundles the project', () => {
    assertChunks(npmRun('bundle'));
  });

  test('npm run direct: the direct API (oxc, then rolldown confined to the project directory)', () => {
    const [first, ...chunks] = npmRun('direct');
    assert.equal(first, 'let');
    assertChunks(chunks);
  });
});

// An addon of 1 MiB or more has its thread-guard rewrite kept across runs, as the CLI's programs
// (platform/node/guard-cache.ts): rolldown's 12 MB binding then loads without the rewrite.
describe('spindle/napi in Node: pool workers load a loader\'s emnapi pair only when its version is not spindle\'s own', () => {
  before(requireSetup);

  // The pair a context was made by runs on the calling thread, on spindle's own core when its
  // version is spindle's (the same code); pool workers run the same version's code: spindle's
  // bundled copy when the versions are the same (no URLs), else the loader's files, required by
  // URL. Both through oxc's parse(), whose work runs on the pool's threads.
  test('the stock pair (same version): no URLs; a copy of it with another version: its URLs; parse() on the pool equals parseSync() with either', () => {
    const box = mkdtempSync(join(tmpdir(), 'spindle-napi-pair-'));
    try {
      const stockModules = join(napiDir, 'stock', 'node_modules');
      const other = join(box, 'node_modules');
      for (const pkg of ['@emnapi/core', '@emnapi/runtime', '@emnapi/wasi-threads', 'tslib']) cpSync(join(stockModules, pkg), join(other, pkg), { recursive: true });
      for (const pkg of ['@emnapi/core', '@emnapi/runtime']) {
        const file = join(other, pkg, 'package.json');
        writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), version: '2.0.0-spindle-test' }));
      }
      const dist = join(repoRoot, 'runtime', 'dist', 'napi');
      const wasm = join(stockModules, '@oxc-parser', 'binding-wasm32-wasi', 'parser.wasm32-wasi.wasm');
      const script = `import { createRequire } from 'node:module';
        import { emnapiOfContext } from ${JSON.stringify(join(dist, 'node.js'))};
        import { ownEmnapi } from ${JSON.stringify(join(dist, 'emnapi.js'))};
        import { loadNapiSync, disposeNapi } from ${JSON.stringify(join(dist, 'index.js'))};
        const out = {};
        for (const [name, dir] of [['same', ${JSON.stringify(stockModules)}], ['other', ${JSON.stringify(other)}]]) {
          const runtime = createRequire(dir + '/x.js')('@emnapi/runtime');
          const pair = emnapiOfContext(runtime.createContext());
          const oxc = loadNapiSync(${JSON.stringify(wasm)}, { context: runtime.createContext() });
          const files = Array.from({ length: 16 }, (_, i) => ['f' + i + '.ts', 'export const v' + i + ': number = ' + i + ' * 2;']);
          const sync = files.map(([f, t]) => JSON.stringify(oxc.parseSync(f, t, {}).program));
          const pooled = (await Promise.all(files.map(([f, t]) => oxc.parse(f, t, {})))).map((r) => JSON.stringify(r.program));
          await disposeNapi(oxc);
          out[name] = { own: pair.core === ownEmnapi.core, urls: pair.urls ?? null, equal: sync.every((p, i) => p === pooled[i]) };
        }
        console.log(JSON.stringify(out));`;
      writeFileSync(join(box, 'pair.mjs'), script);
      const r = spawnSync(process.execPath, [join(box, 'pair.mjs')], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
      assert.equal(r.status, 0, `the script failed:\n${r.stdout}${r.stderr}`);
      const { same, other: renamed } = JSON.parse(r.stdout.trim().split('\n').pop());
      assert.equal(same.own, true, 'a pair of spindle\'s own version should run on spindle\'s own core (the same code) with the loader\'s context');
      assert.equal(same.urls, null, 'a pair of spindle\'s own version should leave the workers on spindle\'s bundled copy');
      assert.equal(renamed.own, false);
      assert.ok(renamed.urls && renamed.urls.core.startsWith(pathToFileURL(other).href), `workers should load the other version from its files: ${JSON.stringify(renamed.urls)}`);
      assert.ok(same.equal && renamed.equal, 'parse() on the pool threads should give parseSync()\'s program');
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });
});

describe('spindle/napi in Node keeps the thread-guard rewrite of a large addon across runs', () => {
  before(requireSetup);

  test('the first load of oxc-parser\'s 1.5 MB binding writes one cache entry, the next one uses it', () => {
    const box = mkdtempSync(join(tmpdir(), 'spindle-napi-cache-'));
    const cache = join(box, 'cache');
    try {
      const wasm = join(napiDir, 'stock', 'node_modules', '@oxc-parser', 'binding-wasm32-wasi', 'parser.wasm32-wasi.wasm');
      const script = `import { loadNapiSync } from ${JSON.stringify(join(repoRoot, 'runtime', 'dist', 'napi', 'index.js'))};
        const oxc = loadNapiSync(${JSON.stringify(wasm)});
        console.log(JSON.parse(oxc.parseSync('a.ts', 'let n: number = 1', {}).program).node.body[0].kind);`;
      assertWrittenOnceThenUsed(box, script, cache, join(cache, 'thread-guards'));
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });
});

describe('spindle/napi in Node prewarms as many pool workers as earlier runs of the addon had busy at once (platform/node/pool-demand.ts)', () => {
  before(requireSetup);

  test('oxc-parser: the first run prewarms 2 x cores and records its peak; a run whose record says 1 prewarms 1 and grows for parse(); the next one prewarms the new record', () => {
    const box = mkdtempSync(join(tmpdir(), 'spindle-napi-demand-'));
    const cache = join(box, 'cache');
    try {
      const wasm = join(napiDir, 'stock', 'node_modules', '@oxc-parser', 'binding-wasm32-wasi', 'parser.wasm32-wasi.wasm');
      // parse() runs on oxc's async work pool: four threads at once.
      writeFileSync(join(box, 'demand.mjs'), `import { loadNapiSync, napiPoolStats } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'runtime', 'dist', 'napi', 'index.js')).href)};
        const oxc = loadNapiSync(${JSON.stringify(wasm)});
        const atLoad = napiPoolStats(oxc).started;
        const files = Array.from({ length: 32 }, (_, i) => ['f' + i + '.ts', 'let n' + i + ': number = ' + i]);
        const names = (await Promise.all(files.map(([f, t]) => oxc.parse(f, t, {})))).map((r) => JSON.parse(r.program).node.body[0].declarations[0].id.name);
        const s = napiPoolStats(oxc);
        console.log(JSON.stringify({ atLoad, grown: s.grown, peak: s.peakBusy, right: names.every((n, i) => n === 'n' + i) }));`);
      const run = () => {
        const r = spawnSync(process.execPath, [join(box, 'demand.mjs')], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: { ...process.env, SPINDLE_CACHE_DIR: cache } });
        assert.equal(r.status, 0, `the script failed:\n${r.stdout}${r.stderr}`);
        const out = JSON.parse(r.stdout.trim().split('\n').pop());
        assert.equal(out.right, true, 'parse() should give each file\'s own program');
        return out;
      };
      const folder = join(cache, 'pool-demand');
      const record = () => {
        const entries = readdirSync(folder);
        assert.equal(entries.length, 1, `records: ${entries.join(', ')}`);
        return { file: join(folder, entries[0]), count: readFileSync(join(folder, entries[0]), 'latin1') };
      };
      const cores = availableParallelism();
      const first = run();
      assert.equal(first.atLoad, 2 * cores, 'without a record the pool prewarms 2 x cores');
      assert.ok(first.peak >= 2, `parse() should keep several workers busy at once: peak ${first.peak}`);
      assert.equal(record().count, String(first.peak), 'the run records its peak at exit');
      writeFileSync(record().file, '1');
      const second = run();
      assert.equal(second.atLoad, 1, 'a record of 1 prewarms one worker');
      assert.ok(second.grown >= 1 && second.peak >= 2, `parse() should grow the pool past the record: ${JSON.stringify(second)}`);
      assert.equal(record().count, String(second.peak), 'a higher peak raises the record');
      const third = run();
      assert.equal(third.atLoad, Math.min(second.peak, 2 * cores), 'the next run prewarms the record (at most the default)');
      // One process loading the addon again and again: one exit listener for all (one each made
      // Node warn of a leak past ten), and the peak of a disposed program still counts.
      writeFileSync(record().file, '1');
      writeFileSync(join(box, 'many.mjs'), `import { loadNapiSync, disposeNapi } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'runtime', 'dist', 'napi', 'index.js')).href)};
        const peaks = [];
        for (let i = 0; i < 12; i++) {
          const oxc = loadNapiSync(${JSON.stringify(wasm)});
          if (i === 0) await Promise.all([1, 2, 3, 4].map((n) => oxc.parse('a' + n + '.ts', 'let n = ' + n, {})));
          peaks.push((await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'runtime', 'dist', 'napi', 'index.js')).href)})).napiPoolStats(oxc).peakBusy);
          await disposeNapi(oxc);
          if (i === 0) peaks.listeners = process.listenerCount('exit');
        }
        console.log(JSON.stringify({ first: peaks[0], afterOne: peaks.listeners, afterAll: process.listenerCount('exit') }));`);
      const r = spawnSync(process.execPath, [join(box, 'many.mjs')], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: { ...process.env, SPINDLE_CACHE_DIR: cache } });
      assert.equal(r.status, 0, `the script failed:\n${r.stdout}${r.stderr}`);
      assert.doesNotMatch(r.stderr, /MaxListenersExceededWarning/);
      const many = JSON.parse(r.stdout.trim().split('\n').pop());
      assert.equal(many.afterAll, many.afterOne, 'exit listeners after 12 loads and after one');
      assert.equal(record().count, String(Math.max(1, many.first)), 'the first (disposed) program\'s peak is recorded');
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });
});

describe('spindle/napi in Node starts the pool\'s first worker when the load begins, before the addon is compiled (napi/node.ts warm)', () => {
  before(requireSetup);

  // Threads of this process, from /proc (Linux): a Node worker is one more.
  test('the worker is running when the loader\'s overwriteImports runs (after the compile), and it is one of the pool, not an extra; a failed load ends it', { skip: process.platform !== 'linux' && 'reads /proc/self/task' }, () => {
    const wasm = join(napiDir, 'stock', 'node_modules', '@oxc-parser', 'binding-wasm32-wasi', 'parser.wasm32-wasi.wasm');
    const script = `import { instantiateNapiModuleSync, getDefaultContext, napiPoolStats, registerNapiRs } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'runtime', 'dist', 'napi', 'index.js')).href)};
      import { readdirSync, readFileSync } from 'node:fs';
      const threads = () => readdirSync('/proc/self/task').length;
      const bytes = readFileSync(${JSON.stringify(wasm)});
      const load = (fail) => {
        let atImports;
        const source = instantiateNapiModuleSync(bytes, { context: getDefaultContext(), beforeInit: registerNapiRs, overwriteImports(io) {
          atImports = threads();
          if (fail) throw new Error('refused');
          return io;
        } });
        return { atImports, exports: source.napiModule.exports };
      };
      const start = threads();
      let failed = '';
      try { load(true); } catch (e) { failed = e.message; }
      const deadline = Date.now() + 10000;
      while (threads() > start && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const afterFailure = threads();
      const before = threads();
      const { atImports, exports } = load(false);
      const started = napiPoolStats(exports).started;
      const after = threads();
      const name = JSON.parse(exports.parseSync('a.ts', 'let n: number = 1', {}).program).node.body[0].declarations[0].id.name;
      console.log(JSON.stringify({ failed, leftAfterFailure: afterFailure - start, aheadOfPool: atImports - before, started, poolThreads: after - before, name }));`;
    const box = mkdtempSync(join(tmpdir(), 'spindle-napi-spare-'));
    try {
      writeFileSync(join(box, 'spare.mjs'), script);
      for (const [line, node] of LINES) {
        const r = spawnSync(node, [join(box, 'spare.mjs')], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: { ...process.env, SPINDLE_CACHE_DIR: 'none' } });
        assert.equal(r.status, 0, `the script failed on ${line}:\n${r.stdout}${r.stderr}`);
        const out = JSON.parse(r.stdout.trim().split('\n').pop());
        assert.equal(out.failed, 'refused', `${line}: the loader's overwriteImports threw`);
        assert.equal(out.leftAfterFailure, 0, `${line}: a failed load left workers running`);
        assert.equal(out.aheadOfPool, 1, `${line}: threads started before the program (one pool worker is expected to boot during the compile)`);
        assert.equal(out.poolThreads, out.started, `${line}: threads added by the load vs pool workers started (the early one must be one of them)`);
        assert.equal(out.name, 'n', `${line}: the addon works`);
      }
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });
});

describe('spindle/napi in Node is one CommonJS file, for import and require alike', () => {
  before(() => assert.ok(existsSync(peerWasm), `${peerWasm} is missing: run 'bash tests/napi/peer/build.sh'`));

  // `import` of spindle/napi (its ES module shim), `require` of it (package.json "require") and a
  // memfs() of spindle/napi/fs (an ES module) must meet: one copy of the host, and the registries
  // of memfs() volumes and of loaded addons shared with the ES modules' copy.
  test('import and require give the same functions; memfs() of spindle/napi/fs and disposeNapi work across them', () => {
    const runtime = join(repoRoot, 'runtime');
    const script = `import { createRequire } from 'node:module';
      import * as esm from ${JSON.stringify(pathToFileURL(join(runtime, 'dist', 'napi', 'index.js')).href)};
      import { memfs } from ${JSON.stringify(pathToFileURL(join(runtime, 'dist', 'napi', 'fs.js')).href)};
      const require = createRequire(${JSON.stringify(join(runtime, 'package.json'))});
      const cjs = require('spindle/napi');
      const { fs } = memfs({ '/data/a.txt': 'from memfs' });
      const peer = cjs.loadNapiSync(${JSON.stringify(peerWasm)}, { memfs: fs });
      const read = [peer.readPath('/data/a.txt'), peer.readOnOtherThread('/data/a.txt')];
      await esm.disposeNapi(peer);
      console.log(JSON.stringify({ resolved: require.resolve('spindle/napi'), same: esm.loadNapiSync === cjs.loadNapiSync && esm.WASI === cjs.WASI, read }));`;
    const box = mkdtempSync(join(tmpdir(), 'spindle-napi-cjs-'));
    try {
      writeFileSync(join(box, 'both.mjs'), script);
      const r = spawnSync(process.execPath, [join(box, 'both.mjs')], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
      assert.equal(r.status, 0, `the script failed:\n${r.stdout}${r.stderr}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop());
      assert.equal(out.resolved, join(runtime, 'dist', 'napi', 'index.cjs'));
      assert.equal(out.same, true, 'import and require should reach one copy of spindle/napi');
      assert.deepEqual(out.read, ['ok: from memfs', 'ok: from memfs']);
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });
});

describe('spindle/napi in Node keeps its pool workers\' compiled JavaScript across runs (platform/node/worker-code.ts)', () => {
  before(requireSetup);

  test('the first run writes one entry for dist/napi-worker.cjs, the next run reads it and writes none', () => {
    const box = mkdtempSync(join(tmpdir(), 'spindle-napi-code-'));
    const cache = join(box, 'cache');
    const folder = join(cache, 'worker-code');
    try {
      const wasm = join(napiDir, 'stock', 'node_modules', '@oxc-parser', 'binding-wasm32-wasi', 'parser.wasm32-wasi.wasm');
      // parse() runs on the pool; an idle prewarmed worker writes the entry, so the run waits for it.
      const script = `import { existsSync, readdirSync } from 'node:fs';
        import { loadNapiSync } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'runtime', 'dist', 'napi', 'index.js')).href)};
        const oxc = loadNapiSync(${JSON.stringify(wasm)});
        const r = await oxc.parse('a.ts', 'let n: number = 1', {});
        for (let i = 0; i < 600 && !(existsSync(${JSON.stringify(folder)}) && readdirSync(${JSON.stringify(folder)}).some((f) => f.endsWith('.bin'))); i++) await new Promise((w) => setTimeout(w, 50));
        console.log(JSON.parse(r.program).node.body[0].kind);`;
      assertWrittenOnceThenUsed(box, script, cache, folder);
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });

  // oxc-parser's generated loader brings emnapi 2.0.0-alpha.6, not spindle's pair: every pool
  // worker loads it (ES modules, through require(esm)), with Node's compile cache (Node 22.1+).
  test('a loader\'s own emnapi pair: the first run keeps its compiled code in node-compile/, the next run uses it, the folder stays bounded (Node 26)', () => {
    const box = mkdtempSync(join(tmpdir(), 'spindle-napi-compile-'));
    const cache = join(box, 'cache');
    const folder = join(cache, 'node-compile');
    try {
      const dropin = join(repoRoot, 'runtime', 'examples', 'napi');
      const core = JSON.parse(readFileSync(join(dropin, 'node_modules', '@emnapi', 'core', 'package.json'), 'utf8')).version;
      assert.notEqual(core, JSON.parse(readFileSync(join(repoRoot, 'runtime', 'node_modules', '@emnapi', 'core', 'package.json'), 'utf8')).version,
        'the drop-in\'s oxc must bring an emnapi of another version than spindle\'s for this test');
      writeFileSync(join(box, 'parse.mjs'), `import { createRequire } from 'node:module';
        const oxc = createRequire(${JSON.stringify(join(dropin, 'package.json'))})('@oxc-parser/binding-wasm32-wasi');
        const r = await Promise.all([1, 2, 3, 4].map((i) => oxc.parse('a' + i + '.ts', 'let n: number = ' + i, {})));
        console.log(JSON.parse(r[3].program).node.body[0].kind);`);
      const files = () => (existsSync(folder) ? readdirSync(folder, { recursive: true }).map((f) => join(folder, f)).filter((f) => statSync(f).isFile()).sort() : []);
      const run = () => {
        const r = spawnSync(node26, [join(box, 'parse.mjs')], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: { ...process.env, SPINDLE_CACHE_DIR: cache, NODE_COMPILE_CACHE: '' } });
        assert.equal(r.status, 0, `oxc through the drop-in failed:\n${r.stdout}${r.stderr}`);
        assert.equal(r.stdout.trim(), 'let');
      };
      run();
      const first = files();
      assert.ok(first.length >= 3, `entries in ${folder} after the first run: ${first.join(', ')}`);
      const written = first.map((f) => statSync(f).mtimeMs);
      run();
      assert.deepEqual(files(), first, 'the second run made other entries');
      assert.deepEqual(first.map((f) => statSync(f).mtimeMs), written, 'the second run rewrote entries instead of using them');
      // Bounded at exit: stale folders (other Node lines) beyond COMPILE_FOLDERS go, and stale
      // entries beside this line's beyond COMPILE_ENTRIES; what this run used stays.
      const line = dirname(first[0]);
      for (let i = 0; i < COMPILE_FOLDERS + 2; i++) {
        const other = join(folder, `v0.${i}.0-x64-stale`);
        mkdirSync(other);
        writeFileSync(join(other, 'entry'), 'x');
        utimesSync(other, 1.6e9 + i, 1.6e9 + i);
      }
      writeDated(line, numbered('stale-', COMPILE_ENTRIES + 5, 3), 'x', 1.6e9);
      run();
      const folders = readdirSync(folder).sort();
      assert.equal(folders.length, COMPILE_FOLDERS, `folders left: ${folders.join(', ')}`);
      assert.ok(folders.includes(basename(line)), 'the folder in use is kept');
      for (let i = 0; i < 3; i++) assert.ok(!folders.includes(`v0.${i}.0-x64-stale`), `the oldest stale folders go (${i})`);
      assert.equal(readdirSync(line).length, COMPILE_ENTRIES);
      for (const f of first) assert.ok(existsSync(f), `${f} (used by this run) is kept`);
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });
});

// emnapi's messages from pool threads to the owner ('async-send' ...): a worker the owner started
// posts them to its parent, the owner; only workers started by workers use BroadcastChannels.
// Node hands a channel's message to every other instance of the name in the process, and a pool
// worker's JavaScript never runs while it waits idle or runs a thread, so whatever reaches a
// worker's instance queues there for as long as the program runs (~110 bytes a message per worker:
// with one channel for all threads, oxc's parse() grew the process's RSS by ~25 MiB per 80,000
// calls). And the owner gets a channel's message as a MessageEvent: the first one made Node 26 load
// undici, ~40 ms of the main thread's CPU. A listener in the main thread on a channel's name gets
// what every worker's instance of that name gets: none of the messages may go on a channel.
describe('spindle/napi in Node: pool threads post emnapi\'s messages where no other worker receives them', () => {
  before(requireSetup);

  for (const [line, node] of LINES) {
    test(`oxc's parse(), 300 calls one at a time on the owner's workers: no 'async-send' on any BroadcastChannel, no undici loaded (${line})`, () => {
      const box = mkdtempSync(join(tmpdir(), 'spindle-napi-channel-'));
      try {
        const wasm = join(napiDir, 'stock', 'node_modules', '@oxc-parser', 'binding-wasm32-wasi', 'parser.wasm32-wasi.wasm');
        // In the main thread only: a listener on every channel the owner opens.
        writeFileSync(join(box, 'listen.mjs'), `import { isMainThread } from 'node:worker_threads';
          const Channel = globalThis.BroadcastChannel;
          globalThis.heard = { program: 0, own: 0 };
          if (isMainThread) globalThis.BroadcastChannel = class extends Channel {
            constructor(name) {
              super(name);
              if (!String(name).startsWith('spindle-napi-')) return;
              const key = String(name).includes('/') ? 'own' : 'program';
              const l = new Channel(name);
              l.unref();
              l.onmessage = (e) => { if (e.data?.__emnapi__?.type === 'async-send') globalThis.heard[key]++; };
            }
          };`);
        writeFileSync(join(box, 'parse.mjs'), `import { loadNapiSync, disposeNapi } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'runtime', 'dist', 'napi', 'index.js')).href)};
          const oxc = loadNapiSync(${JSON.stringify(wasm)});
          const parse = async (i) => JSON.parse((await oxc.parse('a' + i + '.ts', 'let n' + i + ': number = ' + i, {})).program).node.body[0].declarations[0].id.name;
          // The addon's pool threads start and say they are ready; then the count starts.
          for (let i = 0; i < 20; i++) await parse(i);
          await new Promise((w) => setTimeout(w, 20));
          globalThis.heard.program = 0;
          globalThis.heard.own = 0;
          const names = [];
          for (let i = 0; i < 300; i++) names.push(await parse(i));
          await new Promise((w) => setTimeout(w, 20));
          await disposeNapi(oxc);
          const undici = process.moduleLoadList.some((m) => m.includes('undici'));
          console.log(JSON.stringify({ ...globalThis.heard, right: names.every((n, i) => n === 'n' + i), undici }));`);
        const r = spawnSync(node, ['--import', pathToFileURL(join(box, 'listen.mjs')).href, join(box, 'parse.mjs')], { encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
        assert.equal(r.status, 0, `the script failed:\n${r.stdout}${r.stderr}`);
        const heard = JSON.parse(r.stdout.trim().split('\n').pop());
        assert.equal(heard.right, true, 'parse() should give each file\'s own program');
        assert.equal(heard.program, 0, `'async-send' messages on the program's channel, which every pool worker holds: ${heard.program}`);
        assert.equal(heard.own, 0, `'async-send' messages on the workers' own channels: ${heard.own}, expected none: the owner started these workers, they post to it`);
        // The listener above made MessageEvents only for messages on a channel (none).
        assert.equal(heard.undici, false, 'the main thread loaded undici (Node makes a MessageEvent for a BroadcastChannel\'s message from there)');
      } finally {
        rmSync(box, { recursive: true, force: true });
      }
    });
  }
});
