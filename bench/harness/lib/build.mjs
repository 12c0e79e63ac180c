/**
 * Builds the benchmark guests of bench/programs into OUT/programs: wasm32-wasip1-threads modules
 * with tools/wasi-cc (exporting malloc/free, which @emnapi/wasi-threads needs to spawn at all with
 * wasi-libc's one-argument thread-spawn), and native references with gcc -O2. A target is rebuilt
 * only when its source is newer.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const WASM_FLAGS = ['-Wl,--export=malloc,--export=free'];

function stale(target, source) {
  return !existsSync(target) || statSync(target).mtimeMs < statSync(source).mtimeMs;
}

function build(cmd, args, target, source, log) {
  if (!stale(target, source)) return target;
  log(`build ${target}`);
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  return target;
}

/** @returns {Record<string, string>} program name -> path ('<name>.wasm' and '<name>-native'). */
export function buildPrograms(repo, outDir, log) {
  const src = join(repo, 'bench', 'programs');
  const dir = join(outDir, 'programs');
  mkdirSync(dir, { recursive: true });
  const wasiCc = join(repo, 'tools', 'wasi-cc');
  const programs = {};
  for (const name of ['spawn_latency', 'hello', 'math']) {
    const c = join(src, `${name}.c`);
    const wasm = join(dir, `${name}.wasm`);
    programs[`${name}.wasm`] = build(wasiCc, [c, ...WASM_FLAGS, '-o', wasm], wasm, c, log);
  }
  for (const name of ['spawn_latency', 'math']) {
    const c = join(src, `${name}.c`);
    const native = join(dir, `${name}-native`);
    programs[`${name}-native`] = build('gcc', ['-O2', '-pthread', c, '-o', native], native, c, log);
  }
  return programs;
}
