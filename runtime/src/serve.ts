/**
 * `spindle serve [DIR] [--port N] [--no-isolation]`: a static development server on 127.0.0.1
 * for running programs in a browser.
 *
 * Every response carries the headers that make a page cross-origin isolated (COOP same-origin,
 * COEP require-corp) and CORP same-origin, so pages get SharedArrayBuffer and shared wasm memory.
 * `--no-isolation` leaves them out (to see what an unisolated page gets).
 *
 *   /spindle/...   the runtime itself (this package's dist/: browser.js, worker.js, ...)
 *   /run.html      a page that runs ?wasm=URL with &args=a,b (or repeated &arg=), &env=K=V,
 *                  &stdin=TEXT, &threads=N, and shows stdout, stderr and the exit code
 *   /demo/         the demo (runtime/web/demo/): the three reference experiments with live
 *                  charts; its programs come from DIR (bench/browser/build.sh builds them)
 *   /...           files under DIR (default: the current directory); a directory without
 *                  index.html gets a listing in which .wasm files link to run.html
 *
 * Only GET and HEAD; paths are confined to their root (no `..` escape, no symlink check: a
 * development server for files the user already has).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The runtime's compiled modules (this file's own directory: dist/). */
const runtimeDist = here;
/** The pages shipped with the runtime (runtime/web/). */
const webDir = resolve(here, '..', 'web');
const demoDir = join(webDir, 'demo');

const MIME: Record<string, string> = {
  '.wasm': 'application/wasm',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

export interface ServeOptions {
  /** Directory served at `/`. */
  dir: string;
  /** 0 picks a free port. Default 8080. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Send COOP/COEP/CORP (default true). */
  isolation?: boolean;
}

/** Starts the server; resolves once it listens, with its URL. */
export async function serve(options: ServeOptions): Promise<{ server: Server; url: string }> {
  const root = resolve(options.dir);
  const isolation = options.isolation ?? true;
  const server = createServer((req, res) => {
    handle(req, res, root, isolation).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, isolation, 'text/plain; charset=utf-8', `internal error: ${(e as Error).message}\n`);
      else res.destroy();
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => { server.off('error', fail); ok(); });
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : options.port;
  return { server, url: `http://${options.host ?? '127.0.0.1'}:${port}/` };
}

async function handle(req: IncomingMessage, res: ServerResponse, root: string, isolation: boolean): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, 405, isolation, 'text/plain; charset=utf-8', 'only GET and HEAD\n');
  }
  let path: string;
  try {
    path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  } catch {
    return send(res, 400, isolation, 'text/plain; charset=utf-8', 'bad URL\n');
  }
  if (path === '/favicon.ico') { headers(res, isolation); res.writeHead(204); res.end(); return; }
  if (path === '/run.html') return sendFile(req, res, join(webDir, 'run.html'), isolation);
  if (path === '/demo' || path.startsWith('/demo/')) {
    return sendFile(req, res, confined(demoDir, path.slice('/demo/'.length)), isolation, path);
  }
  if (path.startsWith('/spindle/')) return sendFile(req, res, confined(runtimeDist, path.slice('/spindle/'.length)), isolation);
  return sendFile(req, res, confined(root, path.slice(1)), isolation, path);
}

/** `rel` inside `root`, or null when it would leave it. */
function confined(root: string, rel: string): string | null {
  const full = resolve(root, rel);
  return full === root || full.startsWith(root + sep) ? full : null;
}

async function sendFile(req: IncomingMessage, res: ServerResponse, file: string | null, isolation: boolean, urlPath?: string): Promise<void> {
  const info = file ? await stat(file).catch(() => null) : null;
  if (!file || !info) return send(res, 404, isolation, 'text/plain; charset=utf-8', 'not found\n');
  if (info.isDirectory()) {
    if (urlPath !== undefined && !urlPath.endsWith('/')) {
      res.setHeader('Location', `${urlPath}/`);
      return send(res, 301, isolation, 'text/plain; charset=utf-8', '');
    }
    const index = join(file, 'index.html');
    if (await stat(index).then((s) => s.isFile(), () => false)) return sendFile(req, res, index, isolation);
    if (urlPath === undefined) return send(res, 404, isolation, 'text/plain; charset=utf-8', 'not found\n');
    return send(res, 200, isolation, 'text/html; charset=utf-8', await listing(file, urlPath));
  }
  headers(res, isolation);
  res.writeHead(200, {
    'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': info.size,
  });
  if (req.method === 'HEAD') { res.end(); return; }
  await new Promise<void>((ok, fail) => {
    const stream = createReadStream(file);
    stream.on('error', fail);
    res.on('close', ok);
    stream.pipe(res);
  });
}

function send(res: ServerResponse, status: number, isolation: boolean, type: string, body: string): void {
  headers(res, isolation);
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function headers(res: ServerResponse, isolation: boolean): void {
  res.setHeader('Cache-Control', 'no-store');
  if (!isolation) return;
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

async function listing(dir: string, urlPath: string): Promise<string> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const items = entries.map((e) => {
    const href = encodeURI(urlPath + e.name) + (e.isDirectory() ? '/' : '');
    const run = e.isFile() && e.name.endsWith('.wasm') ? ` <a href="/run.html?wasm=${encodeURIComponent(urlPath + e.name)}">run</a>` : '';
    return `<li><a href="${esc(href)}">${esc(e.name)}${e.isDirectory() ? '/' : ''}</a>${run}</li>`;
  });
  return `<!doctype html><meta charset="utf-8"><title>${esc(urlPath)}</title><h1>${esc(urlPath)}</h1><ul>${items.join('')}</ul>\n`;
}

const SERVE_HELP = `spindle serve: a local web server for running programs in a browser

Usage:
  spindle serve [DIR] [--port N] [--no-isolation]

Serves DIR (default: the current directory) on http://127.0.0.1:N/ (default 8080; 0 picks a
free port) with the cross-origin isolation headers that SharedArrayBuffer needs, the runtime
under /spindle/ (import /spindle/browser.js), /run.html?wasm=/PATH.wasm&args=a,b, which
runs a program and shows its output and exit code, and /demo/, which runs the three reference
experiments (math, malloc, files) with live charts: serve the repository root after
'bash bench/browser/build.sh', or pass /demo/?programs=/PATH/ to where its programs are.

Options:
  --port N          port to listen on (default 8080; 0: any free port)
  --no-isolation    leave out the COOP/COEP/CORP headers (the page then shows the error)
  -h, --help        show this help
`;

/** The CLI's `serve` command. Returns when the server stops (never, unless listening fails). */
export async function serveCommand(argv: string[], out: (s: string) => void, fail: (message: string, status: number) => never): Promise<void> {
  const usage = (message: string): never => fail(message, 2);
  let dir: string | undefined;
  let port = 8080;
  let isolation = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (flag === '-h' || flag === '--help') { out(SERVE_HELP); return; }
    if (flag === '--no-isolation') { isolation = false; continue; }
    if (flag === '--port') {
      const v = inline ?? argv[++i];
      if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) usage(`--port takes a port number 0-65535 (got '${v ?? ''}')`);
      port = Number(v);
      continue;
    }
    if (a.startsWith('-')) usage(`unknown option ${flag}; see 'spindle serve --help'`);
    if (dir !== undefined) usage(`serve takes one directory (got '${dir}' and '${a}')`);
    dir = a;
  }
  dir ??= '.';
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) usage(`${dir} is not a directory; give the directory to serve`);
  let started;
  try {
    started = await serve({ dir, port, isolation });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${port} is in use; pick another with --port N (0: any free port)`, 1);
    throw e;
  }
  out(`spindle serve: ${started.url} (serving ${resolve(dir)}${isolation ? '' : ', without cross-origin isolation'})\n`
    + `  run a program: ${started.url}run.html?wasm=/PATH/TO/PROGRAM.wasm&args=a,b\n`
    + `  the demo:      ${started.url}demo/\n`);
}
