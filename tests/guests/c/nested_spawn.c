// Threads that spawn threads: a binary tree of depth 4 (main + 2 + 4 + 8 + 16 = 31 threads in
// all), every inner node creates its two children and joins them while its own parent waits.
// Each node returns the size of its subtree; main prints the total. A spawn happens on a worker
// that was itself spawned, while its parent blocks in pthread_join.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define DEPTH 4

static void *node(void *arg) {
  intptr_t depth = (intptr_t)arg;
  if (depth == DEPTH) return (void *)1;
  pthread_t kids[2];
  for (int i = 0; i < 2; i++) {
    if (pthread_create(&kids[i], NULL, node, (void *)(depth + 1)) != 0) return (void *)-1000;
  }
  intptr_t size = 1;
  for (int i = 0; i < 2; i++) {
    void *r;
    pthread_join(kids[i], &r);
    size += (intptr_t)r;
  }
  return (void *)size;
}

int main(void) {
  printf("threads in the tree (main included): %d\n", (int)(intptr_t)node((void *)0));
  return 0;
}
