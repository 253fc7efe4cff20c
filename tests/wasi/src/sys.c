// `sys OP ARGS`: the path calls of the syscall parity table (tests/parity/cases.ts) made
// as raw WASI preview1 calls on the root preopen (fd 3) by a foreign program, printing
// `ok`, `ok DETAIL` or `err ERRNO` as the probe's `sys` does for our own tools.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#define ROOT 3

static const char *rel(const char *path) {
    while (*path == '/') path++;
    return *path ? path : ".";
}

static int report(__wasi_errno_t e, const char *detail) {
    if (e) printf("err %u\n", (unsigned)e);
    else if (detail && *detail) printf("ok %s\n", detail);
    else printf("ok\n");
    return 0;
}

static const char *filetype_name(__wasi_filetype_t type) {
    switch (type) {
    case __WASI_FILETYPE_CHARACTER_DEVICE: return "chardev";
    case __WASI_FILETYPE_DIRECTORY: return "dir";
    case __WASI_FILETYPE_REGULAR_FILE: return "file";
    case __WASI_FILETYPE_SYMBOLIC_LINK: return "symlink";
    default: return "other";
    }
}

static int op_open(const char *path, char *flags) {
    __wasi_oflags_t oflags = 0;
    __wasi_rights_t rights = 0;
    __wasi_fdflags_t fdflags = 0;
    __wasi_lookupflags_t lookup = __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW;
    for (char *flag = strtok(flags, ","); flag; flag = strtok(NULL, ",")) {
        if (!strcmp(flag, "rdonly")) rights |= __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_READDIR;
        else if (!strcmp(flag, "wronly")) rights |= __WASI_RIGHTS_FD_WRITE;
        else if (!strcmp(flag, "rdwr")) rights |= __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE;
        else if (!strcmp(flag, "creat")) oflags |= __WASI_OFLAGS_CREAT;
        else if (!strcmp(flag, "excl")) oflags |= __WASI_OFLAGS_EXCL;
        else if (!strcmp(flag, "trunc")) oflags |= __WASI_OFLAGS_TRUNC;
        else if (!strcmp(flag, "directory")) oflags |= __WASI_OFLAGS_DIRECTORY;
        else if (!strcmp(flag, "nofollow")) lookup = 0;
        else if (!strcmp(flag, "append")) fdflags |= __WASI_FDFLAGS_APPEND;
        else return report(__WASI_ERRNO_INVAL, NULL);
    }
    __wasi_fd_t fd;
    __wasi_errno_t e = __wasi_path_open(ROOT, lookup, rel(path), oflags, rights, rights, fdflags, &fd);
    if (!e) (void)__wasi_fd_close(fd);
    return report(e, NULL);
}

static int op_stat(const char *path, int follow) {
    __wasi_filestat_t st;
    __wasi_errno_t e = __wasi_path_filestat_get(ROOT, follow ? __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW : 0, rel(path), &st);
    return report(e, e ? NULL : filetype_name(st.filetype));
}

static int op_readlink(const char *path) {
    char buf[4097];
    __wasi_size_t used = 0;
    __wasi_errno_t e = __wasi_path_readlink(ROOT, rel(path), (uint8_t *)buf, sizeof buf - 1, &used);
    buf[e ? 0 : used] = 0;
    return report(e, buf);
}

static int compare(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int op_readdir(const char *path) {
    __wasi_fd_t fd;
    __wasi_errno_t e = __wasi_path_open(ROOT, __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, rel(path), __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READDIR, __WASI_RIGHTS_FD_READDIR, 0, &fd);
    if (e) return report(e, NULL);
    static uint8_t buf[65536];
    __wasi_size_t used = 0;
    e = __wasi_fd_readdir(fd, buf, sizeof buf, 0, &used);
    (void)__wasi_fd_close(fd);
    if (e) return report(e, NULL);
    char *names[256];
    int count = 0;
    for (size_t off = 0; off + sizeof(__wasi_dirent_t) <= used && count < 256;) {
        __wasi_dirent_t ent;
        memcpy(&ent, buf + off, sizeof ent);
        off += sizeof ent;
        char *name = strndup((const char *)buf + off, ent.d_namlen);
        off += ent.d_namlen;
        if (strcmp(name, ".") && strcmp(name, "..")) names[count++] = name;
    }
    qsort(names, count, sizeof(char *), compare);
    static char joined[65536];
    joined[0] = 0;
    for (int i = 0; i < count; i++) {
        if (i) strcat(joined, ",");
        strcat(joined, names[i]);
    }
    printf("ok %s\n", joined);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: sys OP PATH [ARG]\n");
        return 2;
    }
    const char *op = argv[1];
    const char *a = argv[2];
    const char *b = argc > 3 ? argv[3] : "";
    if (!strcmp(op, "open")) return op_open(a, argc > 3 ? argv[3] : "");
    if (!strcmp(op, "unlink")) return report(__wasi_path_unlink_file(ROOT, rel(a)), NULL);
    if (!strcmp(op, "rmdir")) return report(__wasi_path_remove_directory(ROOT, rel(a)), NULL);
    if (!strcmp(op, "mkdir")) return report(__wasi_path_create_directory(ROOT, rel(a)), NULL);
    if (!strcmp(op, "rename")) return report(__wasi_path_rename(ROOT, rel(a), ROOT, rel(b)), NULL);
    if (!strcmp(op, "symlink")) return report(__wasi_path_symlink(a, ROOT, rel(b)), NULL);
    if (!strcmp(op, "stat")) return op_stat(a, 1);
    if (!strcmp(op, "lstat")) return op_stat(a, 0);
    if (!strcmp(op, "readlink")) return op_readlink(a);
    if (!strcmp(op, "readdir")) return op_readdir(a);
    fprintf(stderr, "sys: unknown operation %s\n", op);
    return 2;
}
