/**
 * The owner's side of the worker pool: the workers started before the first spawn (prewarm) and
 * the spare workers kept ahead of demand (top-up). Runs on the thread that runs the program (the
 * owner: Node's main thread, a page or a user's worker), which only ever waits asynchronously, so
 * starting a worker here never delays a program thread.
 *
 * Policy (measured: bench/pool, and ARCHITECTURE.md "Threads of a running program"):
 * - Prewarm: `threads` workers (default 2 x cores) start with the program's main worker, so a
 *   program that starts up to twice as many threads as cores at once finds them all booted. A
 *   worker that boots while the program's threads compute takes CPU time from them (on 2 cores
 *   that made T=4 cost 1.2-1.5x the time of T=2); one that boots during start-up delays the
 *   program's first instruction a little instead: the main worker waits for them before
 *   `_start` (pool-worker.ts PREWARM_WAIT_MS).
 * - Top-up: once a spawn has found no idle worker (the program runs more threads than the pool
 *   held: control.ts GROWN), a spawn that leaves fewer than SPARE (cores) workers on the idle
 *   stack wakes the owner (thread.ts `spawnThread`), whose pump calls `topUp`: it starts workers
 *   until SPARE are idle again (ready or booting). The next spawns then find a worker that booted
 *   meanwhile, and up to SPARE boots overlap instead of one boot per spawn (a chain of threads
 *   each starting the next). A spawn that finds none idle still starts a worker itself (Node) or
 *   asks the owner for it (browsers): the top-up runs ahead of that path, never instead of it,
 *   so no thread depends on the owner's event loop being free.
 *
 * An idle worker costs no CPU (it waits in Atomics.wait); starting one costs its boot (a Node
 * worker: ~25-30 ms of CPU on its own thread and ~8 MB).
 *
 * Thread rules: owner only. The slots it starts go on the idle stack before their workers boot
 * (their READY word stays 0 until they have an instance), so a spawn prefers workers that are
 * ready and takes a booting one only when none is.
 */
import type { Control } from './control.js';

export class PoolKeeper {
  /** `start(slot)` starts the worker of a reserved slot that is already on the idle stack. */
  constructor(private readonly ctl: Control, private readonly start: (slot: number) => void) {}

  /** Starts `count` workers before the first spawn (fewer if the pool's maximum is reached). */
  prewarm(count: number): void {
    for (let i = 0; i < count && this.startIdle(); i++) { /* started one */ }
  }

  /** Starts workers until SPARE are idle, once the pool has had to grow (control.ts `wantsTopUp`). */
  topUp(): void {
    while (this.ctl.wantsTopUp && this.startIdle()) { /* started one */ }
  }

  private startIdle(): boolean {
    const slot = this.ctl.reserveSlot();
    if (slot < 0) return false;
    this.ctl.pushIdle(slot);
    this.ctl.noteStarted();
    this.start(slot);
    return true;
  }
}
