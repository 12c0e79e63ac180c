/* Long paths and deep trees on a host directory (preopened as /d, empty), compared with wasmtime
 * 46 line by line: a guest path of PATH_MAX (4096) bytes or more is ENAMETOOLONG whatever the
 * host directory's own path (the host's prefix never counts), a component longer than NAME_MAX
 * (255) is ENAMETOOLONG, and a tree deeper than PATH_MAX can be built and used through directory
 * fds, each step relative to the one before (as on Linux). Prints one line per case, then
 * "longpath done". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[9000];

static void show(const char *label, int r) { printf("%s: %s\n", label, r >= 0 ? "ok" : strerror(errno)); }

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* "/d/x/x/.../f" whose part after "/d/" (the path the host gets) is 4095, 4096, 4097 and 6000
   * bytes, through missing components. */
  static const int lens[] = {4095, 4096, 4097, 6000};
  for (int i = 0; i < 4; i++) {
    size_t len = 3 + (size_t)lens[i];
    strcpy(path, "/d/");
    size_t n = 3;
    while (n < len - 1) { path[n++] = 'x'; if (n < len - 1) path[n++] = '/'; }
    path[n++] = 'f';
    path[n] = 0;
    char label[64];
    snprintf(label, sizeof label, "open missing, path of %zu bytes after /d/", strlen(path) - 3);
    errno = 0;
    show(label, open(path, O_RDONLY));
  }
  memset(path, 'n', 300);
  strcpy(path + 300, "");
  char name[320] = "/d/";
  memcpy(name + 3, path, 255);
  name[258] = 0;
  errno = 0;
  show("create a 255-byte name", open(name, O_WRONLY | O_CREAT, 0644));
  name[3 + 255] = 'n';
  name[3 + 256] = 0;
  errno = 0;
  show("create a 256-byte name", open(name, O_WRONLY | O_CREAT, 0644));
  /* A tree 60 levels of 100-byte names deep (6 KB): each level made and entered through the fd
   * of the one before, then a file at the bottom written and read back. */
  char comp[101];
  memset(comp, 'c', 100);
  comp[100] = 0;
  int dir = open("/d", O_RDONLY | O_DIRECTORY);
  int depth = 0;
  for (; depth < 60; depth++) {
    if (mkdirat(dir, comp, 0755) != 0) break;
    int next = openat(dir, comp, O_RDONLY | O_DIRECTORY);
    if (next < 0) break;
    close(dir);
    dir = next;
  }
  printf("deep tree: %d levels (%s)\n", depth, depth == 60 ? "all" : strerror(errno));
  int f = openat(dir, "bottom.txt", O_RDWR | O_CREAT, 0644);
  show("file at the bottom", f >= 0 && write(f, "deep", 4) == 4 ? 0 : -1);
  char buf[8] = {0};
  show("read back", f >= 0 && pread(f, buf, 4, 0) == 4 && memcmp(buf, "deep", 4) == 0 ? 0 : -1);
  struct stat st;
  show("fstatat at the bottom", fstatat(dir, "bottom.txt", &st, 0));
  show("openat .. from the bottom", openat(dir, "../" "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc" "/bottom.txt", O_RDONLY));
  printf("longpath done\n");
  return 0;
}
