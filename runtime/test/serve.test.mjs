// `spindle serve` without a browser: the isolation headers on every response, MIME types, the
// runtime under /spindle/, run.html, confinement to the served directory, and CLI errors.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { serve } from '../dist/serve.js';
import { exitGuard, runCli } from './helpers.mjs';

exitGuard(after);

let dir, isolated, plain;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'spindle-serve-'));
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'prog.wasm'), new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  writeFileSync(join(dir, 'sub', 'a.mjs'), 'export {};\n');
  writeFileSync(join(dir, 'sub', 'index.html'), '<p>sub</p>\n');
  [isolated, plain] = await Promise.all([serve({ dir, port: 0 }), serve({ dir, port: 0, isolation: false })]);
});
after(() => {
  isolated?.server.close();
  plain?.server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** GET with the path sent as is (no URL normalisation, so `..` reaches the server). */
function get(base, path, method = 'GET') {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('spindle serve', () => {
  test('COOP, COEP and CORP on every response, including errors', async () => {
    for (const path of ['/prog.wasm', '/run.html', '/spindle/browser.js', '/missing', '/']) {
      const r = await get(isolated.url, path);
      assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin', path);
      assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp', path);
      assert.equal(r.headers['cross-origin-resource-policy'], 'same-origin', path);
    }
  });

  test('--no-isolation (isolation: false) leaves the headers out', async () => {
    const r = await get(plain.url, '/prog.wasm');
    assert.equal(r.status, 200);
    assert.equal(r.headers['cross-origin-opener-policy'], undefined);
    assert.equal(r.headers['cross-origin-embedder-policy'], undefined);
  });

  test('MIME types: .wasm, .js, .mjs, .html', async () => {
    for (const [path, type] of [['/prog.wasm', 'application/wasm'], ['/spindle/browser.js', 'text/javascript'],
      ['/sub/a.mjs', 'text/javascript'], ['/run.html', 'text/html']]) {
      const r = await get(isolated.url, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-type'].split(';')[0], type, path);
    }
  });

  test('the runtime under /spindle/ (browser entry, worker, platform)', async () => {
    for (const path of ['/spindle/browser.js', '/spindle/worker.js', '/spindle/platform/browser/index.js']) {
      assert.equal((await get(isolated.url, path)).status, 200, path);
    }
    assert.match((await get(isolated.url, '/run.html')).body, /from '\/spindle\/browser\.js'/);
  });

  test('the demo under /demo/: its page and modules, a redirect from /demo, confined to runtime/web/demo', async () => {
    const index = await get(isolated.url, '/demo/');
    assert.equal(index.status, 200);
    assert.equal(index.headers['content-type'].split(';')[0], 'text/html');
    assert.equal(index.headers['cross-origin-embedder-policy'], 'require-corp');
    assert.match(index.body, /<script type="module" src="\.\/demo\.js"><\/script>/);
    for (const path of ['/demo/demo.js', '/demo/experiments.js', '/demo/chart.js', '/demo/jsfs/worker.js']) {
      const r = await get(isolated.url, path);
      assert.equal(r.status, 200, path);
      assert.equal(r.headers['content-type'].split(';')[0], 'text/javascript', path);
    }
    const redirect = await get(isolated.url, '/demo');
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, '/demo/');
    for (const path of ['/demo/..%2f..%2fpackage.json', '/demo/..%2F..%2F..%2Fpackage.json', '/demo/jsfs/..%2f..%2f..%2fsrc%2fserve.ts']) {
      assert.equal((await get(isolated.url, path)).status, 404, path);
    }
  });

  test('directories: index.html, a listing with run links, a redirect to the trailing slash', async () => {
    assert.equal((await get(isolated.url, '/sub/')).body, '<p>sub</p>\n');
    const redirect = await get(isolated.url, '/sub');
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, '/sub/');
    const listing = await get(isolated.url, '/');
    assert.match(listing.body, /href="\/run\.html\?wasm=%2Fprog\.wasm"/);
  });

  test('paths cannot leave the served directory or dist/', async () => {
    for (const path of ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/spindle/../../package.json', '/spindle/%2e%2e/package.json']) {
      const r = await get(isolated.url, path);
      assert.equal(r.status, 404, `${path} gave ${r.status}`);
    }
  });

  test('HEAD sends no body; POST is refused', async () => {
    const head = await get(isolated.url, '/prog.wasm', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal((await get(isolated.url, '/prog.wasm', 'POST')).status, 405);
  });

  test('CLI: a missing directory and a bad port are usage errors (exit 2, one line)', () => {
    const missing = runCli(['serve', join(dir, 'nope')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^spindle: error: .*nope is not a directory; give the directory to serve\n$/);
    const port = runCli(['serve', dir, '--port', 'x']);
    assert.equal(port.status, 2);
    assert.match(port.stderr, /--port takes a port number/);
  });

  test('CLI: a port in use -> exit 1 with what to do', () => {
    const port = new URL(isolated.url).port;
    const r = runCli(['serve', dir, '--port', port]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`port ${port} is in use; pick another with --port N`));
  });

  test('CLI: serve --help', () => {
    const r = runCli(['serve', '--help']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /spindle serve \[DIR\] \[--port N\]/);
  });
});
