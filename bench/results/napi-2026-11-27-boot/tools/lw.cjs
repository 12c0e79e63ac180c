const t = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
const P = [['first', t()]];
const { workerData: d, parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const src = readFileSync(d.file, 'utf8'); P.push(['read', t()]);
let cachedData; try { cachedData = readFileSync(d.file + '.cache'); } catch {}
const script = new Script(src, { filename: d.file, cachedData }); P.push(['script', t()]);
globalThis.require = require; globalThis.__filename = d.file; globalThis.__spindle_worker = { init: { embed: {} }, code: new SharedArrayBuffer(8), script, file: undefined };
try { script.runInThisContext(); } catch (e) { }
P.push(['run', t()]);
if (!cachedData) require('node:fs').writeFileSync(d.file + '.cache', script.createCachedData());
parentPort.postMessage({ P, rej: script.cachedDataRejected });
