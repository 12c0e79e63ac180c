// A different trap on the main thread: integer division by zero (wasm i32.div_s traps).
#include <stdio.h>

int main(void) {
  volatile int zero = 0;  // volatile: the compiler cannot fold the division away
  printf("main about to divide by zero\n");
  fflush(stdout);
  printf("%d\n", 10 / zero);
  return 0;
}
