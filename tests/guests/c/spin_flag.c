// Two threads that wait for each other by spinning on plain C11 atomics, never a futex wait or
// sched_yield: a ping-pong of ROUNDS turns. Natively (and with a worker per thread) only slow;
// two threads that share a JS thread (spindle's host worker, docs/threads-beyond-the-pool.md)
// finish only if the spinning one is preempted (runtime/src/preempt.ts).
//
//   spin_flag [ROUNDS]   prints: spin_flag rounds=R turns=T
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int turn; // even: ping's turn; odd: pong's
static int rounds = 8;

static void *player(void *arg) {
  int me = (int)(long)arg;
  for (int r = 0; r < rounds; r++) {
    while ((atomic_load(&turn) & 1) != me) { /* spin: nothing else */ }
    atomic_fetch_add(&turn, 1);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  pthread_t ping, pong;
  // pong first: it starts by spinning, waiting for ping's first turn.
  if (pthread_create(&pong, NULL, player, (void *)1L) != 0) return 1;
  if (pthread_create(&ping, NULL, player, (void *)0L) != 0) return 1;
  pthread_join(ping, NULL);
  pthread_join(pong, NULL);
  printf("spin_flag rounds=%d turns=%d\n", rounds, atomic_load(&turn));
  return atomic_load(&turn) == 2 * rounds ? 0 : 1;
}
