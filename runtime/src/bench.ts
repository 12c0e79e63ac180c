/**
 * `spindle bench [--quick] [--threads 1,2,4] [--runs N] [--out DIR] [--only IDS]`: runs the
 * benchmark harness of the source tree (bench/harness/main.mjs, next to runtime/) in its own
 * Node process, with the same arguments and exit status. The benchmarks need the repository (guest
 * sources, the C toolchain wrapper, the baselines), so an installed npm package without it gets a
 * message that says where to run the command instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function benchCommand(args: string[], fail: (message: string, status: number) => never): never {
  const harness = fileURLToPath(new URL('../../bench/harness/main.mjs', import.meta.url));
  if (!existsSync(harness)) {
    fail("'spindle bench' runs from a clone of the spindle repository (it needs bench/harness/main.mjs next to runtime/); "
      + 'clone it and run `node runtime/dist/cli.js bench --quick` there', 2);
  }
  const r = spawnSync(process.execPath, [harness, ...args], { stdio: 'inherit' });
  if (r.error) fail(`could not start the benchmark harness: ${r.error.message}`, 1);
  process.exit(r.status ?? 1);
}
