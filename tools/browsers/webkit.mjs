/**
 * WebKitGTK (the engine of Safari; Debian's `webkit2gtk-driver`) driven by selenium-webdriver
 * through WebKitWebDriver, which starts Debian's MiniBrowser with `--automation`, under an Xvfb
 * display that this launch starts and ends (WebKitGTK has no headless mode).
 *
 * One WebDriver session per launch; each page is a window of it. WebDriver talks to one window
 * at a time, so every command switches to its page's window first, under one lock: calls on
 * different pages are serialized (a waitFor polls with short evaluates, so other pages get turns).
 * The session's first window stays open and unused: closing a session's last window ends it.
 *
 * Classic WebDriver has no console events (WebKitWebDriver offers no BiDi): messages() holds what
 * the page logged after goto() returned (a recorder is installed after each navigation).
 * crash(): every WebKitWebProcess of this browser is killed (SIGKILL, by process id): every open
 * page crashes.
 */
import { commandLine, descendants, freePort, functionSource, killAll, pageRecordConsole, startHelper } from './common.mjs';

export const MINIBROWSER = process.env.SPINDLE_WEBKIT_BROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const WEBDRIVER = process.env.SPINDLE_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const XVFB = '/usr/bin/Xvfb';
/** How long the driver and the display may take to come up (a loaded 2-core machine). */
const START_TIMEOUT_MS = 60_000;
const POLL_MS = 25;

export async function missing() {
  const { existsSync } = await import('node:fs');
  const absent = [[MINIBROWSER, 'webkit2gtk-driver'], [WEBDRIVER, 'webkit2gtk-driver'], [XVFB, 'xvfb']]
    .filter(([path]) => !existsSync(path)).map(([path, pkg]) => `${path} is missing (Debian package '${pkg}')`);
  return absent.length ? absent.join('; ') : undefined;
}

/** Starts Xvfb on a free display number; resolves with { display, helper }. */
async function startDisplay() {
  const helper = startHelper(XVFB, ['-displayfd', '1', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp']);
  const display = await new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`Xvfb did not report a display within ${START_TIMEOUT_MS} ms: ${helper.output()}`)), START_TIMEOUT_MS);
    helper.child.stdout.on('data', (c) => {
      out += c;
      const m = /^(\d+)\n/.exec(out);
      if (m) { clearTimeout(t); resolve(`:${m[1]}`); }
    });
    helper.exited.then(({ code }) => { clearTimeout(t); reject(new Error(`Xvfb exited (${code}) before it started: ${helper.output()}`)); });
  });
  return { display, helper };
}

/** Starts WebKitWebDriver on a free port; resolves with { url, helper } once it answers /status. */
async function startDriver(display, env) {
  const port = await freePort();
  const helper = startHelper(WEBDRIVER, [`--port=${port}`], { env: { ...process.env, ...env, DISPLAY: display } });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (helper.child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${helper.child.exitCode}): ${helper.output()}`);
    try {
      if ((await fetch(`${url}/status`)).ok) return { url, helper };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`WebKitWebDriver did not answer on ${url} within ${START_TIMEOUT_MS} ms: ${helper.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function launch({ env } = {}) {
  const { Builder } = await import('selenium-webdriver');
  const { display, helper: xvfb } = await startDisplay();
  let driverHelper;
  try {
    const { url, helper } = await startDriver(display, env ?? {});
    driverHelper = helper;
    const driver = await new Builder().usingServer(url).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    }).build();
    await driver.manage().setTimeouts({ script: 600_000, pageLoad: 120_000 });
    const caps = await driver.getCapabilities();
    const home = await driver.getWindowHandle();
    const session = { driver, home, current: home, lock: Promise.resolve() };
    return {
      engine: 'webkit',
      version: `WebKitGTK ${caps.get('browserVersion')}`,
      newPage: () => newPage(session, driverHelper.child.pid),
      close: async () => {
        await driver.quit().catch(() => {});
        await driverHelper.stop();
        await xvfb.stop();
      },
    };
  } catch (e) {
    await driverHelper?.stop();
    await xvfb.stop();
    throw e;
  }
}

/** Runs `f(driver)` with `handle`'s window current, after every earlier call of this session. */
function inWindow(session, handle, f) {
  const run = async () => {
    if (session.current !== handle) {
      await session.driver.switchTo().window(handle);
      session.current = handle;
    }
    return f(session.driver);
  };
  const result = session.lock.then(run, run);
  session.lock = result.catch(() => {});
  return result;
}

/** WebKit's own web content processes under the driver's process `pid`. */
function webProcesses(pid) {
  return descendants(pid).filter((p) => (commandLine(p)[0] ?? '').endsWith('/WebKitWebProcess'));
}

async function newPage(session, driverPid) {
  const handle = await inWindow(session, session.home, async (d) => {
    await d.switchTo().newWindow('window');
    return d.getWindowHandle();
  });
  session.current = handle;
  const earlier = []; // console messages of the documents this page left
  const evaluate = (fn, arg) => inWindow(session, handle, (d) => d.executeScript(`return (${functionSource(fn)}).call(null, arguments[0]);`, arg ?? null));
  const recorded = async () => (await evaluate(() => globalThis.__browsersConsole ?? []).catch(() => [])) ?? [];
  return {
    goto: async (url) => {
      earlier.push(...await recorded());
      await inWindow(session, handle, (d) => d.get(url));
      await evaluate(pageRecordConsole);
    },
    evaluate,
    waitFor: async (fn, arg, { timeoutMs }) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = await evaluate(fn, arg);
        if (v) return v;
        if (Date.now() >= deadline) throw new Error(`condition not met within ${timeoutMs} ms (last value: ${String(v)})`);
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    messages: async () => [...earlier, ...await recorded()],
    screenshot: async () => Buffer.from(await inWindow(session, handle, (d) => d.takeScreenshot()), 'base64'),
    crash: async () => {
      if (killAll(webProcesses(driverPid)) === 0) throw new Error('webkit: no WebKitWebProcess found to crash');
      await inWindow(session, handle, (d) => d.close()).catch(() => {});
      session.current = undefined;
    },
    close: async () => {
      await inWindow(session, handle, (d) => d.close()).catch(() => {});
      session.current = undefined;
    },
  };
}
