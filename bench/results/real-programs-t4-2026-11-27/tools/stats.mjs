// node --no-liftoff --no-wasm-lazy-compilation stats.mjs T N: runs ring_trace.wasm through createProgram (default
// pool options, as the CLI) and prints the pool's counters after the run.
import { createProgram, load } from '/work/wt/rayon-chromium/runtime/dist/index.js';
const [t, n] = process.argv.slice(2);
const out = [];
const program = createProgram(await load(new URL('./ring_trace.wasm', import.meta.url).pathname), { args: [t, n], stdin: '', stdout: (b) => out.push(Buffer.from(b)), stderr: (b) => out.push(Buffer.from(b)) });
const code = await program.start();
const s = Buffer.concat(out).toString();
console.log(s.split('\n').filter((l) => l.startsWith('RESULT')).join(''), JSON.stringify(program.poolStats()), 'code', code);
