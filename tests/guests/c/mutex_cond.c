// pthread_mutex + pthread_cond: a bounded queue (capacity 4) between 2 producers and 2
// consumers; 2 x 500 items; consumers report how many items and their sum. Plus a mutex-protected
// counter incremented by 4 threads.
#include <pthread.h>
#include <stdio.h>

#define CAP 4
#define PER_PRODUCER 500

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static int queue[CAP], head, count, producers_left = 2;
static long consumed_sum, consumed_count;

static void *producer(void *arg) {
  int base = *(int *)arg;
  for (int i = 1; i <= PER_PRODUCER; i++) {
    pthread_mutex_lock(&mu);
    while (count == CAP) pthread_cond_wait(&not_full, &mu);
    queue[(head + count) % CAP] = base + i;
    count++;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&mu);
  }
  pthread_mutex_lock(&mu);
  producers_left--;
  pthread_cond_broadcast(&not_empty);
  pthread_mutex_unlock(&mu);
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (count == 0 && producers_left > 0) pthread_cond_wait(&not_empty, &mu);
    if (count == 0) {
      pthread_mutex_unlock(&mu);
      return NULL;
    }
    int v = queue[head];
    head = (head + 1) % CAP;
    count--;
    consumed_sum += v;
    consumed_count++;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&mu);
  }
}

static long counter;
static void *bump(void *arg) {
  (void)arg;
  for (int i = 0; i < 10000; i++) {
    pthread_mutex_lock(&mu);
    counter++;
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

int main(void) {
  pthread_t p[2], c[2], b[4];
  int bases[2] = {0, 1000};
  for (int i = 0; i < 2; i++) pthread_create(&c[i], NULL, consumer, NULL);
  for (int i = 0; i < 2; i++) pthread_create(&p[i], NULL, producer, &bases[i]);
  for (int i = 0; i < 2; i++) pthread_join(p[i], NULL);
  for (int i = 0; i < 2; i++) pthread_join(c[i], NULL);
  printf("consumed %ld items, sum %ld\n", consumed_count, consumed_sum);
  for (int i = 0; i < 4; i++) pthread_create(&b[i], NULL, bump, NULL);
  for (int i = 0; i < 4; i++) pthread_join(b[i], NULL);
  printf("counter %ld\n", counter);
  return 0;
}
