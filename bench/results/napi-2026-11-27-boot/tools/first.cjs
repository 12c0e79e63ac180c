const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const cpu = process.threadCpuUsage ? (()=>{const u=process.threadCpuUsage();return (u.user+u.system)/1000})() : Number(fs.readFileSync('/proc/thread-self/schedstat','utf8').split(' ')[0])/1e6;
parentPort.postMessage(cpu);
