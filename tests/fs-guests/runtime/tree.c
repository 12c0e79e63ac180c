/* Lists a directory tree for the preload/save tests: `tree DIR [NAME TEXT [STATUS]]` prints every
 * entry below DIR in sorted order ("d path", "f path: content", "l path -> target"), then, if NAME
 * is given, writes TEXT to DIR/NAME and exits with STATUS (default 0). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list(const char *dir, const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
  DIR *d = opendir(path);
  if (!d) { printf("cannot open %s\n", path); exit(2); }
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 256)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, n, sizeof *names, cmp);
  for (int i = 0; i < n; i++) {
    char r[1024], p[1024];
    snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", names[i]);
    snprintf(p, sizeof p, "%s/%s", dir, r);
    struct stat st;
    if (lstat(p, &st) != 0) { printf("cannot stat %s\n", r); exit(2); }
    if (S_ISDIR(st.st_mode)) {
      printf("d %s\n", r);
      list(dir, r);
    } else if (S_ISLNK(st.st_mode)) {
      char t[256] = {0};
      readlink(p, t, sizeof t - 1);
      printf("l %s -> %s\n", r, t);
    } else {
      char buf[256] = {0};
      FILE *f = fopen(p, "r");
      size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
      if (f) fclose(f);
      printf("f %s: %.*s\n", r, (int)got, buf);
    }
    free(names[i]);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  list(argv[1], "");
  if (argc >= 4) {
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", argv[1], argv[2]);
    FILE *f = fopen(p, "w");
    if (!f || fputs(argv[3], f) < 0 || fclose(f) != 0) { perror(p); return 2; }
  }
  return argc >= 5 ? atoi(argv[4]) : 0;
}
