// When runs are jailed (resolveJailer: present and configured, else a reason), and the
// names a warm snapshot is kept under (snapshot.ts).
import { describe, expect, it } from 'vitest';
import { resolveJailer } from './launch.js';
import { snapshotFiles, versionTag } from './snapshot.js';

const base = { jailerBinary: '/opt/fc/jailer', firecracker: '/opt/fc/firecracker', isRoot: true };

describe('resolveJailer', () => {
  it('jails when a jailer is present and a uid and gid are configured (default chroot /srv/jailer)', () => {
    expect(resolveJailer({ ...base, configured: { uid: '1000', gid: '1000' } })).toEqual({
      config: { jailer: '/opt/fc/jailer', uid: 1000, gid: 1000, chrootBase: '/srv/jailer' }, status: 'used: uid 1000, gid 1000, chroot /srv/jailer', problem: null,
    });
    expect(resolveJailer({ ...base, configured: { uid: 123, gid: 100, chrootBase: '/var/jail' } }).config?.chrootBase).toBe('/var/jail');
  });

  it('runs unjailed, saying so, when nothing is configured (present or not)', () => {
    expect(resolveJailer({ ...base, configured: {} })).toMatchObject({ config: null, problem: null, status: expect.stringMatching(/^present but not configured \(set AIRLOCK_FIRECRACKER_UID and AIRLOCK_FIRECRACKER_GID\)/) });
    expect(resolveJailer({ ...base, jailerBinary: null, configured: {} })).toMatchObject({ config: null, problem: null, status: 'absent: runs are not jailed' });
  });

  it('a configuration that is set but unusable is a problem, never a silent unjailed run', () => {
    const problem = (input: Partial<Parameters<typeof resolveJailer>[0]>): string | null => resolveJailer({ ...base, configured: { uid: '1000', gid: '1000' }, ...input }).problem;
    expect(problem({ jailerBinary: null })).toMatch(/^jailer: no jailer binary/);
    expect(problem({ configured: { uid: '1000' } })).toMatch(/must both be set/);
    expect(problem({ configured: { uid: '0', gid: '0' } })).toMatch(/AIRLOCK_FIRECRACKER_UID '0' is not a uid\/gid \(an integer from 1 to 4294967294; 0 would not drop root\)/);
    expect(problem({ configured: { uid: '1000', gid: 'users' } })).toMatch(/AIRLOCK_FIRECRACKER_GID 'users'/);
    expect(problem({ configured: { uid: '1000', gid: '1000', chrootBase: 'jail' } })).toMatch(/chroot base 'jail' is not an absolute path/);
    expect(problem({ isRoot: false })).toMatch(/must be started as root/);
    expect(problem({ firecracker: '/opt/fc/fc-1.7' })).toMatch(/name contains 'firecracker' \(not 'fc-1\.7'\)/);
  });
});

describe('warm snapshot files', () => {
  it('one per memory size, jailed or not, and Firecracker version', () => {
    expect(snapshotFiles('/cache/k', { memoryMiB: 576, jailed: false, version: 'Firecracker v1.7.0' })).toEqual({
      state: '/cache/k/fc-warm-direct-576m-v1.7.0.snap', memory: '/cache/k/fc-warm-direct-576m-v1.7.0.mem',
      input: '/cache/k/fc-warm-direct-576m-v1.7.0.input.img', output: '/cache/k/fc-warm-direct-576m-v1.7.0.output.img',
    });
    expect(snapshotFiles('/c', { memoryMiB: 1344, jailed: true, version: null }).state).toBe('/c/fc-warm-jailed-1344m-unknown.snap');
    expect(versionTag('1.10.1')).toBe('v1.10.1');
  });
});
