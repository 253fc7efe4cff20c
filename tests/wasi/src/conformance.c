// WASI preview1 conformance: every fd_* and path_* call of docs/architecture.md §4, args,
// environ, clocks, random, poll_oneoff on clocks and proc_exit, made as raw preview1 calls
// (wasi/api.h) so that what is compared is the runtime, not libc. One line per check,
// `name: result`; the test (tests/wasi/conformance.test.ts) runs this under Airlock and
// under Node's node:wasi and compares the lines, except the `enosys-` lines, which state
// Airlock's table (ENOSYS where a reference runtime implements the call).
//
// Usage: conformance DIR — DIR is the name of a preopened, empty directory.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

static const char *errno_name(__wasi_errno_t e) {
    switch (e) {
    case __WASI_ERRNO_SUCCESS: return "ok";
    case __WASI_ERRNO_ACCES: return "EACCES";
    case __WASI_ERRNO_BADF: return "EBADF";
    case __WASI_ERRNO_EXIST: return "EEXIST";
    case __WASI_ERRNO_INVAL: return "EINVAL";
    case __WASI_ERRNO_ISDIR: return "EISDIR";
    case __WASI_ERRNO_LOOP: return "ELOOP";
    case __WASI_ERRNO_NOENT: return "ENOENT";
    case __WASI_ERRNO_NOSYS: return "ENOSYS";
    case __WASI_ERRNO_NOTDIR: return "ENOTDIR";
    case __WASI_ERRNO_NOTEMPTY: return "ENOTEMPTY";
    case __WASI_ERRNO_NOTSOCK: return "ENOTSOCK";
    case __WASI_ERRNO_NOTSUP: return "ENOTSUP";
    case __WASI_ERRNO_PERM: return "EPERM";
    case __WASI_ERRNO_SPIPE: return "ESPIPE";
    case __WASI_ERRNO_NOTCAPABLE: return "ENOTCAPABLE";
    default: {
        static char buf[32];
        snprintf(buf, sizeof buf, "errno%u", (unsigned)e);
        return buf;
    }
    }
}

// wasi-libc no longer declares proc_raise (deprecated in the spec); the import still exists.
__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_raise"))) extern int32_t raw_proc_raise(int32_t sig);

static __wasi_fd_t dir = 0;
/** The rights new descriptors ask for: what the directory may hand on (as wasi-libc asks). */
static __wasi_rights_t inheriting = 0;

#define LINE(name, ...) printf(name ": " __VA_ARGS__)

static __wasi_errno_t open_at(const char *path, __wasi_lookupflags_t lookup, __wasi_oflags_t oflags, __wasi_fdflags_t fdflags, __wasi_fd_t *fd) {
    // A directory is opened without the write rights (a runtime may open it for writing).
    __wasi_rights_t rights = (oflags & __WASI_OFLAGS_DIRECTORY) ? inheriting & ~(__WASI_RIGHTS_FD_WRITE | __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_DATASYNC | __WASI_RIGHTS_FD_SYNC | __WASI_RIGHTS_FD_ALLOCATE | __WASI_RIGHTS_FD_FILESTAT_SET_SIZE) : inheriting;
    return __wasi_path_open(dir, lookup, path, oflags, rights, inheriting, fdflags, fd);
}

static void write_all(__wasi_fd_t fd, const char *text) {
    __wasi_ciovec_t iov = { (const uint8_t *)text, strlen(text) };
    __wasi_size_t n;
    (void)__wasi_fd_write(fd, &iov, 1, &n);
}

static size_t read_some(__wasi_fd_t fd, char *buf, size_t len, __wasi_errno_t *err) {
    __wasi_iovec_t iov = { (uint8_t *)buf, len };
    __wasi_size_t n = 0;
    *err = __wasi_fd_read(fd, &iov, 1, &n);
    buf[n] = 0;
    return n;
}

static __wasi_errno_t stat_at(const char *path, int follow, __wasi_filestat_t *st) {
    return __wasi_path_filestat_get(dir, follow ? __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW : 0, path, st);
}

static void stat_line(const char *name, const char *path, int follow) {
    __wasi_filestat_t st;
    __wasi_errno_t e = stat_at(path, follow, &st);
    if (e) printf("%s: %s\n", name, errno_name(e));
    else printf("%s: ok type=%u size=%llu\n", name, st.filetype, (unsigned long long)st.size);
}

static int find_preopen(const char *name) {
    for (__wasi_fd_t fd = 3; fd < 64; fd++) {
        __wasi_prestat_t pre;
        if (__wasi_fd_prestat_get(fd, &pre) != 0) break;
        if (pre.tag != __WASI_PREOPENTYPE_DIR) continue;
        char buf[256];
        size_t len = pre.u.dir.pr_name_len < 255 ? pre.u.dir.pr_name_len : 255;
        if (__wasi_fd_prestat_dir_name(fd, (uint8_t *)buf, len) != 0) continue;
        buf[len] = 0;
        if (strcmp(buf, name) == 0) return fd;
    }
    return -1;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/** Names in directory fd from `cookie` on (without . and ..), sorted; returns how many. */
static int list_dir(__wasi_fd_t fd, __wasi_dircookie_t cookie, char **names, __wasi_dircookie_t *cookies, int max) {
    static uint8_t buf[4096];
    __wasi_size_t used = 0;
    if (__wasi_fd_readdir(fd, buf, sizeof buf, cookie, &used) != 0) return -1;
    int count = 0;
    for (size_t off = 0; off + sizeof(__wasi_dirent_t) <= used && count < max;) {
        __wasi_dirent_t ent;
        memcpy(&ent, buf + off, sizeof ent);
        off += sizeof ent;
        char *name = strndup((const char *)buf + off, ent.d_namlen);
        off += ent.d_namlen;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) { free(name); continue; }
        cookies[count] = ent.d_next;
        names[count++] = name;
    }
    return count;
}

static void sections_files(void) {
    __wasi_fd_t fd;
    __wasi_errno_t e = open_at("f", 0, __WASI_OFLAGS_CREAT | __WASI_OFLAGS_TRUNC, 0, &fd);
    LINE("path_open-create", "%s\n", errno_name(e));
    write_all(fd, "hello world");
    __wasi_filesize_t pos = 0;
    e = __wasi_fd_tell(fd, &pos);
    LINE("fd_tell", "%s %llu\n", errno_name(e), (unsigned long long)pos);
    e = __wasi_fd_seek(fd, 0, __WASI_WHENCE_SET, &pos);
    char buf[64];
    size_t n = read_some(fd, buf, 5, &e);
    LINE("fd_read", "%s %zu %s\n", errno_name(e), n, buf);
    e = __wasi_fd_seek(fd, -3, __WASI_WHENCE_END, &pos);
    LINE("fd_seek-end", "%s %llu\n", errno_name(e), (unsigned long long)pos);
    read_some(fd, buf, 10, &e);
    LINE("fd_read-after-seek", "%s %s\n", errno_name(e), buf);
    e = __wasi_fd_seek(fd, -4, __WASI_WHENCE_CUR, &pos);
    LINE("fd_seek-cur", "%s %llu\n", errno_name(e), (unsigned long long)pos);
    e = __wasi_fd_seek(fd, -100, __WASI_WHENCE_SET, &pos);
    LINE("fd_seek-negative", "%s\n", errno_name(e));
    n = read_some(fd, buf, 10, &e);
    e = __wasi_fd_seek(fd, 100, __WASI_WHENCE_SET, &pos);
    n = read_some(fd, buf, 10, &e);
    LINE("fd_read-past-end", "%s %zu\n", errno_name(e), n);

    __wasi_filestat_t st;
    e = __wasi_fd_filestat_get(fd, &st);
    LINE("fd_filestat_get", "%s type=%u size=%llu nlink=%llu\n", errno_name(e), st.filetype, (unsigned long long)st.size, (unsigned long long)st.nlink);
    e = __wasi_fd_filestat_set_size(fd, 5);
    __wasi_fd_filestat_get(fd, &st);
    LINE("fd_filestat_set_size-shrink", "%s size=%llu\n", errno_name(e), (unsigned long long)st.size);
    e = __wasi_fd_filestat_set_size(fd, 9);
    __wasi_fd_filestat_get(fd, &st);
    __wasi_fd_seek(fd, 4, __WASI_WHENCE_SET, &pos);
    n = read_some(fd, buf, 10, &e);
    LINE("fd_filestat_set_size-grow", "size=%llu read=%zu bytes=%d,%d,%d\n", (unsigned long long)st.size, n, buf[0], buf[1], buf[4]);
    e = __wasi_fd_filestat_set_times(fd, 1000000000ull * 1000, 2000000000ull * 1000, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_MTIM);
    __wasi_fd_filestat_get(fd, &st);
    LINE("fd_filestat_set_times", "%s atim=%llu mtim=%llu\n", errno_name(e), (unsigned long long)(st.atim / 1000000000ull), (unsigned long long)(st.mtim / 1000000000ull));
    e = __wasi_fd_filestat_set_times(fd, 0, 0, __WASI_FSTFLAGS_ATIM | __WASI_FSTFLAGS_ATIM_NOW);
    LINE("fd_filestat_set_times-both", "%s\n", errno_name(e));
    e = __wasi_path_filestat_set_times(dir, __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, "f", 0, 3000000000ull * 1000, __WASI_FSTFLAGS_MTIM);
    stat_at("f", 1, &st);
    LINE("path_filestat_set_times", "%s mtim=%llu\n", errno_name(e), (unsigned long long)(st.mtim / 1000000000ull));

    __wasi_fdstat_t fs;
    e = __wasi_fd_fdstat_get(fd, &fs);
    LINE("fd_fdstat_get", "%s type=%u flags=%u\n", errno_name(e), fs.fs_filetype, fs.fs_flags & 0x1f);
    e = __wasi_fd_fdstat_set_flags(fd, __WASI_FDFLAGS_APPEND);
    __wasi_fd_fdstat_get(fd, &fs);
    __wasi_fd_seek(fd, 0, __WASI_WHENCE_SET, &pos);
    write_all(fd, "!");
    __wasi_fd_filestat_get(fd, &st);
    LINE("fd_fdstat_set_flags-append", "%s flags=%u size=%llu\n", errno_name(e), fs.fs_flags & 0x1f, (unsigned long long)st.size);
    LINE("fd_sync", "%s\n", errno_name(__wasi_fd_sync(fd)));
    LINE("fd_datasync", "%s\n", errno_name(__wasi_fd_datasync(fd)));
    LINE("fd_advise", "%s\n", errno_name(__wasi_fd_advise(fd, 0, 10, __WASI_ADVICE_NORMAL)));
    e = __wasi_fd_allocate(fd, 0, 64);
    __wasi_fd_filestat_get(fd, &st);
    LINE("fd_allocate", "%s size=%llu\n", errno_name(e), (unsigned long long)st.size);
    LINE("fd_close", "%s\n", errno_name(__wasi_fd_close(fd)));
    LINE("fd_close-again", "%s\n", errno_name(__wasi_fd_close(fd)));

    __wasi_fd_t again;
    e = open_at("f", 0, __WASI_OFLAGS_CREAT | __WASI_OFLAGS_EXCL, 0, &again);
    LINE("path_open-excl-existing", "%s\n", errno_name(e));
    e = open_at("missing", 0, 0, 0, &again);
    LINE("path_open-missing", "%s\n", errno_name(e));
    e = open_at("f", 0, __WASI_OFLAGS_DIRECTORY, 0, &again);
    LINE("path_open-directory-on-file", "%s\n", errno_name(e));
}

static void sections_directories(void) {
    LINE("path_create_directory", "%s\n", errno_name(__wasi_path_create_directory(dir, "d")));
    LINE("path_create_directory-existing", "%s\n", errno_name(__wasi_path_create_directory(dir, "d")));
    const char *names[] = { "d/a", "d/b", "d/c", "d/e" };
    for (int i = 0; i < 4; i++) {
        __wasi_fd_t fd;
        if (open_at(names[i], 0, __WASI_OFLAGS_CREAT, 0, &fd) == 0) __wasi_fd_close(fd);
    }
    stat_line("path_filestat_get-dir", "d", 1);

    __wasi_fd_t d;
    __wasi_errno_t e = open_at("d", 0, __WASI_OFLAGS_DIRECTORY, 0, &d);
    LINE("path_open-directory", "%s\n", errno_name(e));
    char *all[16];
    __wasi_dircookie_t cookies[16];
    int total = list_dir(d, 0, all, cookies, 16);
    if (total < 2) {
        LINE("fd_readdir", "failed\n");
        return;
    }
    char *sorted[16];
    memcpy(sorted, all, sizeof(char *) * (total > 0 ? total : 0));
    qsort(sorted, total, sizeof(char *), compare_names);
    printf("fd_readdir: %d", total);
    for (int i = 0; i < total; i++) printf(" %s", sorted[i]);
    printf("\n");
    // Resuming at the cookie of the second entry gives exactly the entries after it.
    char *rest[16];
    __wasi_dircookie_t rest_cookies[16];
    int resumed = list_dir(d, cookies[1], rest, rest_cookies, 16);
    int consistent = resumed == total - 2;
    for (int i = 0; consistent && i < resumed; i++) consistent = strcmp(rest[i], all[i + 2]) == 0;
    LINE("fd_readdir-cookie", "%s\n", consistent ? "consistent" : "inconsistent");
    uint8_t tiny[8];
    __wasi_size_t used = 0;
    e = __wasi_fd_readdir(d, tiny, sizeof tiny, 0, &used);
    LINE("fd_readdir-small-buffer", "%s used=%lu\n", errno_name(e), (unsigned long)used);
    __wasi_fd_close(d);

    LINE("path_remove_directory-not-empty", "%s\n", errno_name(__wasi_path_remove_directory(dir, "d")));
    LINE("path_remove_directory-file", "%s\n", errno_name(__wasi_path_remove_directory(dir, "f")));
    LINE("path_unlink_file-directory", "%s\n", errno_name(__wasi_path_unlink_file(dir, "d")));
    __wasi_path_create_directory(dir, "empty");
    LINE("path_remove_directory", "%s\n", errno_name(__wasi_path_remove_directory(dir, "empty")));
    stat_line("path_filestat_get-removed", "empty", 1);
}

static void sections_slashes(void) {
    __wasi_fd_t fd;
    LINE("path_open-file-slash", "%s\n", errno_name(open_at("f/", 0, 0, 0, &fd)));
    stat_line("path_filestat_get-file-slash", "f/", 1);
    stat_line("path_filestat_get-dir-slash", "d/", 1);
    LINE("path_unlink_file-file-slash", "%s\n", errno_name(__wasi_path_unlink_file(dir, "f/")));
    LINE("path_create_directory-slash", "%s\n", errno_name(__wasi_path_create_directory(dir, "g/")));
    stat_line("path_create_directory-slash-made", "g", 1);
}

static void sections_symlinks(void) {
    LINE("path_symlink", "%s\n", errno_name(__wasi_path_symlink("f", dir, "l")));
    LINE("path_symlink-existing", "%s\n", errno_name(__wasi_path_symlink("f", dir, "l")));
    char buf[64];
    __wasi_size_t used = 0;
    __wasi_errno_t e = __wasi_path_readlink(dir, "l", (uint8_t *)buf, sizeof buf - 1, &used);
    buf[used] = 0;
    LINE("path_readlink", "%s %s\n", errno_name(e), buf);
    e = __wasi_path_readlink(dir, "f", (uint8_t *)buf, sizeof buf - 1, &used);
    LINE("path_readlink-file", "%s\n", errno_name(e));
    stat_line("path_filestat_get-follow", "l", 1);
    stat_line("path_filestat_get-nofollow", "l", 0);
    __wasi_fd_t fd;
    e = open_at("l", 0, 0, 0, &fd);
    LINE("path_open-nofollow-symlink", "%s\n", errno_name(e));
    e = open_at("l", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, 0, &fd);
    LINE("path_open-follow-symlink", "%s\n", errno_name(e));
    if (e == 0) __wasi_fd_close(fd);
    __wasi_path_symlink("nowhere", dir, "dangling");
    e = open_at("dangling", __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, 0, 0, &fd);
    LINE("path_open-dangling", "%s\n", errno_name(e));
    stat_line("path_filestat_get-dangling-nofollow", "dangling", 0);
    LINE("path_unlink_file-symlink", "%s\n", errno_name(__wasi_path_unlink_file(dir, "dangling")));
    stat_line("path_filestat_get-unlinked", "dangling", 0);
}

static void sections_rename(void) {
    __wasi_fd_t fd;
    open_at("h", 0, __WASI_OFLAGS_CREAT, 0, &fd);
    write_all(fd, "HH");
    __wasi_fd_close(fd);
    LINE("path_rename-over-existing", "%s\n", errno_name(__wasi_path_rename(dir, "h", dir, "f")));
    stat_line("path_rename-target", "f", 1);
    stat_line("path_rename-source", "h", 1);
    LINE("path_rename-dir-over-file", "%s\n", errno_name(__wasi_path_rename(dir, "g", dir, "f")));
    LINE("path_rename-file-over-dir", "%s\n", errno_name(__wasi_path_rename(dir, "f", dir, "g")));
    LINE("path_rename-dir-over-non-empty", "%s\n", errno_name(__wasi_path_rename(dir, "g", dir, "d")));
    LINE("path_rename-dir", "%s\n", errno_name(__wasi_path_rename(dir, "g", dir, "g2")));
    LINE("path_rename-missing", "%s\n", errno_name(__wasi_path_rename(dir, "nothing", dir, "x")));
}

static void sections_time(void) {
    __wasi_timestamp_t res = 0, a = 0, b = 0, real = 0;
    __wasi_errno_t e = __wasi_clock_res_get(__WASI_CLOCKID_MONOTONIC, &res);
    LINE("clock_res_get", "%s %s\n", errno_name(e), res > 0 ? "positive" : "zero");
    __wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 1, &a);
    __wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 1, &b);
    LINE("clock_time_get-monotonic", "%s\n", b >= a ? "non-decreasing" : "decreasing");
    e = __wasi_clock_time_get(__WASI_CLOCKID_REALTIME, 1, &real);
    LINE("clock_time_get-realtime", "%s %s\n", errno_name(e), real / 1000000000ull > 1600000000ull ? "plausible" : "implausible");
    e = __wasi_clock_time_get(99, 1, &real);
    LINE("clock_time_get-unknown", "%s\n", errno_name(e));

    uint8_t r1[32] = { 0 }, r2[32] = { 0 };
    e = __wasi_random_get(r1, sizeof r1);
    __wasi_random_get(r2, sizeof r2);
    int zero = 1;
    for (size_t i = 0; i < sizeof r1; i++) zero &= r1[i] == 0;
    LINE("random_get", "%s %s %s\n", errno_name(e), zero ? "zero" : "nonzero", memcmp(r1, r2, sizeof r1) ? "distinct" : "repeated");

    __wasi_subscription_t subs[2];
    __wasi_event_t events[2];
    __wasi_size_t nevents = 0;
    memset(subs, 0, sizeof subs);
    subs[0].userdata = 42;
    subs[0].u.tag = __WASI_EVENTTYPE_CLOCK;
    subs[0].u.u.clock.id = __WASI_CLOCKID_MONOTONIC;
    subs[0].u.u.clock.timeout = 20 * 1000000ull;
    __wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 1, &a);
    e = __wasi_poll_oneoff(subs, events, 1, &nevents);
    __wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 1, &b);
    LINE("poll_oneoff-clock", "%s n=%lu userdata=%llu type=%u error=%u waited=%s\n", errno_name(e), (unsigned long)nevents, (unsigned long long)events[0].userdata, events[0].type, events[0].error, b - a >= 20 * 1000000ull ? "enough" : "short");
    subs[1] = subs[0];
    subs[1].userdata = 7;
    subs[1].u.u.clock.timeout = 10 * 1000000000ull;
    subs[0].u.u.clock.timeout = 5 * 1000000ull;
    e = __wasi_poll_oneoff(subs, events, 2, &nevents);
    LINE("poll_oneoff-two-clocks", "%s n=%lu first=%llu\n", errno_name(e), (unsigned long)nevents, (unsigned long long)events[0].userdata);
    __wasi_clock_time_get(__WASI_CLOCKID_REALTIME, 1, &real);
    subs[0].u.u.clock.id = __WASI_CLOCKID_REALTIME;
    subs[0].u.u.clock.timeout = real + 5 * 1000000ull;
    subs[0].u.u.clock.flags = __WASI_SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME;
    e = __wasi_poll_oneoff(subs, events, 1, &nevents);
    LINE("poll_oneoff-absolute", "%s n=%lu userdata=%llu\n", errno_name(e), (unsigned long)nevents, (unsigned long long)events[0].userdata);
}

/** The calls docs/architecture.md §4 makes ENOSYS (a reference runtime may implement them). */
static void sections_enosys(void) {
    __wasi_subscription_t sub;
    __wasi_event_t event;
    __wasi_size_t n = 0;
    memset(&sub, 0, sizeof sub);
    sub.u.tag = __WASI_EVENTTYPE_FD_READ;
    sub.u.u.fd_read.file_descriptor = 0;
    LINE("enosys-poll_oneoff-fd", "%s\n", errno_name(__wasi_poll_oneoff(&sub, &event, 1, &n)));
    uint8_t buf[4];
    __wasi_iovec_t iov = { buf, sizeof buf };
    __wasi_ciovec_t ciov = { buf, sizeof buf };
    __wasi_size_t count = 0;
    __wasi_roflags_t roflags = 0;
    __wasi_fd_t fd = 0;
    LINE("enosys-sock_recv", "%s\n", errno_name(__wasi_sock_recv(0, &iov, 1, 0, &count, &roflags)));
    LINE("enosys-sock_send", "%s\n", errno_name(__wasi_sock_send(1, &ciov, 1, 0, &count)));
    LINE("enosys-sock_accept", "%s\n", errno_name(__wasi_sock_accept(0, 0, &fd)));
    LINE("enosys-sock_shutdown", "%s\n", errno_name(__wasi_sock_shutdown(0, __WASI_SDFLAGS_RD)));
    LINE("enosys-proc_raise", "%s\n", errno_name((__wasi_errno_t)raw_proc_raise(10)));
    __wasi_fd_t file;
    open_at("f", 0, 0, 0, &file);
    LINE("enosys-fd_pread", "%s\n", errno_name(__wasi_fd_pread(file, &iov, 1, 0, &count)));
    LINE("enosys-fd_pwrite", "%s\n", errno_name(__wasi_fd_pwrite(file, &ciov, 1, 0, &count)));
    LINE("enosys-fd_renumber", "%s\n", errno_name(__wasi_fd_renumber(file, 1)));
    LINE("enosys-path_link", "%s\n", errno_name(__wasi_path_link(dir, 0, "f", dir, "hard")));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: conformance DIR\n");
        return 2;
    }
    printf("args: %d", argc - 1);
    for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);
    printf("\n");
    const char *var = getenv("CONFORMANCE_VAR");
    LINE("environ", "%s\n", var ? var : "(unset)");
    int found = find_preopen(argv[1]);
    LINE("fd_prestat_dir_name", "%s\n", found >= 0 ? "found" : "missing");
    if (found < 0) return 1;
    dir = (__wasi_fd_t)found;
    __wasi_fdstat_t dirstat;
    if (__wasi_fd_fdstat_get(dir, &dirstat) != 0) return 1;
    inheriting = dirstat.fs_rights_inheriting;
    sections_files();
    sections_directories();
    sections_slashes();
    sections_symlinks();
    sections_rename();
    sections_time();
    if (argc > 2 && strcmp(argv[2], "--enosys") == 0) sections_enosys();
    LINE("proc_exit", "7\n");
    fflush(stdout);
    __wasi_proc_exit(7);
    printf("after proc_exit\n");
    return 0;
}
