/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser) and `spindle serve` as
 * a child process: what the browser benchmarks (run.mjs) and the demo's test
 * (runtime/test/demo.test.mjs) share.
 *
 * SPINDLE_CHROMIUM overrides the browser's path (default /usr/bin/chromium, from tools/setup.sh).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cliPath = join(repo, 'runtime', 'dist', 'cli.js');
export const CHROMIUM = process.env.SPINDLE_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

/** Launches headless Chromium (a fresh temporary profile, removed at close); fails with what to install. */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed (${CHROMIUM} is missing): run tools/setup.sh, which installs Debian's `
      + "'chromium' package (or apt-get install chromium); spindle never downloads a browser");
  }
  let chromium;
  try {
    ({ chromium } = await import(pathToFileURL(join(repo, 'runtime', 'node_modules', 'playwright-core', 'index.mjs')).href));
  } catch {
    throw new Error("playwright-core is not installed: run 'npm ci' in runtime/ (tools/setup.sh does)");
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/**
 * Starts `spindle serve DIR --port 0 [flags]` (with the CLI at `cli`, default runtime/dist/cli.js);
 * resolves with { url, child } once it listens. The caller kills the child.
 */
export function startServe(dir, flags = [], cli = cliPath) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', dir, '--port', '0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.stderr.on('data', (c) => { err += c; });
    child.on('exit', (code) => reject(new Error(`spindle serve exited (${code}) before listening: ${err}${out}`)));
  });
}
