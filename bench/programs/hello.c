// Time to first output: the smallest program that writes one line to stdout.
#include <stdio.h>

int main(void) {
  fputs("hello, world\n", stdout);
  return 0;
}
