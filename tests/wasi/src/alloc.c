// Allocates and touches MIB mebibytes (default: until malloc fails), then says how many it
// got: the memory limit of foreign programs.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Where each block goes: a use the compiler cannot see through, or it may drop the
// malloc+memset of a block nothing reads (and with it the NULL check).
char *volatile last_block;

int main(int argc, char **argv) {
    long want = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
    long got = 0;
    while (want < 0 || got < want) {
        char *block = malloc(1 << 20);
        if (block == NULL) {
            fprintf(stderr, "alloc: out of memory after %ld MiB\n", got);
            return 3;
        }
        memset(block, 1, 1 << 20);
        last_block = block;
        got++;
    }
    printf("allocated %ld MiB\n", got);
    return 0;
}
