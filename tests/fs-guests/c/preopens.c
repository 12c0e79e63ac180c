/* wasi-libc's preopen table as a C program sees it: pins the behaviour of the libc that runs
 * today (wasi-libc's preopens.c, chdir.c and posix.c in Rust's self-contained
 * wasm32-wasip1-threads libc.a) so that a replacement of the table can be checked against it.
 *
 *   1. absolute paths: open/stat under /tmp, paths under no preopen, "/tmp", "/tmp/", "//tmp//x";
 *   2. __wasilibc_find_abspath / __wasilibc_find_relpath called directly: fd, abs_prefix and
 *      relative part (no normalisation: "/tmp/../x" gives "../x"; only whole components match);
 *   3. relative paths and the cwd (chdir, getcwd, ".", "./x", "..");
 *   4. __wasilibc_register_preopened_fd: the longest prefix wins, the latest registration wins
 *      among equal prefixes, "/alias/" and "./x" prefixes;
 *   5. with the argument `threads`: 4 threads opening and stat-ing their own absolute paths
 *      while the main thread registers new preopens (some of them for those very paths);
 *   6. a preopen for "/" (registered as ".") and __wasilibc_reset_preopens.
 *
 * This program links chdir, so libc's own path functions (open, stat, ...) and
 * __wasilibc_find_relpath go through chdir.c's __wasilibc_find_relpath_alloc: a relative path
 * is first joined to the cwd, and the relative part is COPIED into the caller's buffer (ERANGE
 * if it does not fit). A program without chdir gets preopens.c's plain variant instead:
 * __wasilibc_find_relpath is then __wasilibc_find_abspath (every path taken as absolute, the
 * relative part an interior pointer into `path`, the buffer unused, never ERANGE).
 *
 * Fds: spindle's /tmp preopen is >= 0x40000000 in the in-program build, the runtime's fd (3..)
 * in the FS_GUEST_PLAIN build; check.h's SPINDLE_FD covers both. */
#include "check.h"
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wasi/libc-find-relpath.h>
#include <wasi/libc.h>

/* wasi-libc defines it (preopens.c) but its public headers here do not declare it. */
void __wasilibc_reset_preopens(void);

static int tmp_fd; /* /tmp's preopen, as wasi-libc found it at start-up */

/* Reports a lookup that did not give (want_fd, want_abs, want_rel); want_fd -1 means ENOENT. */
static void lookup_is(int line, const char *fn, const char *path, int fd, const char *abs,
                      const char *rel, int want_fd, const char *want_abs, const char *want_rel) {
  int ok = want_fd == -1 ? fd == -1 && errno == ENOENT
                         : fd == want_fd && abs != NULL && rel != NULL &&
                               strcmp(abs, want_abs) == 0 && strcmp(rel, want_rel) == 0;
  if (!ok) {
    fprintf(stderr, "%s:%d: %s(\"%s\") = %d abs \"%s\" rel \"%s\" (errno %d), want %d \"%s\" \"%s\"\n",
            __FILE__, line, fn, path, fd, fd == -1 || !abs ? "-" : abs, fd == -1 || !rel ? "-" : rel,
            errno, want_fd, want_abs ? want_abs : "-", want_rel ? want_rel : "-");
    exit(1);
  }
}

/* __wasilibc_find_abspath: the relative part is the tail of `path` itself (no copy), except that
 * an empty tail is the string "." (the header says the result "may be" an interior pointer). */
static void abspath_is(int line, const char *path, int want_fd, const char *want_abs,
                       const char *want_rel) {
  const char *abs = NULL, *rel = NULL;
  errno = 0;
  int fd = __wasilibc_find_abspath(path, &abs, &rel);
  lookup_is(line, "__wasilibc_find_abspath", path, fd, abs, rel, want_fd, want_abs, want_rel);
  if (want_fd != -1 && strcmp(want_rel, ".") != 0 &&
      rel != path + strlen(path) - strlen(want_rel)) {
    fprintf(stderr, "%s:%d: find_abspath(\"%s\"): relative part not inside the path\n", __FILE__,
            line, path);
    exit(1);
  }
}

/* __wasilibc_find_relpath with a caller buffer (chdir linked: cwd-relative, copied into it). */
static void relpath_is(int line, const char *path, int want_fd, const char *want_abs,
                       const char *want_rel) {
  char buf[PATH_MAX];
  char *rel = buf;
  const char *abs = NULL;
  errno = 0;
  int fd = __wasilibc_find_relpath(path, &abs, &rel, sizeof buf);
  lookup_is(line, "__wasilibc_find_relpath", path, fd, abs, rel, want_fd, want_abs, want_rel);
  if (want_fd != -1 && rel != buf) {
    fprintf(stderr, "%s:%d: find_relpath(\"%s\"): relative part not in the caller's buffer\n",
            __FILE__, line, path);
    exit(1);
  }
}

#define ABS(path, fd, abs, rel) abspath_is(__LINE__, path, fd, abs, rel)
#define ABS_NONE(path) abspath_is(__LINE__, path, -1, NULL, NULL)
#define REL(path, fd, abs, rel) relpath_is(__LINE__, path, fd, abs, rel)
#define REL_NONE(path) relpath_is(__LINE__, path, -1, NULL, NULL)

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && SPINDLE_FD(fd));
  CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  CHECK(close(fd) == 0);
}

/* The whole content of `path` is `text`. */
static int has_text(const char *path, const char *text) {
  char buf[128];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf);
  CHECK(close(fd) == 0);
  return n == (ssize_t)strlen(text) && memcmp(buf, text, (size_t)n) == 0;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cwd_is(const char *want) {
  char buf[PATH_MAX];
  return getcwd(buf, sizeof buf) == buf && strcmp(buf, want) == 0;
}

/* 1. Absolute paths, as open/stat see them. */
static void absolute_paths(void) {
  struct stat st;
  write_file("/tmp/p.txt", "abs");
  CHECK(stat("/tmp/p.txt", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 3);
  CHECK(has_text("/tmp/p.txt", "abs"));
  /* Repeated slashes anywhere, and a trailing one on the preopen itself. */
  CHECK(has_text("//tmp//p.txt", "abs"));
  CHECK(is_dir("/tmp") && is_dir("/tmp/") && is_dir("//tmp//") && is_dir("/tmp/."));
  CHECK(has_text("/tmp/./p.txt", "abs"));
  /* Under no preopen: ENOENT, for open, stat, mkdir and creation alike (the lookup's errno;
   * some wasi-libc versions' posix.c replace it with ENOTCAPABLE, this one does not). */
  CHECK_ERR(open("/nope/x", O_RDONLY), ENOENT);
  CHECK_ERR(open("/nope/x", O_WRONLY | O_CREAT, 0644), ENOENT);
  CHECK_ERR(stat("/nope/x", &st), ENOENT);
  CHECK_ERR(mkdir("/nope", 0755), ENOENT);
  /* Only whole components match: /tmpx is not under /tmp. */
  CHECK_ERR(open("/tmpx/y", O_WRONLY | O_CREAT, 0644), ENOENT);
  CHECK_ERR(stat("/tmpx", &st), ENOENT);
  /* "/" itself is under no preopen (nothing is registered for it). */
  CHECK_ERR(stat("/", &st), ENOENT);
  /* A leading "/./" is not skipped for absolute paths: "./tmp/p.txt" matches no prefix. */
  CHECK_ERR(stat("/./tmp/p.txt", &st), ENOENT);
  /* No normalisation: "/tmp/../x" is "../x" under /tmp, which leaves the preopen. */
  CHECK_ESCAPE(open("/tmp/../x", O_RDONLY));
  CHECK_ESCAPE(stat("/tmp/../tmp/p.txt", &st));
}

/* 2. The lookup functions themselves (cwd is "/"). */
static void lookups(void) {
  ABS("/tmp/a/b", tmp_fd, "tmp", "a/b");
  ABS("/tmp", tmp_fd, "tmp", ".");
  ABS("/tmp/", tmp_fd, "tmp", ".");
  ABS("/tmp/.", tmp_fd, "tmp", ".");
  ABS("//tmp//x", tmp_fd, "tmp", "x");
  ABS("/tmp/x/", tmp_fd, "tmp", "x/"); /* a trailing slash stays on the relative part */
  ABS("/tmp/../x", tmp_fd, "tmp", "../x");
  ABS("/tmp/./x", tmp_fd, "tmp", "./x");
  ABS("/tmp/a//b", tmp_fd, "tmp", "a//b");
  ABS("tmp/x", tmp_fd, "tmp", "x"); /* find_abspath takes every path as absolute */
  ABS_NONE("/tmpx/y");
  ABS_NONE("/tmpx");
  ABS_NONE("/tm");
  ABS_NONE("/nope/x");
  ABS_NONE("/");
  ABS_NONE("");
  ABS_NONE("/./tmp/x"); /* only leading '/'s are skipped, not "./" */
  ABS_NONE("/TMP/x");   /* bytes compared as they are */

  REL("/tmp/a/b", tmp_fd, "tmp", "a/b");
  REL("/tmp", tmp_fd, "tmp", ".");
  REL("/tmp/", tmp_fd, "tmp", ".");
  REL("//tmp//x", tmp_fd, "tmp", "x");
  REL("/tmp/../x", tmp_fd, "tmp", "../x");
  REL_NONE("/tmpx/y");
  REL_NONE("/nope/x");
  REL_NONE("/");
  /* Relative to the cwd "/": "tmp/x" and "./tmp/x" are /tmp/x; "." and "" are "/" (none). */
  REL("tmp/x", tmp_fd, "tmp", "x");
  REL("./tmp/x", tmp_fd, "tmp", "x");
  REL_NONE(".");
  REL_NONE("");
  REL_NONE("rel");

  /* chdir linked: the relative part must fit the caller's buffer with its NUL, else ERANGE. */
  char small[4];
  char *rel = small;
  const char *abs = NULL;
  errno = 0;
  CHECK(__wasilibc_find_relpath("/tmp/abcd", &abs, &rel, sizeof small) == -1 && errno == ERANGE);
  rel = small;
  CHECK(__wasilibc_find_relpath("/tmp/abc", &abs, &rel, sizeof small) == tmp_fd);
  CHECK(rel == small && strcmp(small, "abc") == 0 && strcmp(abs, "tmp") == 0);

  /* From libc's functions: a relative path before any chdir is relative to "/". */
  CHECK(has_text("tmp/p.txt", "abs"));
  CHECK(has_text("./tmp/p.txt", "abs"));
  CHECK_ERR(open("p.txt", O_RDONLY), ENOENT);
  CHECK_ERR(open("rel", O_WRONLY | O_CREAT, 0644), ENOENT);
}

/* 3. Relative paths and the cwd. */
static void cwd(void) {
  struct stat st;
  CHECK(cwd_is("/"));
  /* "/" has no preopen, so chdir("/") fails (see root_preopen for when it works). */
  CHECK_ERR(chdir("/"), ENOENT);
  CHECK_ERR(chdir("/nope"), ENOENT);
  CHECK_ERR(chdir("/tmp/missing"), ENOENT);
  CHECK_ERR(chdir("/tmp/p.txt"), ENOTDIR);
  CHECK(cwd_is("/"));

  CHECK(chdir("/tmp") == 0);
  CHECK(cwd_is("/tmp"));
  write_file("rel", "relative");
  CHECK(stat("/tmp/rel", &st) == 0 && st.st_size == 8);
  CHECK(has_text("rel", "relative") && has_text("./rel", "relative"));
  CHECK(has_text("/tmp/rel", "relative"));
  CHECK(is_dir(".") && is_dir("./") && is_dir(""));
  REL("rel", tmp_fd, "tmp", "rel");
  REL("./rel", tmp_fd, "tmp", "rel");
  REL("././rel", tmp_fd, "tmp", "./rel"); /* only one leading "./" is dropped */
  REL(".", tmp_fd, "tmp", ".");
  REL("./", tmp_fd, "tmp", ".");
  REL("", tmp_fd, "tmp", ".");
  REL("../x", tmp_fd, "tmp", "../x");
  REL("/tmp/rel", tmp_fd, "tmp", "rel");
  ABS_NONE("rel"); /* find_abspath ignores the cwd: "rel" is "/rel" */
  /* ".." is not resolved against the cwd: "../tmp/rel" is "../tmp/rel" under /tmp. */
  CHECK_ESCAPE(open("../tmp/rel", O_RDONLY));

  /* Spellings of the same directory are kept as given (no normalisation). */
  CHECK(chdir("/tmp/") == 0 && cwd_is("/tmp"));
  CHECK(chdir("//tmp") == 0 && cwd_is("/tmp"));
  CHECK(chdir(".") == 0 && cwd_is("/tmp"));
  CHECK(mkdir("sub", 0755) == 0);
  write_file("sub/s.txt", "in sub");
  CHECK(chdir("sub") == 0 && cwd_is("/tmp/sub"));
  CHECK(has_text("s.txt", "in sub"));
  REL("s.txt", tmp_fd, "tmp", "sub/s.txt");
  CHECK(chdir("..") == 0 && cwd_is("/tmp/sub/.."));
  CHECK(has_text("rel", "relative")); /* "/tmp/sub/../rel": "sub/../rel" under /tmp */
  REL("rel", tmp_fd, "tmp", "sub/../rel");
  CHECK(chdir("/tmp/sub/") == 0 && cwd_is("/tmp/sub/"));
  REL("s.txt", tmp_fd, "tmp", "sub/s.txt"); /* no doubled slash after a cwd ending in '/' */
  CHECK(chdir("/tmp") == 0 && cwd_is("/tmp"));
  /* A failed chdir leaves the cwd alone. */
  CHECK_ERR(chdir("/nope"), ENOENT);
  CHECK(cwd_is("/tmp"));
  CHECK(unlink("sub/s.txt") == 0 && rmdir("sub") == 0);
}

/* 4. Registered preopens: longest prefix, then latest registration. Runs with cwd /tmp. */
static int d_fd, e_fd, file_fd;

static void registered(void) {
  CHECK(mkdir("/tmp/d", 0755) == 0 && mkdir("/tmp/e", 0755) == 0);
  write_file("/tmp/d/f", "in d");
  write_file("/tmp/e/f", "in e");
  d_fd = open("/tmp/d", O_RDONLY | O_DIRECTORY);
  e_fd = open("/tmp/e", O_RDONLY | O_DIRECTORY);
  CHECK(d_fd >= 0 && SPINDLE_FD(d_fd) && e_fd >= 0 && SPINDLE_FD(e_fd));

  /* A preopen under another: the longer prefix wins, whole components only. */
  CHECK(__wasilibc_register_preopened_fd(d_fd, "/tmp/d") == 0);
  ABS("/tmp/d/f", d_fd, "tmp/d", "f");
  ABS("/tmp/d", d_fd, "tmp/d", ".");
  ABS("/tmp/d/", d_fd, "tmp/d", ".");
  ABS("/tmp/dd/x", tmp_fd, "tmp", "dd/x");
  ABS("/tmp/x", tmp_fd, "tmp", "x");
  REL("/tmp/d/f", d_fd, "tmp/d", "f");
  REL("d/f", d_fd, "tmp/d", "f"); /* cwd /tmp */
  CHECK(has_text("/tmp/d/f", "in d") && has_text("d/f", "in d"));

  /* The same prefix again (another directory): the later registration wins. */
  CHECK(__wasilibc_register_preopened_fd(e_fd, "/tmp/d") == 0);
  ABS("/tmp/d/f", e_fd, "tmp/d", "f");
  CHECK(has_text("/tmp/d/f", "in e"));
  CHECK(__wasilibc_register_preopened_fd(d_fd, "tmp/d") == 0); /* same prefix, no '/' */
  ABS("/tmp/d/f", d_fd, "tmp/d", "f");
  CHECK(has_text("/tmp/d/f", "in d"));
  /* A prefix registered with a trailing slash is stored with it: "/alias/x" and "/alias/"
   * match, "/alias" itself does NOT (the byte after "alias" must be '/' or NUL, and the
   * stored prefix's '/' must be in the path too). */
  CHECK(__wasilibc_register_preopened_fd(d_fd, "/alias/") == 0);
  ABS("/alias/f", d_fd, "alias/", "f");
  ABS("/alias/", d_fd, "alias/", ".");
  ABS("/alias//f", d_fd, "alias/", "f");
  ABS_NONE("/alias");
  ABS_NONE("/aliasx/f");
  CHECK(has_text("/alias/f", "in d"));
  CHECK(is_dir("/alias/"));
  struct stat st;
  CHECK_ERR(stat("/alias", &st), ENOENT);
  /* The trailing '/' counts toward the prefix length: a later "/alias" (5 bytes) loses
   * "/alias/f" to the earlier "/alias/" (6 bytes) but is the only match for "/alias". */
  CHECK(__wasilibc_register_preopened_fd(e_fd, "/alias") == 0);
  ABS("/alias/f", d_fd, "alias/", "f");
  ABS("/alias", e_fd, "alias", ".");
  CHECK(has_text("/alias/f", "in d"));

  /* Leading "/" and "./" (repeatedly) are stripped from a registered prefix; a "./x" prefix
   * is the absolute /x. (Lookups strip only leading '/'s: "/./x/f" matches nothing.) */
  CHECK(__wasilibc_register_preopened_fd(e_fd, "./x") == 0);
  ABS("/x/f", e_fd, "x", "f");
  ABS("/x", e_fd, "x", ".");
  ABS_NONE("/./x/f");
  CHECK(has_text("/x/f", "in e"));
  CHECK(__wasilibc_register_preopened_fd(d_fd, "/././/y/") == 0);
  ABS("/y/f", d_fd, "y/", "f");
  CHECK(has_text("/y/f", "in d"));
  /* Prefixes are not normalised inside: "z//w" only matches paths spelled with "//". */
  CHECK(__wasilibc_register_preopened_fd(e_fd, "/z//w") == 0);
  ABS("/z//w/f", e_fd, "z//w", "f");
  ABS_NONE("/z/w/f");

  /* The fd is not checked: any fd (here a regular file's) is accepted and handed out. */
  file_fd = open("/tmp/p.txt", O_RDONLY);
  CHECK(file_fd >= 0);
  CHECK(__wasilibc_register_preopened_fd(file_fd, "/filealias") == 0);
  ABS("/filealias/x", file_fd, "filealias", "x");
  /* (file_fd stays open: the table refers to it; root_preopen checks it outlives a reset.) */
}

/* 5. Threads: lookups of their own absolute paths while preopens are being registered. */
#define WORKERS 4
#define ROUNDS 3000
#define FILES 4
#define ALIASES 400

static atomic_int workers_started, workers_done;
static int th_fd[WORKERS] = {-1, -1, -1, -1};

static void *worker(void *arg) {
  int id = (int)(long)arg;
  char path[64], want[64], dir[32];
  snprintf(dir, sizeof dir, "tmp/th%d", id);
  atomic_fetch_add(&workers_started, 1);
  for (int n = 0; n < ROUNDS; n++) {
    int k = n % FILES;
    snprintf(path, sizeof path, "/tmp/th%d/f%d", id, k);
    snprintf(want, sizeof want, "thread %d file %d", id, k);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == (off_t)strlen(want));
    CHECK(has_text(path, want));
    /* Through /tmp, or through this thread's directory once the main thread registered it. */
    const char *abs = NULL, *rel = NULL;
    int fd = __wasilibc_find_abspath(path, &abs, &rel);
    CHECK((fd == tmp_fd && strcmp(abs, "tmp") == 0 && strcmp(rel, path + 5) == 0) ||
          (fd == th_fd[id] && strcmp(abs, dir) == 0 && strcmp(rel, path + 5 + 4) == 0));
  }
  atomic_fetch_add(&workers_done, 1);
  return NULL;
}

static void threads(void) {
  char path[64], want[64];
  for (int i = 0; i < WORKERS; i++) {
    snprintf(path, sizeof path, "/tmp/th%d", i);
    CHECK(mkdir(path, 0755) == 0);
    for (int k = 0; k < FILES; k++) {
      snprintf(path, sizeof path, "/tmp/th%d/f%d", i, k);
      snprintf(want, sizeof want, "thread %d file %d", i, k);
      write_file(path, want);
    }
    snprintf(path, sizeof path, "/tmp/th%d", i);
    th_fd[i] = open(path, O_RDONLY | O_DIRECTORY);
    CHECK(th_fd[i] >= 0);
  }
  pthread_t t[WORKERS];
  for (long i = 0; i < WORKERS; i++) CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
  /* Once every worker runs, register ALIASES preopens (the table grows several times
   * meanwhile) and go on checking one until every worker is done; in the second half every 8th
   * is a thread's own directory under its own /tmp/thN path (so the workers' lookups switch
   * from /tmp's fd to that directory's on the way). */
  while (atomic_load(&workers_started) < WORKERS) sched_yield();
  int regs = 0;
  while (regs < ALIASES || atomic_load(&workers_done) < WORKERS) {
    if (regs == ALIASES) {
      CHECK(has_text("/alias0/f0", "thread 0 file 0"));
      continue;
    }
    int own = regs >= ALIASES / 2 && regs % 8 == 0;
    int i = own ? regs / 8 % WORKERS : regs % WORKERS;
    char alias[32];
    if (own) snprintf(alias, sizeof alias, "/tmp/th%d", i);
    else snprintf(alias, sizeof alias, "/alias%d", regs);
    CHECK(__wasilibc_register_preopened_fd(th_fd[i], alias) == 0);
    snprintf(path, sizeof path, "%s/f%d", alias, regs % FILES);
    snprintf(want, sizeof want, "thread %d file %d", i, regs % FILES);
    CHECK(has_text(path, want));
    regs++;
  }
  for (int i = 0; i < WORKERS; i++) CHECK(pthread_join(t[i], NULL) == 0);
  /* Every alias still resolves to its directory. */
  for (int r = 0; r < ALIASES; r++) {
    if (r >= ALIASES / 2 && r % 8 == 0) continue;
    char alias[32];
    snprintf(alias, sizeof alias, "/alias%d/f0", r);
    snprintf(want, sizeof want, "alias%d", r);
    ABS(alias, th_fd[r % WORKERS], want, "f0");
  }
  for (int i = 0; i < WORKERS; i++) {
    snprintf(path, sizeof path, "/tmp/th%d/f1", i);
    snprintf(want, sizeof want, "tmp/th%d", i);
    ABS(path, th_fd[i], want, "f1");
  }
}

/* 6. A preopen for "/" (any of "/", ".", "./", "" is stored as the empty prefix), then a reset. */
static void root_preopen(void) {
  CHECK(mkdir("/tmp/root", 0755) == 0);
  int root_fd = open("/tmp/root", O_RDONLY | O_DIRECTORY);
  CHECK(root_fd >= 0);
  CHECK(__wasilibc_register_preopened_fd(root_fd, ".") == 0);
  /* The empty prefix matches every path, at length 0: longer prefixes still win. */
  ABS("/nope/x", root_fd, "", "nope/x");
  ABS("/", root_fd, "", ".");
  ABS("", root_fd, "", ".");
  ABS("/tmpx/y", root_fd, "", "tmpx/y");
  ABS("/./tmp/x", root_fd, "", "./tmp/x");
  ABS("/tmp/x", tmp_fd, "tmp", "x");
  ABS("/alias", e_fd, "alias", ".");
  /* Now chdir("/") works, and "/" is that directory. */
  CHECK(chdir("/") == 0 && cwd_is("/"));
  write_file("rootfile", "at the root");
  CHECK(has_text("/tmp/root/rootfile", "at the root"));
  CHECK(has_text("/rootfile", "at the root"));
  CHECK(has_text("tmp/p.txt", "abs")); /* still /tmp's preopen: "tmp" is longer than "" */
  REL("tmp/p.txt", tmp_fd, "tmp", "p.txt");
  REL(".", root_fd, "", ".");

  /* __wasilibc_reset_preopens forgets every registration (the fds stay open) and the next
   * lookup scans the host's preopens again: fd_prestat_get from fd 3 up to the first EBADF.
   * Any other error ends the program with _Exit(EX_OSERR = 71), and an open directory that is
   * not a preopen gives ENOTSUP (the runtime, like wasmtime): in the FS_GUEST_PLAIN build the
   * directories opened above are the fds right after /tmp's, so they are closed first. (In the
   * in-program build they are spindle fds >= 0x40000000, which the scan never reaches.) A
   * regular file's fd gives EBADF and ends the scan cleanly. */
  CHECK(close(root_fd) == 0 && close(d_fd) == 0 && close(e_fd) == 0);
  for (int i = 0; i < WORKERS; i++) CHECK(th_fd[i] == -1 || close(th_fd[i]) == 0);
  __wasilibc_reset_preopens();
  struct stat st;
  CHECK(fstat(file_fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 3);
  ABS_NONE("/nope/x");
  ABS_NONE("/alias/f");
  ABS_NONE("/x/f");
#ifdef FS_GUEST_PLAIN
  /* The runtime's /tmp is a host preopen: found again, at the same fd. */
  ABS("/tmp/d/f", tmp_fd, "tmp", "d/f");
  CHECK(has_text("/tmp/d/f", "in d"));
#else
  /* spindle's /tmp was registered (by spindle-wasi-fs's constructor), not found by the scan
   * (its fd is >= 0x40000000): after a reset it is gone until registered again. */
  ABS_NONE("/tmp/d/f");
  CHECK_ERR(stat("/tmp/d/f", &st), ENOENT);
  CHECK(__wasilibc_register_preopened_fd(tmp_fd, "/tmp") == 0);
  ABS("/tmp/d/f", tmp_fd, "tmp", "d/f");
  CHECK(has_text("/tmp/d/f", "in d"));
#endif
}

int main(int argc, char **argv) {
  const char *abs = NULL, *rel = NULL;
  tmp_fd = __wasilibc_find_abspath("/tmp", &abs, &rel);
  CHECK(tmp_fd >= 0 && SPINDLE_FD(tmp_fd));
  absolute_paths();
  lookups();
  cwd();
  registered();
  if (argc > 1 && strcmp(argv[1], "threads") == 0) threads();
  root_preopen();
  printf("preopens ok\n");
  return 0;
}
