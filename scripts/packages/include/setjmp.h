/* setjmp/longjmp for wasm32-wasi, which wasi-libc (Debian 12) does not provide. clang is
 * run with -mexception-handling -mllvm -wasm-enable-sjlj: it rewrites every setjmp and
 * longjmp call into WebAssembly exception handling (a throw of the __c_longjmp tag caught
 * in the function that called setjmp), with the helpers in sjlj.c. No import is needed;
 * the runtime must support the exception-handling proposal (Node 17+, Chromium 95+). */
#ifndef AIRLOCK_SETJMP_H
#define AIRLOCK_SETJMP_H
typedef unsigned long jmp_buf[2];
int setjmp(jmp_buf env) __attribute__((returns_twice));
void longjmp(jmp_buf env, int val) __attribute__((noreturn));
#define _setjmp setjmp
#define _longjmp longjmp
#endif
