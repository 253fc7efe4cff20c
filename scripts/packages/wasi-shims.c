/* POSIX functions wasi-libc (Debian 12) lacks that the registry's programs call. WASI has
 * no owners or permission bits, so chmod and chown only check that the file exists;
 * realpath makes the path absolute and folds '.', '..' and repeated '/' (without resolving
 * symlinks); system reports that there is no shell, as C allows; mkstemp and tmpfile
 * create a new file under /tmp with a random name. Only for the registry's
 * programs (scripts/build-packages.mjs).
 *
 * And each program starts in the shell's working directory: WASI has no working directory
 * (the sandbox preopens / only), and wasi-libc starts every program at "/", so `sqlite3
 * data.db` would open /data.db. The shell exports PWD; a constructor chdirs there (wasi-libc
 * then resolves relative paths against it), before main. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

__attribute__((constructor)) static void start_in_pwd(void) {
  const char *pwd = getenv("PWD");
  if (pwd != NULL && pwd[0] == '/') chdir(pwd);
}

int chmod(const char *path, mode_t mode) {
  (void)mode;
  struct stat st;
  return stat(path, &st);
}

int fchmod(int fd, mode_t mode) {
  (void)mode;
  struct stat st;
  return fstat(fd, &st);
}

int chown(const char *path, uid_t owner, gid_t group) {
  (void)owner;
  (void)group;
  struct stat st;
  return stat(path, &st);
}

char *realpath(const char *restrict path, char *restrict resolved) {
  char joined[PATH_MAX];
  if (path == NULL) {
    errno = EINVAL;
    return NULL;
  }
  if (path[0] == '/') {
    if (strlen(path) >= sizeof joined) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    strcpy(joined, path);
  } else {
    if (getcwd(joined, sizeof joined) == NULL) return NULL;
    size_t length = strlen(joined);
    if (length + 1 + strlen(path) >= sizeof joined) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    joined[length] = '/';
    strcpy(joined + length + 1, path);
  }
  struct stat st;
  if (stat(joined, &st) != 0) return NULL;
  char *out = resolved != NULL ? resolved : malloc(PATH_MAX);
  if (out == NULL) return NULL;
  size_t used = 0;
  const char *p = joined;
  while (*p != '\0') {
    while (*p == '/') p++;
    const char *end = p;
    while (*end != '\0' && *end != '/') end++;
    size_t part = (size_t)(end - p);
    if (part == 0 || (part == 1 && p[0] == '.')) {
      /* nothing */
    } else if (part == 2 && p[0] == '.' && p[1] == '.') {
      while (used > 0 && out[used - 1] != '/') used--;
      if (used > 0) used--;
    } else {
      out[used++] = '/';
      memcpy(out + used, p, part);
      used += part;
    }
    p = end;
  }
  if (used == 0) out[used++] = '/';
  out[used] = '\0';
  return out;
}

int system(const char *command) {
  if (command == NULL) return 0;
  errno = ENOSYS;
  return -1;
}

int mkstemp(char *template) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  size_t length = strlen(template);
  if (length < 6 || strcmp(template + length - 6, "XXXXXX") != 0) {
    errno = EINVAL;
    return -1;
  }
  for (int attempt = 0; attempt < 100; attempt++) {
    for (size_t i = length - 6; i < length; i++) template[i] = letters[arc4random_uniform(sizeof letters - 1)];
    int fd = open(template, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

FILE *tmpfile(void) {
  char name[] = "/tmp/tmpfile_XXXXXX";
  int fd = mkstemp(name);
  if (fd < 0) return NULL;
  unlink(name);
  FILE *file = fdopen(fd, "w+");
  if (file == NULL) close(fd);
  return file;
}
