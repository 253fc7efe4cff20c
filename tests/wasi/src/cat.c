// Copies stdin to stdout in 64 KiB reads: the stage of the foreign pipeline tests and
// benchmark (`yes | cat.wasm | cat.wasm`).
#include <unistd.h>

static char buf[65536];

int main(void) {
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(1, buf + done, (size_t)(n - done));
            if (w < 0) return 1;
            done += w;
        }
    }
    return n < 0 ? 1 : 0;
}
