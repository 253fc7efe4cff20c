/* The helpers clang 14's WebAssembly setjmp/longjmp lowering (-mllvm -wasm-enable-sjlj)
 * calls, as Emscripten's runtime provides them (system/lib/compiler-rt/emscripten_setjmp.c):
 * each function that calls setjmp keeps a table of (setjmp id, label); longjmp throws the
 * __c_longjmp tag with (env, value), and the function whose table holds env's id catches
 * it and goes on at that label. Only for the registry's programs (scripts/build-packages.mjs). */
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  uint32_t id;
  uint32_t label;
} TableEntry;

static uint32_t temp_ret0;
static uint32_t setjmp_id;

/* The second result of saveSetjmp (the table's new size), read right after the call. */
uint32_t getTempRet0(void) { return temp_ret0; }

TableEntry *saveSetjmp(uint32_t *env, uint32_t label, TableEntry *table, uint32_t size) {
  setjmp_id++;
  *env = setjmp_id;
  for (uint32_t i = 0; i < size; i++) {
    if (table[i].id == 0) {
      table[i].id = setjmp_id;
      table[i].label = label;
      table[i + 1].id = 0;
      temp_ret0 = size;
      return table;
    }
  }
  /* Full: double it (the table always has one more entry than its size, the end mark). */
  size *= 2;
  table = realloc(table, sizeof(TableEntry) * (size + 1));
  if (table == NULL) abort();
  setjmp_id--;
  table = saveSetjmp(env, label, table, size);
  temp_ret0 = size;
  return table;
}

uint32_t testSetjmp(uint32_t id, TableEntry *table, uint32_t size) {
  for (uint32_t i = 0; i < size && table[i].id != 0; i++) {
    if (table[i].id == id) return table[i].label;
  }
  return 0;
}

static struct {
  void *env;
  int val;
} longjmp_args;

/* Tag 1 is __c_longjmp (0 is C++'s __cpp_exception). */
void __wasm_longjmp(void *env, int val) {
  longjmp_args.env = env;
  longjmp_args.val = val;
  __builtin_wasm_throw(1, &longjmp_args);
}
