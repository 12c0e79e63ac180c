const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const t = () => process.threadCpuUsage ? ((u) => (u.user + u.system) / 1000)(process.threadCpuUsage()) : Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
const n0 = process.moduleLoadList.length;
const a = t(); for (const m of workerData) require(m); const b = t();
parentPort.postMessage([b - a, process.moduleLoadList.slice(n0).filter(x=>x.startsWith('NativeModule')).join(',')]);
