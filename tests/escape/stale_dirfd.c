/* A directory fd that outlives its path: open /box/sub, rename sub away, put a symlink
 * sub -> ../outside in its place, then use the old fd for every path call. The fd must keep
 * naming the directory it was opened on (now /box/moved), as a kernel fd does and as wasmtime
 * answers; a runtime that keeps a directory fd as a path string follows the new symlink out.
 * Usage: stale_dirfd.wasm  (layout in escape.h) */
#include "escape.h"
#include <dirent.h>
#include <sys/stat.h>
#include <wasi/api.h>

static int dfd;

/* The attack reached the outside if the name resolves there; "ok" if it failed as it must. */
static void expect_enoent(const char *attack, int r) {
  if (r == 0 || r > 0) ESCAPED(attack, "the call succeeded (it can only have reached ROOT/outside)");
  else if (errno != ENOENT) FAIL("%s: expected ENOENT", attack);
  else printf("%s: ok\n", attack);
}

/* The call must have acted in /box/moved: `path` exists there afterwards. */
static void expect_in_moved(const char *attack, int r, const char *path) {
  struct stat st;
  if (r < 0) ESCAPED(attack, "failed with errno %d: the fd no longer names /box/moved", errno);
  else if (lstat(path, &st) != 0) ESCAPED(attack, "%s is not in /box/moved", path);
  else printf("%s: ok\n", attack);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  char buf[64];
  struct stat st;
  CHECK(mkdir("/box/sub", 0755) == 0);
  write_file("/box/sub/inside.txt", "INSIDE\n");
  dfd = open("/box/sub", O_RDONLY | O_DIRECTORY);
  CHECK(dfd >= 0);
  CHECK(rename("/box/sub", "/box/moved") == 0);
  CHECK(symlink("../outside", "/box/sub") == 0);

  /* open: the outside's secret.txt must stay unreachable; the moved file must be read. */
  int fd = openat(dfd, "secret.txt", O_RDONLY);
  if (fd >= 0) ESCAPED("openat secret", "read \"%s\"", strtok((char *)slurp_fd(fd, buf, sizeof buf), "\n"));
  else expect_enoent("openat secret", fd);
  fd = openat(dfd, "inside.txt", O_RDONLY);
  if (strcmp(slurp_fd(fd, buf, sizeof buf), "INSIDE\n") != 0) ESCAPED("openat inside", "read \"%s\"", buf);
  else printf("openat inside: ok\n");
  fd = openat(dfd, "new.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  expect_in_moved("openat create", fd < 0 ? -1 : close(fd), "/box/moved/new.txt");

  expect_enoent("fstatat secret", fstatat(dfd, "secret.txt", &st, 0));
  expect_enoent("fstatat secret nofollow", fstatat(dfd, "secret.txt", &st, AT_SYMLINK_NOFOLLOW));
  expect_enoent("unlinkat secret", unlinkat(dfd, "secret.txt", 0));
  expect_enoent("rmdir dir", unlinkat(dfd, "dir", AT_REMOVEDIR));
  expect_enoent("renameat secret", renameat(dfd, "secret.txt", dfd, "stolen.txt"));
  expect_enoent("linkat secret", linkat(dfd, "secret.txt", dfd, "hard-secret.txt", 0));
  expect_enoent("readlinkat", readlinkat(dfd, "secret.txt", buf, sizeof buf) < 0 ? -1 : 0);
  struct timespec ts[2] = {{.tv_sec = 12345}, {.tv_sec = 12345}};
  expect_enoent("utimensat secret", utimensat(dfd, "secret.txt", ts, 0));

  expect_in_moved("mkdirat", mkdirat(dfd, "newdir", 0755), "/box/moved/newdir");
  expect_in_moved("mkdirat in dir", mkdirat(dfd, "dir", 0755), "/box/moved/dir");
  expect_in_moved("renameat", renameat(dfd, "inside.txt", dfd, "renamed.txt"), "/box/moved/renamed.txt");
  expect_in_moved("linkat", linkat(dfd, "renamed.txt", dfd, "hard.txt", 0), "/box/moved/hard.txt");
  expect_in_moved("symlinkat", symlinkat("renamed.txt", dfd, "sl"), "/box/moved/sl");
  ssize_t n = readlinkat(dfd, "sl", buf, sizeof buf);
  if (n != 11 || memcmp(buf, "renamed.txt", 11) != 0) ESCAPED("readlinkat sl", "got %zd bytes", n);
  else printf("readlinkat sl: ok\n");
  expect_in_moved("utimensat", utimensat(dfd, "renamed.txt", ts, 0), "/box/moved/renamed.txt");
  if (stat("/box/moved/renamed.txt", &st) == 0 && st.st_mtim.tv_sec != 12345) ESCAPED("utimensat", "the file in /box/moved kept its time");

  /* readdir of the stale fd (through a second fd opened as "."): the moved directory's names. */
  int dot = openat(dfd, ".", O_RDONLY | O_DIRECTORY);
  CHECK(dot >= 0);
  DIR *d = fdopendir(dot);
  CHECK(d != NULL);
  int saw_secret = 0, saw_renamed = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    saw_secret |= strcmp(e->d_name, "secret.txt") == 0;
    saw_renamed |= strcmp(e->d_name, "renamed.txt") == 0;
  }
  closedir(d);
  /* the same through the stale fd's own readdir (fd_readdir on it, cookie 0) */
  char dents[4096];
  __wasi_size_t used = 0;
  CHECK(__wasi_fd_readdir(dfd, (uint8_t *)dents, sizeof dents, 0, &used) == 0);
  for (size_t off = 0; off + sizeof(__wasi_dirent_t) <= used;) {
    __wasi_dirent_t de;
    memcpy(&de, dents + off, sizeof de);
    off += sizeof de;
    if (off + de.d_namlen > used) break;
    saw_secret |= de.d_namlen == 10 && memcmp(dents + off, "secret.txt", 10) == 0;
    off += de.d_namlen;
  }
  if (saw_secret || !saw_renamed) ESCAPED("readdir", "listed %s", saw_secret ? "ROOT/outside" : "something else");
  else printf("readdir: ok\n");
  /* fstat of the stale fd itself: the moved directory (it has renamed.txt), not the symlink. */
  struct stat a, b;
  CHECK(fstat(dfd, &a) == 0 && stat("/box/moved", &b) == 0);
  if (a.st_ino != b.st_ino) ESCAPED("fstat", "the fd is no longer /box/moved");
  else printf("fstat: ok\n");
  /* through the new symlink by path, the preopen refuses to follow it out. */
  errno = 0;
  fd = open("/box/sub/secret.txt", O_RDONLY);
  if (fd >= 0) ESCAPED("open via symlink", "read \"%s\"", slurp_fd(fd, buf, sizeof buf));
  else printf("open via symlink: ok\n");
  CHECK(close(dfd) == 0);
  return finish("stale_dirfd");
}
