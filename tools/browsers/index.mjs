/**
 * The one browser launcher of spindle's tests and benchmarks: the same small interface over
 * Debian's Chromium (playwright-core), Firefox ESR (puppeteer-core, WebDriver BiDi) and WebKitGTK
 * (selenium-webdriver, WebKitWebDriver + MiniBrowser under Xvfb). Never a browser downloaded by a
 * driver package. `bash tools/browsers/setup.sh` installs the engines and the drivers.
 *
 *   const browser = await launch('firefox');        // 'chromium' | 'firefox' | 'webkit'
 *   const page = await browser.newPage();
 *   await page.goto(url);                            // resolves after the load event
 *   await page.evaluate((x) => x + 1, 41);           // a function (serialized) and one JSON argument, or an expression string
 *   await page.waitFor(() => window.done, null, { timeoutMs: 60_000 }); // the truthy value; rejects at the timeout
 *   await page.messages();                           // console messages [{ type, text }] ('pageerror' for uncaught errors)
 *   await page.screenshot();                         // PNG bytes
 *   await page.crash();                              // the page's content process dies (see each engine)
 *   await page.close(); await browser.close();
 *
 * `serve(dir, { isolation, cli })` starts `spindle serve` as a child process (port 0) and
 * resolves with { url, close }. README.md (beside this file) has the details per engine.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromium from './chromium.mjs';
import * as firefox from './firefox.mjs';
import * as webkit from './webkit.mjs';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ADAPTERS = { chromium, firefox, webkit };

/** Every engine, in the order tests and benchmarks run them. */
export const ENGINES = Object.freeze(['chromium', 'firefox', 'webkit']);

/** The browser binary of each engine (what `bash tools/browsers/setup.sh` installs). */
export const BINARIES = Object.freeze({ chromium: chromium.CHROMIUM, firefox: firefox.FIREFOX, webkit: webkit.MINIBROWSER });

/** A human name per engine, for test titles and reports. */
export const ENGINE_NAMES = Object.freeze({ chromium: 'Chromium', firefox: 'Firefox ESR', webkit: 'WebKitGTK' });

function adapter(engine) {
  const a = ADAPTERS[engine];
  if (!a) throw new Error(`unknown browser engine '${engine}': one of ${ENGINES.join(', ')}`);
  return a;
}

/** What is missing to launch `engine` here, with what to run; undefined when it can launch. */
export async function missing(engine) {
  const what = await adapter(engine).missing();
  if (what) return `${ENGINE_NAMES[engine]} cannot start: ${what}; run 'bash tools/browsers/setup.sh' (the test set-up does)`;
  try {
    await import(engine === 'chromium' ? 'playwright-core' : engine === 'firefox' ? 'puppeteer-core' : 'selenium-webdriver');
  } catch {
    return `${ENGINE_NAMES[engine]} cannot start: its driver package is not installed; run 'bash tools/browsers/setup.sh' (npm ci in tools/browsers)`;
  }
  return undefined;
}

/**
 * Launches `engine` with a fresh temporary profile. Options: `viewport` ({ width, height }: the
 * page size where the engine lets us set it), `prefs` (Firefox only: extra about:config prefs),
 * `env` (WebKitGTK only: extra environment of the driver, the browser and its web processes).
 * Throws with what to install when the engine is missing.
 */
export async function launch(engine, options = {}) {
  const why = await missing(engine);
  if (why) throw new Error(why);
  return adapter(engine).launch(options);
}

/**
 * Opens `url` in `engine` with no automation attached (`firefox` only: a WebDriver session changes
 * what Firefox does with nested workers, docs/known-issues/firefox-nested-worker.md). The page
 * must report its results itself; resolves with { close }.
 */
export async function openUnattended(engine, url) {
  if (engine !== 'firefox') throw new Error(`openUnattended: only 'firefox' (asked for '${engine}')`);
  const why = await missing(engine);
  if (why) throw new Error(why);
  return firefox.openUnattended(url);
}

/**
 * The environment WebKitGTK needs for wasm threads: WebKitGTK 2.50 creates shared wasm memory in a
 * cross-origin isolated page but cannot post it to a worker (SharedArrayBuffer is not enabled in
 * the GLib ports: WebKit bug 317847; Safari can) unless JavaScriptCore's option is set.
 */
export const WEBKIT_THREADS_ENV = Object.freeze({ JSC_useSharedArrayBuffer: '1' });

/** `launch`, with WebKitGTK started with WEBKIT_THREADS_ENV (what the tests and benchmarks run). */
export function launchForThreads(engine, options = {}) {
  return launch(engine, engine === 'webkit' ? { ...options, env: { ...WEBKIT_THREADS_ENV, ...options.env } } : options);
}

/**
 * Starts `spindle serve DIR --port 0` (`isolation: false` adds --no-isolation; `cli` is the
 * spindle CLI to run, default runtime/dist/cli.js); resolves with { url, close } once it listens.
 */
export function serve(dir, { isolation = true, cli = join(repo, 'runtime', 'dist', 'cli.js') } = {}) {
  return new Promise((resolve, reject) => {
    const flags = isolation ? [] : ['--no-isolation'];
    const child = spawn(process.execPath, [cli, 'serve', dir, '--port', '0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve({ url: m[1], close: () => { child.kill(); } });
    });
    child.stderr.on('data', (c) => { err += c; });
    child.on('exit', (code) => reject(new Error(`spindle serve exited (${code}) before listening: ${err}${out}`)));
  });
}
