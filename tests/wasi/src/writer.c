// Writes TOTAL bytes to stdout in 16 KiB writes, telling stderr how many it has written
// after each: with a reader that never reads, the last count shows where the full pipe
// stopped it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[16384];

int main(int argc, char **argv) {
    long total = argc > 1 ? strtol(argv[1], NULL, 10) : 1048576;
    memset(buf, 'w', sizeof buf);
    for (long written = 0; written < total;) {
        ssize_t n = write(1, buf, sizeof buf);
        if (n < 0) {
            perror("writer");
            return 1;
        }
        written += n;
        fprintf(stderr, "wrote %ld\n", written);
    }
    return 0;
}
