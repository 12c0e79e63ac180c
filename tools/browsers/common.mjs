/**
 * What the three engine adapters share: turning a function into a script every driver can run,
 * waiting for a condition inside the page (one round trip, no fixed sleep), the console recorder
 * that stands in for console events where the driver has none (WebKitGTK's classic WebDriver),
 * and the processes a launcher started (found and ended by process id, never by name).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A page-side function as source text: a function as given, a string as an expression. */
export function functionSource(fn) {
  if (typeof fn === 'function') return fn.toString();
  if (typeof fn === 'string') return `() => (${fn})`;
  throw new TypeError(`expected a function or an expression string, got ${typeof fn}`);
}

/**
 * Runs in the page: polls `src(arg)` every 10 ms until it returns a truthy value (resolved if a
 * promise) and resolves with that value; rejects after `ms` with what was last seen. Given to
 * the driver's evaluate with its arguments, so a wait is one round trip in every engine.
 */
export function pageWaitFor({ src, arg, ms }) {
  // eslint-disable-next-line no-new-func
  const f = new Function(`return (${src})`)();
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = async () => {
      let v;
      try {
        v = await f(arg);
      } catch (e) {
        reject(e);
        return;
      }
      if (v) resolve(v);
      else if (Date.now() >= deadline) reject(new Error(`condition not met within ${ms} ms (last value: ${String(v)})`));
      else setTimeout(tick, 10);
    };
    void tick();
  });
}

/**
 * Runs in the page (WebKitGTK only): records console calls and uncaught errors into
 * `globalThis.__browsersConsole` ({ type, text }), keeping the original console behaviour.
 * Installed after each navigation, so messages logged while the page loaded are not seen.
 */
export function pageRecordConsole() {
  if (globalThis.__browsersConsole) return;
  const log = (globalThis.__browsersConsole = []);
  const text = (args) => args.map((a) => (typeof a === 'string' ? a : String(a))).join(' ');
  for (const type of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[type].bind(console);
    console[type] = (...args) => { log.push({ type: type === 'warn' ? 'warning' : type, text: text(args) }); original(...args); };
  }
  addEventListener('error', (e) => log.push({ type: 'pageerror', text: e.message }));
  addEventListener('unhandledrejection', (e) => log.push({ type: 'pageerror', text: String(e.reason?.message ?? e.reason) }));
}

/** A TCP port that was free a moment ago on 127.0.0.1 (for a driver that cannot take port 0). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Process ids of every descendant of `pid` (children first), read from /proc. */
export function descendants(pid) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // the process ended while we read
    }
  }
  const out = [];
  const walk = (p) => { for (const c of children.get(p) ?? []) { out.push(c); walk(c); } };
  walk(pid);
  return out;
}

/** The command line of process `pid` as its arguments ([] if it has ended). */
export function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
  } catch {
    return [];
  }
}

/** Sends SIGKILL to each pid (those that already ended are skipped); returns how many were signalled. */
export function killAll(pids) {
  let n = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
      n++;
    } catch {
      // already gone
    }
  }
  return n;
}

/**
 * Starts a helper process (Xvfb, WebKitWebDriver) that belongs to a launch: its stderr is kept
 * (the last 4 KiB) for error messages, and `stop()` ends it by its id.
 */
export function startHelper(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let tail = '';
  const keep = (c) => { tail = (tail + c).slice(-4096); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.once('error', (e) => keep(`\n${e.message}`));
  return {
    child,
    exited,
    output: () => tail,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
}
