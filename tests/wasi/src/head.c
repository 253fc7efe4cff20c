// head -n N: prints the first N lines of stdin and exits without reading the rest, so
// `yes | head.wasm -n1` ends only if the writer is stopped by the closed pipe.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    long lines = 10;
    if (argc == 3 && strcmp(argv[1], "-n") == 0) lines = strtol(argv[2], NULL, 10);
    else if (argc == 2 && strncmp(argv[1], "-n", 2) == 0) lines = strtol(argv[1] + 2, NULL, 10);
    int c;
    while (lines > 0 && (c = getchar()) != EOF) {
        putchar(c);
        if (c == '\n') lines--;
    }
    return 0;
}
