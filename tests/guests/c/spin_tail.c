// spin_flag.c's ring, but every wait spins through a cycle of tail calls instead of a loop:
// PLAYERS threads take turns by spinning on a plain C11 atomic, never a futex wait or
// sched_yield; player k waits until turn % PLAYERS == k by bouncing between two functions that
// call each other in tail position (wasm `return_call`: a state machine written as functions, as
// an interpreter's dispatch or a continuation-passing spin-wait may be), then moves the turn on,
// ROUNDS times. The cycle has no `loop` and its stack does not grow. Natively (and with a worker
// per thread) only slow; where threads share a JS thread (spindle's host workers,
// docs/threads-beyond-the-pool.md, item 5) it finishes only if a thread spinning through tail
// calls is preempted too (runtime/src/preempt.ts).
//
// Built with -mtail-call (the line below; tests/guests/build.sh reads it).
// wasi-cc flags: -mtail-call
//
//   spin_tail [ROUNDS [PLAYERS]]   prints: spin_tail players=P rounds=R turns=T
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int turn;
static int rounds = 8, players = 2;

// The two states of the wait. noinline keeps them two functions (inlined into one, the self tail
// call would become a loop); musttail makes the compiler emit return_call or fail the build.
__attribute__((noinline)) static long spin_again(int me, long spins);

__attribute__((noinline)) static long spin_look(int me, long spins) {
  if (atomic_load_explicit(&turn, memory_order_acquire) % players == me) return spins;
  __attribute__((musttail)) return spin_again(me, spins + 1);
}

__attribute__((noinline)) static long spin_again(int me, long spins) {
  __attribute__((musttail)) return spin_look(me, spins);
}

static void *player(void *arg) {
  int me = (int)(long)arg;
  long spins = 0;
  for (int r = 0; r < rounds; r++) {
    spins = spin_look(me, spins);
    atomic_fetch_add(&turn, 1);
  }
  return (void *)spins;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (argc > 2) players = atoi(argv[2]);
  if (rounds < 1 || players < 2 || players > 64) { fprintf(stderr, "usage: spin_tail [ROUNDS [PLAYERS (2-64)]]\n"); return 2; }
  pthread_t t[64];
  // The last player first: it starts by spinning, waiting for the others' turns.
  for (int k = players - 1; k >= 0; k--) if (pthread_create(&t[k], NULL, player, (void *)(long)k) != 0) return 1;
  for (int k = 0; k < players; k++) pthread_join(t[k], NULL);
  printf("spin_tail players=%d rounds=%d turns=%d\n", players, rounds, atomic_load(&turn));
  return atomic_load(&turn) == rounds * players ? 0 : 1;
}
