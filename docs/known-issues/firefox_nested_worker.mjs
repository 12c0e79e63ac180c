// Reproducer for "Firefox: new Worker() inside a worker can block forever while a worker debugger
// listener is registered" (docs/known-issues/firefox-nested-worker.md). No spindle code involved.
//
// A page starts a dedicated worker; that worker creates WORKERS module workers, one after another,
// each of which only answers one message. A run fails when the page hears nothing for 10 s: the
// trace (in a SharedArrayBuffer the page reads) then ends with "new k": `new Worker()` for worker
// k never returned. The same page runs twice: in Firefox ESR driven over WebDriver BiDi (the
// launcher of tools/browsers: its session registers a WorkerDebuggerManager listener in every
// content process) and in Firefox ESR started on the page's URL with no automation at all.
//
// Run: bash tools/browsers/setup.sh && node docs/known-issues/firefox_nested_worker.mjs [RUNS] [WORKERS]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIREFOX } from '../../tools/browsers/firefox.mjs';
import { launch } from '../../tools/browsers/index.mjs';

const RUNS = Number(process.argv[2] ?? 30);
const WORKERS = Number(process.argv[3] ?? 9);
const RUN_TIMEOUT_MS = 10_000;

// The page: RUNS runs, each reported to /report as { i, ok, trace }, then { done }.
const PAGE = `<!doctype html><meta charset="utf-8"><title>nested workers</title><script type="module">
const report = (o) => fetch('/report', { method: 'POST', body: JSON.stringify(o) });
const leaf = URL.createObjectURL(new Blob(['onmessage = () => postMessage("up");'], { type: 'text/javascript' }));
const owner = URL.createObjectURL(new Blob([\`onmessage = (e) => {
  const buf = e.data, end = new Int32Array(buf, 0, 1), bytes = new Uint8Array(buf);
  const log = (m) => { const b = new TextEncoder().encode(m + ' '); bytes.set(b, 4 + Atomics.add(end, 0, b.length)); };
  let up = 0;
  for (let k = 0; k < ${WORKERS}; k++) {
    log('new ' + k);
    const w = new Worker('\${leaf}', { type: 'module' });
    log('made ' + k);
    w.onmessage = () => { if (++up === ${WORKERS}) postMessage('all up'); };
    w.postMessage(k);
  }
};\`], { type: 'text/javascript' }));
let failed = 0;
for (let i = 0; i < ${RUNS}; i++) {
  const buf = new SharedArrayBuffer(1 << 12);
  const w = new Worker(owner, { type: 'module' });
  const ok = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ${RUN_TIMEOUT_MS});
    w.onmessage = () => { clearTimeout(timer); resolve(true); };
    w.postMessage(buf);
  });
  w.terminate();
  if (!ok) failed++;
  const n = new Int32Array(buf, 0, 1)[0];
  await report({ i, ok, trace: ok ? '' : new TextDecoder().decode(new Uint8Array(buf).slice(4, 4 + n)) });
}
await report({ done: true, failed });
</script>`;

/** Serves PAGE cross-origin isolated and collects its reports; resolves { url, done, close }. */
async function pageServer(label) {
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
      res.end(PAGE);
      return;
    }
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const r = JSON.parse(body);
      if (r.done) finish(r.failed);
      else if (!r.ok) console.log(`${label}: run ${r.i} never finished; trace: ${r.trace}`);
      res.writeHead(204, headers);
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, done, close: () => server.close() };
}

/** Firefox under WebDriver BiDi (puppeteer-core through tools/browsers). */
async function underWebDriver() {
  const server = await pageServer('WebDriver BiDi');
  const browser = await launch('firefox');
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    return await server.done;
  } finally {
    await browser.close();
    server.close();
  }
}

/** Firefox started on the page with no remote agent and no DevTools: what a user gets. */
async function unattended() {
  const server = await pageServer('no automation');
  const profile = mkdtempSync(join(tmpdir(), 'firefox-nested-'));
  writeFileSync(join(profile, 'user.js'), 'user_pref("browser.shell.checkDefaultBrowser", false);\n');
  const firefox = spawn(FIREFOX, ['--headless', '--no-remote', '--profile', profile, server.url], { detached: true, stdio: 'ignore' });
  try {
    return await server.done;
  } finally {
    process.kill(-firefox.pid, 'SIGTERM'); // the browser and its content processes: the group we started
    server.close();
    setTimeout(() => rmSync(profile, { recursive: true, force: true }), 2000);
  }
}

const bidi = await underWebDriver();
const plain = await unattended();
console.log(`${RUNS} runs of a worker creating ${WORKERS} workers in Firefox ESR: `
  + `WebDriver BiDi ${bidi}/${RUNS} never finished; no automation ${plain}/${RUNS}`);
