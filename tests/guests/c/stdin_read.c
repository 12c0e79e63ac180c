// Reads stdin to the end with read(0, ...) in small chunks; prints the byte count, the line count
// and an FNV-1a checksum of the bytes, then echoes the first line.
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  char buf[1000];
  uint32_t h = 2166136261u;
  long bytes = 0, lines = 0;
  char first[128];
  int first_len = 0, in_first = 1;
  for (;;) {
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0) {
      printf("read error\n");
      return 1;
    }
    if (n == 0) break;
    for (ssize_t i = 0; i < n; i++) {
      h = (h ^ (uint8_t)buf[i]) * 16777619u;
      if (buf[i] == '\n') {
        lines++;
        in_first = 0;
      } else if (in_first && first_len < 127) {
        first[first_len++] = buf[i];
      }
    }
    bytes += n;
  }
  first[first_len] = 0;
  printf("bytes %ld lines %ld fnv %08x\n", bytes, lines, h);
  printf("first line: %s\n", first);
  return 0;
}
