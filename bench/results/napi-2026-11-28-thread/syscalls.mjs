// syscalls.mjs: the node:fs calls of one cached-directory lookup, each alone in a loop of 20,000 (warm,
// third round printed), microseconds per call: the validation readlink of a /proc fd link, a lookup
// through it (hit, miss), and for comparison an absolute-path lstat (what node:wasi does per lookup,
// from C++) and realpath. Needs the replay project in /tmp/napiwasi/project.
import fs from 'node:fs';
const dir = '/tmp/napiwasi/project/src/' + fs.readdirSync('/tmp/napiwasi/project/src').find((n) => fs.statSync('/tmp/napiwasi/project/src/' + n).isDirectory());
const file = fs.readdirSync(dir)[0];
const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
const link = `/proc/${process.pid}/fd/${fd}`;
const L = { encoding: 'latin1' }, B = { bigint: true, throwIfNoEntry: false }, N = { throwIfNoEntry: false };
const tests = {
  'readlink latin1': () => fs.readlinkSync(link, L),
  'readlink buffer': () => fs.readlinkSync(link, 'buffer'),
  'lstat bigint hit': () => fs.lstatSync(`${link}/${file}`, B),
  'lstat bigint miss': () => fs.lstatSync(`${link}/missing.ts`, B),
  'lstat number hit': () => fs.lstatSync(`${link}/${file}`, N),
  'lstat abs path hit': () => fs.lstatSync(`${dir}/${file}`, B),
  'realpath.native link': () => fs.realpathSync.native(link),
};
const n = 20000;
for (let r = 0; r < 3; r++) for (const [k, f] of Object.entries(tests)) {
  for (let i = 0; i < 2000; i++) f();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  if (r === 2) console.log(k.padEnd(22), (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(2), 'us');
}
