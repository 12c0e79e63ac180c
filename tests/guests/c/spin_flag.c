// PLAYERS threads that take turns in a ring by spinning on a plain C11 atomic, never a futex
// wait or sched_yield: player k waits until turn % PLAYERS == k, then moves the turn on, ROUNDS
// times. Natively (and with a worker per thread) only slow; where threads share a JS thread
// (spindle's host workers, docs/threads-beyond-the-pool.md: with more players than host workers,
// two of them share one) it finishes only if the spinning thread is preempted
// (runtime/src/preempt.ts).
//
//   spin_flag [ROUNDS [PLAYERS]]   prints: spin_flag players=P rounds=R turns=T
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int turn;
static int rounds = 8, players = 2;

static void *player(void *arg) {
  int me = (int)(long)arg;
  for (int r = 0; r < rounds; r++) {
    while (atomic_load(&turn) % players != me) { /* spin: nothing else */ }
    atomic_fetch_add(&turn, 1);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  if (argc > 2) players = atoi(argv[2]);
  if (rounds < 1 || players < 2 || players > 64) { fprintf(stderr, "usage: spin_flag [ROUNDS [PLAYERS (2-64)]]\n"); return 2; }
  pthread_t t[64];
  // The last player first: it starts by spinning, waiting for the others' turns.
  for (int k = players - 1; k >= 0; k--) if (pthread_create(&t[k], NULL, player, (void *)(long)k) != 0) return 1;
  for (int k = 0; k < players; k++) pthread_join(t[k], NULL);
  printf("spin_flag players=%d rounds=%d turns=%d\n", players, rounds, atomic_load(&turn));
  return atomic_load(&turn) == rounds * players ? 0 : 1;
}
