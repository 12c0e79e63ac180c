/* With a host preopen (run on node:wasi with /host preopened): /host goes to the host through
 * spindle's forwarders, /tmp stays in spindle; the two never mix. */
#include "check.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  int h = open("/host/from-guest.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(h >= 0 && h < 0x40000000);
  CHECK(write(h, "to the host\n", 12) == 12);
  CHECK(close(h) == 0);
  int t = open("/tmp/in-memory.txt", O_WRONLY | O_CREAT, 0644);
  CHECK(SPINDLE_FD(t));
  CHECK(close(t) == 0);
  struct stat st;
  CHECK(stat("/host/from-guest.txt", &st) == 0 && st.st_size == 12);
  CHECK_ERR(stat("/host/in-memory.txt", &st), ENOENT);
  CHECK_ERR(rename("/host/from-guest.txt", "/tmp/moved.txt"), EXDEV);
  DIR *d = opendir("/host");
  CHECK(d != NULL);
  int found = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) found |= strcmp(e->d_name, "from-guest.txt") == 0;
  CHECK(found && closedir(d) == 0);
  printf("hostdir ok\n");
  return 0;
}
