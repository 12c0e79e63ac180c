/* fopen/fprintf/fread/fgets/fseek/ftell on spindle's /tmp (on the host's /tmp when run with
 * FS_GUEST_HOST_TMP=1, where the host preopens /tmp). */
#include "check.h"

int main(void) {
  FILE *f = fopen("/tmp/stdio.txt", "w");
  CHECK(f != NULL);
  CHECK(SPINDLE_FD(fileno(f)) == (getenv("FS_GUEST_HOST_TMP") == NULL));
  for (int i = 0; i < 1000; i++) CHECK(fprintf(f, "line %d\n", i) > 0);
  CHECK(fclose(f) == 0);

  f = fopen("/tmp/stdio.txt", "r");
  CHECK(f != NULL);
  char line[64];
  for (int i = 0; i < 1000; i++) {
    char want[64];
    snprintf(want, sizeof want, "line %d\n", i);
    CHECK(fgets(line, sizeof line, f) != NULL);
    CHECK(strcmp(line, want) == 0);
  }
  CHECK(fgets(line, sizeof line, f) == NULL && feof(f));
  CHECK(fseek(f, 5, SEEK_SET) == 0);
  char buf[4] = {0};
  CHECK(fread(buf, 1, 3, f) == 3 && memcmp(buf, "0\nl", 3) == 0);
  CHECK(ftell(f) == 8);
  CHECK(fclose(f) == 0);

  f = fopen("/tmp/stdio.txt", "a+");
  CHECK(f != NULL);
  CHECK(fputs("tail\n", f) >= 0);
  CHECK(fseek(f, -5, SEEK_END) == 0);
  CHECK(fread(buf, 1, 4, f) == 4 && memcmp(buf, "tail", 4) == 0);
  CHECK(fclose(f) == 0);

  errno = 0;
  CHECK(fopen("/tmp/missing/x", "r") == NULL && errno == ENOENT);
  printf("stdio ok\n");
  return 0;
}
