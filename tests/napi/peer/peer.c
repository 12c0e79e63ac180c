// A Node-API addon (C, emnapi, wasm32-wasip1-threads) that does what the stock stack
// (@napi-rs/wasm-runtime: @emnapi/wasi-threads + node:wasi or @tybys/wasm-util) gets wrong:
//
//   readOnOtherThread(path)  opens `path` on the calling thread, reads it on a new thread
//                            (one fd table for all threads: the stock stack has one per thread)
//   readPath(path)           opens and reads `path` (a `..` path must not leave the preopen)
//   nestedSpawn(dir)         the calling thread joins thread A, which starts thread B and joins
//                            it; B writes dir/nested.txt (a spawn from a thread while the main
//                            thread blocks: the stock stack routes spawns through the main thread)
//   trapOnThread(how)        a new thread traps; how = "join": the calling thread waits for it
//                            (pthread_join, forever), else it returns "started" at once
//   contendedLock(ms)        a new thread takes a mutex and holds it for `ms` ms (default 50);
//                            the calling thread then takes it too, so it waits for it (a futex
//                            wait on the calling thread: on a page's thread, where Atomics.wait
//                            throws, the runtime must wait another way), then joins the thread
//
// Each returns "ok: <first bytes>" or "error: <strerror>". Built by build.sh.
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATH 1024
#define MAX_TEXT 128

/** The first string argument, or an empty string. */
static void arg_string(napi_env env, napi_callback_info info, char *out) {
  size_t argc = 1, len = 0;
  napi_value argv[1];
  out[0] = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc >= 1) napi_get_value_string_utf8(env, argv[0], out, MAX_PATH, &len);
}

static napi_value string(napi_env env, const char *s) {
  napi_value v;
  napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
  return v;
}

/** "ok: <up to MAX_TEXT bytes of fd>" or "error: ..." into out. */
static void read_fd(int fd, char *out) {
  char buf[MAX_TEXT + 1];
  ssize_t n = read(fd, buf, MAX_TEXT);
  if (n < 0) { snprintf(out, MAX_PATH, "error: %s", strerror(errno)); return; }
  buf[n] = 0;
  snprintf(out, MAX_PATH, "ok: %s", buf);
}

struct fd_job { int fd; char result[MAX_PATH]; };

static void *read_job(void *p) {
  struct fd_job *job = p;
  read_fd(job->fd, job->result);
  return NULL;
}

static napi_value read_on_other_thread(napi_env env, napi_callback_info info) {
  char path[MAX_PATH], out[MAX_PATH];
  arg_string(env, info, path);
  struct fd_job job = { .fd = open(path, O_RDONLY) };
  if (job.fd < 0) { snprintf(out, sizeof out, "error: open: %s", strerror(errno)); return string(env, out); }
  pthread_t t;
  if (pthread_create(&t, NULL, read_job, &job) != 0) { close(job.fd); return string(env, "error: pthread_create"); }
  pthread_join(t, NULL);
  close(job.fd);
  return string(env, job.result);
}

static napi_value read_path(napi_env env, napi_callback_info info) {
  char path[MAX_PATH], out[MAX_PATH];
  arg_string(env, info, path);
  int fd = open(path, O_RDONLY);
  if (fd < 0) { snprintf(out, sizeof out, "error: open: %s", strerror(errno)); return string(env, out); }
  read_fd(fd, out);
  close(fd);
  return string(env, out);
}

struct nested_job { char path[MAX_PATH]; int ok; };

static void *inner(void *p) {
  struct nested_job *job = p;
  FILE *f = fopen(job->path, "w");
  if (f) { fputs("written by a thread of a thread", f); job->ok = fclose(f) == 0; }
  return NULL;
}

static void *outer(void *p) {
  pthread_t t;
  if (pthread_create(&t, NULL, inner, p) == 0) pthread_join(t, NULL);
  return NULL;
}

static napi_value nested_spawn(napi_env env, napi_callback_info info) {
  char dir[MAX_PATH], out[MAX_PATH];
  arg_string(env, info, dir);
  struct nested_job job = { .ok = 0 };
  snprintf(job.path, sizeof job.path, "%s/nested.txt", dir);
  pthread_t t;
  if (pthread_create(&t, NULL, outer, &job) != 0) return string(env, "error: pthread_create");
  pthread_join(t, NULL);
  if (!job.ok) return string(env, "error: the inner thread could not write");
  int fd = open(job.path, O_RDONLY);
  if (fd < 0) { snprintf(out, sizeof out, "error: open: %s", strerror(errno)); return string(env, out); }
  read_fd(fd, out);
  close(fd);
  return string(env, out);
}

static void *trap(void *p) {
  (void)p;
  __builtin_trap();
}

static napi_value trap_on_thread(napi_env env, napi_callback_info info) {
  char how[MAX_PATH];
  arg_string(env, info, how);
  pthread_t t;
  if (pthread_create(&t, NULL, trap, NULL) != 0) return string(env, "error: pthread_create");
  if (strcmp(how, "join") == 0) pthread_join(t, NULL);
  return string(env, "started");
}

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
/** Set by the holder once it has the lock; how long it keeps it. */
static int lock_held, hold_ms;

static void *hold_lock(void *p) {
  (void)p;
  pthread_mutex_lock(&shared_lock);
  __atomic_store_n(&lock_held, 1, __ATOMIC_SEQ_CST);
  struct timespec t = { hold_ms / 1000, (hold_ms % 1000) * 1000000L };
  nanosleep(&t, NULL);
  pthread_mutex_unlock(&shared_lock);
  return NULL;
}

static napi_value contended_lock(napi_env env, napi_callback_info info) {
  char arg[MAX_PATH];
  arg_string(env, info, arg);
  hold_ms = atoi(arg) > 0 ? atoi(arg) : 50;
  __atomic_store_n(&lock_held, 0, __ATOMIC_SEQ_CST);
  pthread_t t;
  if (pthread_create(&t, NULL, hold_lock, NULL) != 0) return string(env, "error: pthread_create");
  while (!__atomic_load_n(&lock_held, __ATOMIC_SEQ_CST)) {} // the holder starts on another thread
  pthread_mutex_lock(&shared_lock); // held for hold_ms more: this thread waits
  pthread_mutex_unlock(&shared_lock);
  pthread_join(t, NULL);
  return string(env, "ok: locked after the holder");
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
    { "readOnOtherThread", NULL, read_on_other_thread, NULL, NULL, NULL, napi_default, NULL },
    { "readPath", NULL, read_path, NULL, NULL, NULL, napi_default, NULL },
    { "nestedSpawn", NULL, nested_spawn, NULL, NULL, NULL, napi_default, NULL },
    { "trapOnThread", NULL, trap_on_thread, NULL, NULL, NULL, napi_default, NULL },
    { "contendedLock", NULL, contended_lock, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}
