// CLOCK_MONOTONIC is monotonic across threads, as on Linux: a reading taken after seeing another
// thread's reading (through an atomic hand-off) is never smaller. Two threads ping-pong 2,000
// times, each publishing its clock reading and checking the other's against its own; plus 50
// spawns where the new thread's first reading must not precede the spawner's last one.
// Prints "cross-thread monotonic: true" or the first violation.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 2000

static long long now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static _Atomic long long published;  // the last reading handed over
static atomic_int turn;              // whose turn: round * 2 + side
static atomic_int violations;

static void *side(void *arg) {
  int me = (int)(long)arg;
  for (int r = 0; r < ROUNDS; r++) {
    while (atomic_load(&turn) != r * 2 + me) {}
    long long seen = atomic_load(&published);
    long long t = now();
    if (t < seen) atomic_fetch_add(&violations, 1);
    atomic_store(&published, t);
    atomic_store(&turn, r * 2 + me + 1);
  }
  return NULL;
}

static long long spawned_start;
static void *first_reading(void *arg) {
  (void)arg;
  spawned_start = now();
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, side, (void *)0L);
  pthread_create(&b, NULL, side, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  int spawn_violations = 0;
  for (int i = 0; i < 50; i++) {
    pthread_t t;
    long long before = now();
    pthread_create(&t, NULL, first_reading, NULL);
    pthread_join(t, NULL);
    if (spawned_start < before) spawn_violations++;
  }
  int v = atomic_load(&violations);
  if (v == 0 && spawn_violations == 0) printf("cross-thread monotonic: true\n");
  else printf("cross-thread monotonic: false (%d ping-pong, %d spawn violations)\n", v, spawn_violations);
  return 0;
}
