// The peer-problem addon (build/napi/peer.wasm) on spindle/napi, as peer-stock.cjs runs it on the
// stock stack: SANDBOX is the one host directory, at /sandbox. Prints the call's result.
//   node tests/napi/peer-spindle.mjs SANDBOX CALL ARG
import { loadNapiSync } from '../../runtime/dist/napi/index.js';

const [sandbox, call, arg] = process.argv.slice(2);
// Long enough for a loaded machine to start the thread and see it trap (the trap ends the process
// at once); a run that outlives it exits 0 and fails the test.
const LINGER_MS = 60_000;
const peer = loadNapiSync(new URL('../../build/napi/peer.wasm', import.meta.url), { dirs: [{ host: sandbox, guest: '/sandbox' }] });
console.log(peer[call](arg));
// trapOnThread detach: the process goes on (as a server would) while the thread traps.
if (call === 'trapOnThread' && arg !== 'join') setTimeout(() => {}, LINGER_MS);
