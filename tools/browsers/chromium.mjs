/**
 * Debian's Chromium (`/usr/bin/chromium`) driven by playwright-core over CDP: never a browser
 * that playwright downloads. Headless, one fresh temporary profile per launch (playwright passes
 * its own --user-data-dir and removes it at close), one browser context whose pages share it.
 */
import { functionSource, pageWaitFor } from './common.mjs';

export const CHROMIUM = process.env.SPINDLE_CHROMIUM ?? '/usr/bin/chromium';
export const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

/** What is missing to launch Chromium here (undefined when nothing is). */
export async function missing() {
  const { existsSync } = await import('node:fs');
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (Debian package 'chromium')`;
  return undefined;
}

export async function launch({ viewport } = {}) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  const context = await browser.newContext(viewport ? { viewport } : {});
  return {
    engine: 'chromium',
    version: `Chromium ${browser.version()}`,
    newPage: async () => wrapPage(context, await context.newPage()),
    close: () => browser.close(),
  };
}

function wrapPage(context, page) {
  const messages = [];
  page.on('console', (m) => messages.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => messages.push({ type: 'pageerror', text: e.message }));
  let cdp;
  const session = async () => (cdp ??= await context.newCDPSession(page));
  return {
    goto: async (url) => { await page.goto(url); },
    evaluate: (fn, arg) => (typeof fn === 'string' ? page.evaluate(fn) : page.evaluate(fn, arg)),
    waitFor: (fn, arg, { timeoutMs }) => page.evaluate(pageWaitFor, { src: functionSource(fn), arg, ms: timeoutMs }),
    messages: async () => [...messages],
    screenshot: () => page.screenshot({ fullPage: true }),
    crash: async () => {
      const c = await session();
      const crashed = new Promise((resolve) => page.once('crash', resolve));
      void c.send('Page.crash').catch(() => {}); // never answers: the session dies with the renderer
      await crashed;
      await page.close();
    },
    setStorageQuota: async (origin, bytes) => {
      const c = await session();
      await c.send('Storage.overrideQuotaForOrigin', bytes === undefined ? { origin } : { origin, quotaSize: bytes });
    },
    close: () => page.close(),
  };
}
