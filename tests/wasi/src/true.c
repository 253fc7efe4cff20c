// Exits 0 at once: the trivial foreign program of the spawn-to-exit benchmark.
int main(void) { return 0; }
