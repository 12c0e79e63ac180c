// The napi-rs pages in a browser, for tests (runtime/test/napi-browser.test.mjs) and bench/napi:
// builds tests/napi/web twice with Vite (stock, spindle), puts the parse corpus and the project
// beside each build, serves them with `spindle serve` (cross-origin isolated) and runs one job per
// page load: window.napiResult.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpus } from './corpus.mjs';
import { serve as spindleServe } from '../../tools/browsers/index.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const web = join(here, 'web');
export const project = join(here, 'project');
/** The peer-problem addon (tests/napi/peer/build.sh), served to the spindle build's pages as peer/peer.wasm. */
export const peerWasm = join(repo, 'build', 'napi', 'peer.wasm');

/**
 * Where each route's page is, under the served directory (`spindle serve` keeps /spindle/ for the
 * runtime's own files).
 */
export const pageDir = { stock: 'stock', dropin: 'on-spindle', direct: 'on-spindle' };

/** Builds the two page builds into out/stock and out/on-spindle, with the corpus and a project (default tests/napi/project). */
export function buildPages(out, { projectDir = project } = {}) {
  const vite = join(web, 'node_modules', 'vite', 'bin', 'vite.js');
  for (const mode of ['stock', 'spindle']) {
    const dir = join(out, pageDir[mode === 'stock' ? 'stock' : 'dropin']);
    const b = spawnSync(process.execPath, [vite, 'build', '--mode', mode, '--outDir', dir, '--emptyOutDir', '--logLevel', 'error'],
      { cwd: web, encoding: 'utf8', timeout: 300_000 });
    if (b.status !== 0) throw new Error(`vite build --mode ${mode} failed (run 'bash tests/napi/setup.sh'):\n${b.stdout}${b.stderr}`);
    const files = corpus();
    mkdirSync(join(dir, 'corpus'), { recursive: true });
    files.forEach((f, i) => copyFileSync(f.path, join(dir, 'corpus', `${i}.txt`)));
    writeFileSync(join(dir, 'corpus', 'list.json'), JSON.stringify(files.map((f, i) => ({ name: f.name, file: `${i}.txt` }))));
    const projectFiles = walk(projectDir).map((p) => relative(projectDir, p));
    for (const p of projectFiles) {
      mkdirSync(dirname(join(dir, 'project', p)), { recursive: true });
      copyFileSync(join(projectDir, p), join(dir, 'project', p));
    }
    writeFileSync(join(dir, 'project', 'list.json'), JSON.stringify(projectFiles));
    // The peer-problem addon for the lock job (tests/napi/peer/build.sh; tools/test.sh builds it).
    if (mode === 'spindle' && existsSync(peerWasm)) {
      mkdirSync(join(dir, 'peer'), { recursive: true });
      copyFileSync(peerWasm, join(dir, 'peer', 'peer.wasm'));
    }
  }
}

function walk(dir) {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

/** `spindle serve DIR --port 0` (tools/browsers): resolves { url, stop }. */
export async function serve(dir) {
  const server = await spindleServe(dir);
  return { url: server.url, stop: server.close };
}

/**
 * Loads the page for ROUTE/JOB (served at `base`) in a fresh page of `browser` (tools/browsers);
 * resolves window.napiResult.
 */
export async function runJob(browser, base, route, job, timeout = 180_000, { repeat = 1 } = {}) {
  const page = await browser.newPage();
  const messages = async () => (await page.messages()).map((m) => m.text).join('\n');
  try {
    await page.goto(`${base}${pageDir[route]}/?job=${job}&route=${route}&repeat=${repeat}`);
    let r;
    try {
      r = await page.waitFor(() => window.napiResult, null, { timeoutMs: timeout });
    } catch {
      throw new Error(`${route} ${job}: no result in ${timeout} ms; page: ${await page.evaluate(() => document.body.innerText).catch(() => '?')}\nconsole:\n${await messages()}`);
    }
    if (r.error) throw new Error(`${route} ${job}: ${r.error}\n${r.stack}\nconsole:\n${await messages()}`);
    return r;
  } finally {
    await page.close();
  }
}
