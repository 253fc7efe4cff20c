// count: reads stdin to its end in 64 KiB reads and prints how many bytes it read — the
// last stage of the foreign pipeline benchmark (like `wc -c`).
#include <stdio.h>
#include <unistd.h>

static char buf[65536];

int main(void) {
    long long total = 0;
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) total += n;
    if (n < 0) return 1;
    printf("%lld\n", total);
    return 0;
}
