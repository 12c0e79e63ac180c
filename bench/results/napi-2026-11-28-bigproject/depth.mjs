// us per call, by the directory's depth below '/': the validation readlink of a cached directory's
// /proc/<pid>/fd/<fd> (the kernel's d_path walks up the dentry tree), a missing name's lstat
// through it, and, for comparison, the absolute path's lstat (node:wasi's one call). 20,000 calls each.
import { lstatSync, mkdirSync, openSync, readlinkSync, constants } from 'node:fs';
const N = 20000;
const FD = `/proc/${process.pid}/fd/`;
const time = (f) => { for (let i = 0; i < 2000; i++) f(); const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) f(); return Number(process.hrtime.bigint() - t) / N / 1000; };
const rows = [];
for (const depth of [2, 4, 8, 12]) {
  const dir = '/tmp/h52/depth' + '/d'.repeat(depth - 2);
  mkdirSync(dir, { recursive: true });
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  const link = `${FD}${fd}`;
  const L = { encoding: 'latin1' }, S = { bigint: true, throwIfNoEntry: false };
  rows.push({ depth, dir, readlink: time(() => readlinkSync(link, L)).toFixed(2), lstatProcMissing: time(() => lstatSync(`${link}/missing.ts`, S)).toFixed(2), lstatAbsMissing: time(() => lstatSync(`${dir}/missing.ts`, S)).toFixed(2) });
}
console.log(process.version);
console.table(rows);
