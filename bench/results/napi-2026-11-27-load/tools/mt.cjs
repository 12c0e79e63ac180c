// node mt.cjs stock|direct DIR: main-thread CPU and wall of the load
const dir = process.argv[3];
const t0 = performance.now(); const c0 = process.threadCpuUsage(); const p0 = process.cpuUsage();
if (process.argv[2] === 'dropin') require(dir + '/runtime/examples/napi/node_modules/@rolldown/binding-wasm32-wasi');
else if (process.argv[2] === 'stock') require(dir + '/tests/napi/stock/node_modules/@rolldown/binding-wasm32-wasi');
else { process.env.SPINDLE_NAPI_PROJECT = '/work/scratch/napi-load/project'; require(dir + '/tests/napi/rolldown-direct.cjs'); }
const c = process.threadCpuUsage(c0); const p = process.cpuUsage(p0);
console.log(process.argv[2], 'wall', Math.round(performance.now() - t0), 'main', Math.round((c.user + c.system) / 1000), 'proc', Math.round((p.user + p.system) / 1000));
