const t = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
const P = [['first', t()]];
const { workerData: d, parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const src = readFileSync(d.file, 'utf8');
const cachedData = d.cache ? readFileSync(d.cache) : undefined; P.push(['read', t()]);
const script = new Script(src, { filename: d.file, cachedData }); P.push(['script', t()]);
parentPort.postMessage({ P, rej: script.cachedDataRejected });
