/* Declarations of the functions wasi-shims.c adds to wasi-libc (Debian 12), force-included
 * (-include) into the registry's programs so that their sources need no change. */
#ifndef AIRLOCK_WASI_SHIMS_H
#define AIRLOCK_WASI_SHIMS_H
int mkstemp(char *template);
#endif
