// emit TOTAL: writes TOTAL zero bytes to stdout in 64 KiB writes — the first stage of the
// foreign pipeline benchmark (bench/wasi.bench.ts: emit.wasm | cat.wasm | count.wasm).
#include <stdlib.h>
#include <unistd.h>

static char buf[65536];

int main(int argc, char **argv) {
    long long total = argc > 1 ? strtoll(argv[1], NULL, 10) : 0;
    while (total > 0) {
        ssize_t n = write(1, buf, total < (long long)sizeof buf ? (size_t)total : sizeof buf);
        if (n < 0) return 1;
        total -= n;
    }
    return 0;
}
