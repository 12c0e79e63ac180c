/**
 * Debian's Firefox ESR (`/usr/bin/firefox-esr`) driven by puppeteer-core over WebDriver BiDi:
 * never a browser that puppeteer downloads. Headless, a fresh temporary profile per launch
 * (puppeteer creates it and removes it at close).
 *
 * crash(): BiDi has no "crash this tab", so every web content process of this browser is killed
 * (SIGKILL, by process id, found under the browser's own process): every open page crashes, as
 * when a tab's process dies; pages opened afterwards get new processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine, descendants, functionSource, killAll, pageWaitFor, startHelper } from './common.mjs';

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

/** Prefs of an unattended profile: no first-run pages or prompts. */
const UNATTENDED_PREFS = {
  'browser.shell.checkDefaultBrowser': false,
  'browser.aboutwelcome.enabled': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
};

/**
 * Firefox started on `url` with no remote agent and no DevTools: the browser a user has. A
 * WebDriver session changes Firefox (it registers a worker debugger listener in every content
 * process, which makes `new Worker()` inside a worker able to block forever:
 * docs/known-issues/firefox-nested-worker.md), so what only automation breaks is tested here.
 * Nothing can be asked of the page: it reports by itself (a fetch to the caller's server).
 * Headless, a fresh temporary profile; `close()` ends the browser and its processes by id.
 */
export async function openUnattended(url) {
  const profile = mkdtempSync(join(tmpdir(), 'spindle-firefox-'));
  writeFileSync(join(profile, 'user.js'), Object.entries(UNATTENDED_PREFS)
    .map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});\n`).join(''));
  const browser = startHelper(FIREFOX, ['--headless', '--no-remote', '--profile', profile, url]);
  return {
    close: async () => {
      const processes = descendants(browser.child.pid);
      await browser.stop();
      killAll(processes); // content processes that outlived the browser
      rmSync(profile, { recursive: true, force: true });
    },
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
