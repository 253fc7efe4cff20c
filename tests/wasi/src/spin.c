// Computes forever without a system call: only a terminated worker stops it (the deadline
// test of foreign programs).
int main(void) {
    volatile unsigned long n = 0;
    for (;;) n++;
}
