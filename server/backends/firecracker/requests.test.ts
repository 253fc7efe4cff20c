// Firecracker's API requests against golden payloads (golden/*.json, written from
// Firecracker's API specification), and the backend's contract suite, skipped with the
// reason health() gives here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeContract } from '../contract-suite.js';
import { parseSandboxSpec } from '../spec.js';
import { FirecrackerSandboxClient } from './firecracker-client.js';
import { jailerArgs } from './launch.js';
import { coldBoot, snapshotCreate, snapshotLoad, type FirecrackerVm } from './requests.js';

const golden = (name: string): unknown => JSON.parse(readFileSync(join(import.meta.dirname, 'golden', name), 'utf8'));
const vm: FirecrackerVm = { kernel: '/cache/k/vmlinuz', initrd: '/cache/k/initrd.cpio', rootDisk: '/cache/k/root.img', inputDisk: '/runs/r/input.img', outputDisk: '/runs/r/output.img', memoryMiB: 1344, tscKhz: 0 };

describe('firecracker API requests', () => {
  it('cold boot: boot source, three drives, machine config, start', () => {
    expect(coldBoot(vm, parseSandboxSpec({ phases: [{ name: 't', argv: ['true'] }] }))).toEqual(golden('cold-boot.json'));
  });
  it('snapshot create and load (the run disks swapped in before resuming)', () => {
    expect(snapshotCreate('/cache/k/fc.snap', '/cache/k/fc.mem')).toEqual(golden('snapshot-create.json'));
    expect(snapshotLoad('/cache/k/fc.snap', '/cache/k/fc.mem', vm)).toEqual(golden('snapshot-load.json'));
  });
  it('scoped network is refused with the reason', () => {
    expect(() => coldBoot(vm, parseSandboxSpec({ network: 'scoped', phases: [{ name: 't', argv: ['true'] }] }))).toThrow(/needs a tap device/);
  });
  it('jailer argv (the API socket at the jail root, which the jailer makes Firecracker own)', () => {
    expect(jailerArgs({ jailer: '/usr/bin/jailer', firecracker: '/usr/bin/firecracker', id: 'r1', uid: 1000, gid: 1000, chrootBase: '/srv/jail' })).toEqual(golden('jailer-argv.json'));
  });
});

const client = new FirecrackerSandboxClient();
describeContract('firecracker', () => client, {
  skipReason: async () => {
    const health = await client.health();
    return health.reachable ? null : `firecracker cannot run here: ${health.reasons.join('; ')}`;
  },
  workPath: '/home/user/work',
  shortBudgetSeconds: 3,
});
