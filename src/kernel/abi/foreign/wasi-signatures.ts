// The WASI preview1 functions a foreign program may import, with their wasm types as the
// witx definitions give them: `i` is i32, `I` is i64. A foreign module is checked against
// this table before it runs (an import that is not here, or has another type, is refused
// naming it), and the worker's stubs are built from it. The kernel's answers are
// abi/wasi-preview1.ts's, the same functions our own tools get.

export const WASI_MODULE = 'wasi_snapshot_preview1';

/** Parameter types and whether the function returns an errno (proc_exit returns nothing). */
export interface WasiSignature {
  params: string;
  returnsErrno: boolean;
}

const errno = (params: string): WasiSignature => ({ params, returnsErrno: true });

/** Every preview1 function, by name; the order is fixed (a call names its index). */
export const WASI_SIGNATURES: ReadonlyArray<readonly [string, WasiSignature]> = [
  ['args_get', errno('ii')],
  ['args_sizes_get', errno('ii')],
  ['environ_get', errno('ii')],
  ['environ_sizes_get', errno('ii')],
  ['clock_res_get', errno('ii')],
  ['clock_time_get', errno('iIi')],
  ['fd_advise', errno('iIIi')],
  ['fd_allocate', errno('iII')],
  ['fd_close', errno('i')],
  ['fd_datasync', errno('i')],
  ['fd_fdstat_get', errno('ii')],
  ['fd_fdstat_set_flags', errno('ii')],
  ['fd_fdstat_set_rights', errno('iII')],
  ['fd_filestat_get', errno('ii')],
  ['fd_filestat_set_size', errno('iI')],
  ['fd_filestat_set_times', errno('iIIi')],
  ['fd_pread', errno('iiiIi')],
  ['fd_prestat_get', errno('ii')],
  ['fd_prestat_dir_name', errno('iii')],
  ['fd_pwrite', errno('iiiIi')],
  ['fd_read', errno('iiii')],
  ['fd_readdir', errno('iiiIi')],
  ['fd_renumber', errno('ii')],
  ['fd_seek', errno('iIii')],
  ['fd_sync', errno('i')],
  ['fd_tell', errno('ii')],
  ['fd_write', errno('iiii')],
  ['path_create_directory', errno('iii')],
  ['path_filestat_get', errno('iiiii')],
  ['path_filestat_set_times', errno('iiiiIIi')],
  ['path_link', errno('iiiiiii')],
  ['path_open', errno('iiiiiIIii')],
  ['path_readlink', errno('iiiiii')],
  ['path_remove_directory', errno('iii')],
  ['path_rename', errno('iiiiii')],
  ['path_symlink', errno('iiiii')],
  ['path_unlink_file', errno('iii')],
  ['poll_oneoff', errno('iiii')],
  ['proc_exit', { params: 'i', returnsErrno: false }],
  ['proc_raise', errno('i')],
  ['sched_yield', errno('')],
  ['random_get', errno('ii')],
  ['sock_accept', errno('iii')],
  ['sock_recv', errno('iiiiii')],
  ['sock_send', errno('iiiii')],
  ['sock_shutdown', errno('ii')],
];

/** Index of each function in WASI_SIGNATURES. */
export const WASI_INDEX: ReadonlyMap<string, number> = new Map(WASI_SIGNATURES.map(([name], index) => [name, index]));
