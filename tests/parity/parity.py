# The syscall parity cases (tests/parity/cases.ts) through Python's os module: run by the
# host's CPython on Linux (the oracle for the expected results) and by python3 in the
# sandbox (the kernel's Python channel). Reads {"root": DIR, "cases": [...]} as JSON on
# stdin, runs each case in its own new directory under DIR, and prints "ID RESULT" lines,
# where RESULT is the call's result, then " | PATH STATE" for each path of `after`.

import errno
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

OPEN_FLAGS = {
    'rdonly': os.O_RDONLY, 'wronly': os.O_WRONLY, 'rdwr': os.O_RDWR, 'creat': os.O_CREAT,
    'excl': os.O_EXCL, 'trunc': os.O_TRUNC, 'directory': os.O_DIRECTORY,
    'nofollow': os.O_NOFOLLOW, 'append': os.O_APPEND,
}


def kind_of(mode):
    for test, name in ((os.path.stat.S_ISDIR, 'dir'), (os.path.stat.S_ISREG, 'file'),
                       (os.path.stat.S_ISLNK, 'symlink'), (os.path.stat.S_ISCHR, 'chardev')):
        if test(mode):
            return name
    return 'other'


def state_of(path):
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return 'missing'
    kind = kind_of(info.st_mode)
    return '%s:%d' % (kind, info.st_size) if kind == 'file' else kind


def setup(entry):
    if 'dir' in entry:
        os.mkdir(entry['dir'])
    elif 'file' in entry:
        with open(entry['file'], 'w') as f:
            f.write(entry.get('content', ''))
        if 'mode' in entry:
            os.chmod(entry['file'], entry['mode'])
    else:
        os.symlink(entry['target'], entry['symlink'])


def call(op, args):
    """Makes the call; returns the detail of a success (raises OSError for a failure)."""
    if op == 'open':
        flags = 0
        for name in args[1].split(','):
            flags |= OPEN_FLAGS[name]
        os.close(os.open(args[0], flags, 0o644))
    elif op == 'unlink':
        os.unlink(args[0])
    elif op == 'rmdir':
        os.rmdir(args[0])
    elif op == 'mkdir':
        os.mkdir(args[0])
    elif op == 'rename':
        os.rename(args[0], args[1])
    elif op == 'symlink':
        os.symlink(args[0], args[1])
    elif op in ('stat', 'lstat'):
        return kind_of((os.stat if op == 'stat' else os.lstat)(args[0]).st_mode)
    elif op == 'readlink':
        return os.readlink(args[0])
    elif op == 'readdir':
        return ','.join(sorted(os.listdir(args[0])))
    elif op == 'pipe-eof':
        read_end, write_end = os.pipe()
        os.close(write_end)
        try:
            return str(len(os.read(read_end, 16)))
        finally:
            os.close(read_end)
    elif op == 'pipe-write-read-end':
        read_end, write_end = os.pipe()
        try:
            return str(os.write(read_end, b'x'))
        finally:
            os.close(read_end)
            os.close(write_end)
    elif op == 'dup':
        os.close(os.dup(int(args[0])))
    elif op == 'dup2':
        os.dup2(int(args[0]), int(args[1]))
    elif op == 'spawn':
        subprocess.Popen([args[0]]).wait()
    elif op == 'wait':
        os.waitpid(int(args[0]), 0)
    elif op == 'kill':
        os.kill(os.getpid() if args[0] == 'self' else int(args[0]), int(args[1]))
    elif op == 'sleep':
        import time
        time.sleep(int(args[0]) / 1000)
    elif op == 'net':
        try:
            return str(urllib.request.urlopen(args[0], timeout=10).status)
        except urllib.error.URLError as error:
            if isinstance(error.reason, OSError):
                raise error.reason
            raise
    else:
        raise ValueError('unknown call %s' % op)
    return ''


def run_case(root, case):
    directory = os.path.join(root, case['id'])
    os.mkdir(directory)
    os.chdir(directory)
    try:
        for entry in case.get('setup', []):
            setup(entry)
        try:
            detail = call(case['call'][0], case['call'][1:])
            result = 'ok' + (' ' + detail if detail else '')
        except OSError as error:
            result = errno.errorcode.get(error.errno, 'errno %s' % error.errno)
        after = ['%s %s' % (path, state_of(path)) for path in case.get('after', {})]
        return ' | '.join([result] + after)
    finally:
        os.chdir(root)


def main():
    request = json.load(sys.stdin)
    root = request['root']
    for case in request['cases']:
        print(case['id'], run_case(root, case), flush=True)


main()
