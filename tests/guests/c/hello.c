// The smallest C program: one line on stdout, one on stderr, exit code 0.
#include <stdio.h>
int main(void) {
  printf("hello from c\n");
  fprintf(stderr, "to stderr\n");
  return 0;
}
