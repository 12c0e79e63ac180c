/**
 * Debian's Firefox ESR (`/usr/bin/firefox-esr`) driven by puppeteer-core over WebDriver BiDi:
 * never a browser that puppeteer downloads. Headless, a fresh temporary profile per launch
 * (puppeteer creates it and removes it at close).
 *
 * crash(): BiDi has no "crash this tab", so every web content process of this browser is killed
 * (SIGKILL, by process id, found under the browser's own process): every open page crashes, as
 * when a tab's process dies; pages opened afterwards get new processes.
 */
import { commandLine, descendants, functionSource, killAll, pageWaitFor } from './common.mjs';

export const FIREFOX = process.env.SPINDLE_FIREFOX ?? '/usr/bin/firefox-esr';

export async function missing() {
  const { existsSync } = await import('node:fs');
  if (!existsSync(FIREFOX)) return `${FIREFOX} is missing (Debian package 'firefox-esr')`;
  return undefined;
}

export async function launch({ viewport, prefs } = {}) {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    defaultViewport: viewport ?? { width: 1280, height: 720 },
    extraPrefsFirefox: prefs ?? {},
    protocolTimeout: 600_000, // an evaluate may wait long (waitFor): the callers bound their waits
  });
  const pid = browser.process()?.pid;
  return {
    engine: 'firefox',
    version: `Firefox ${(await browser.version()).replace(/^firefox\//, '')}`,
    newPage: async () => wrapPage(await browser.newPage(), pid),
    close: () => browser.close(),
  };
}

/** Web content processes ("tab" in their command line) under the browser's process `pid`. */
function contentProcesses(pid) {
  // Processes started by Firefox's fork server have their whole command line in one argument.
  return descendants(pid).filter((p) => /(^| )-contentproc .*-isForBrowser .* tab$/.test(commandLine(p).join(' ')));
}

function wrapPage(page, pid) {
  const messages = [];
  page.on('console', (m) => messages.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => messages.push({ type: 'pageerror', text: e.message }));
  page.setDefaultTimeout(0); // the callers bound every wait themselves
  return {
    goto: async (url) => { await page.goto(url); },
    evaluate: (fn, arg) => (typeof fn === 'string' ? page.evaluate(fn) : page.evaluate(fn, arg)),
    waitFor: (fn, arg, { timeoutMs }) => page.evaluate(pageWaitFor, { src: functionSource(fn), arg, ms: timeoutMs }),
    messages: async () => [...messages],
    screenshot: async () => Buffer.from(await page.screenshot({ fullPage: true })),
    crash: async () => {
      if (pid === undefined) throw new Error('firefox: the browser process id is unknown, so its content processes cannot be found');
      if (killAll(contentProcesses(pid)) === 0) throw new Error('firefox: no web content process found to crash');
      // The page is gone once it no longer runs scripts (a crashed tab shows a parent-process page).
      const deadline = Date.now() + 30_000;
      while (await page.evaluate(() => 1).then(() => true, () => false)) {
        if (Date.now() > deadline) throw new Error('firefox: the page still runs scripts 30 s after its content processes were killed');
        await new Promise((r) => setTimeout(r, 50));
      }
      await page.close().catch(() => {});
    },
    close: () => page.close().catch(() => {}), // a crashed page may already be gone
  };
}
