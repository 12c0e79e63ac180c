// proc_raise(SIGTERM) (removed from wasi-libc's headers, imported by hand): the runtime ends the
// program as if killed by the signal. Prints a line first (which must not be lost).
#include <stdint.h>
#include <stdio.h>

__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_raise")))
uint16_t wasi_proc_raise(uint8_t sig);

int main(void) {
  printf("raising SIGTERM\n");
  fflush(stdout);
  uint16_t e = wasi_proc_raise(15);
  printf("proc_raise returned errno %d\n", e);
  return 0;
}
