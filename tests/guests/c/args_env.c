// argv and environ: prints argc, each argv with its byte length (UTF-8 must round-trip), and the
// environment entries starting with SPINDLE_ in the order the host gave them.
#include <stdio.h>
#include <string.h>

extern char **environ;

int main(int argc, char **argv) {
  printf("argc %d\n", argc);
  for (int i = 0; i < argc; i++) printf("argv[%d]=%s (%zu bytes)\n", i, argv[i], strlen(argv[i]));
  int total = 0;
  for (char **e = environ; *e; e++) {
    total++;
    if (strncmp(*e, "SPINDLE_", 8) == 0) printf("env %s\n", *e);
  }
  printf("env count %d\n", total);
  return 0;
}
