// The test helpers themselves (helpers.mjs), where a fault would hide or hang other tests.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { exitGuard, guest, runCliAsync } from './helpers.mjs';

exitGuard(after);

test('runCliAsync: its timeout ends a program the CLI restarted (relaunch.ts), and resolves', async () => {
  // forever.c never ends; being threaded, the CLI runs it in a second Node process. Killing only
  // the supervisor left that one running, holding the pipes open: the promise never settled.
  const r = await runCliAsync([guest('c', 'forever')], { timeoutMs: 3000 });
  assert.equal(r.signal, 'SIGKILL');
  assert.match(r.stdout, /^running\n/);
  // A killed process lingers until init reaps it: wait for the group to be gone (at most 10 s).
  for (let i = 0; i < 200 && groupAlive(r.pid); i++) await new Promise((res) => setTimeout(res, 50));
  assert.equal(groupAlive(r.pid), false, 'a process of the CLI\'s group is still running');
});

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (e) {
    if (e.code === 'ESRCH') return false;
    throw e;
  }
}
