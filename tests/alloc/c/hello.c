// Hello world for the code-size comparison (dlmalloc vs spindle-alloc): one malloc, one free.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    char *s = malloc(32);
    strcpy(s, "hello");
    printf("%s %d\n", s, argc);
    free(s);
    return 0;
}
