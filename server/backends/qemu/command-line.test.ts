import { describe, expect, it } from 'vitest';
import { qemuArgs } from './command-line.js';
import type { ImagePaths } from './image.js';

const image: ImagePaths = { key: 'k', dir: '/c/k', kernel: '/c/k/vmlinuz', initrd: '/c/k/initrd.cpio', root: '/c/k/root.img', manifest: '/c/k/manifest.json' };
const disks = { input: '/r/input.img', output: '/r/output.img' };

describe('qemuArgs', () => {
  it('network none: no NIC at all, disks by serial, root and input read-only', () => {
    const args = qemuArgs(image, { accel: 'tcg', memoryMiB: 640, proxyPort: null, tscKhz: 2100000 }, disks);
    expect(args.join(' ')).not.toMatch(/netdev|virtio-net/);
    expect(args).toContain('id=root,file=/c/k/root.img,format=raw,if=none,readonly=on');
    expect(args).toContain('id=in,file=/r/input.img,format=raw,if=none,readonly=on');
    expect(args).toContain('id=out,file=/r/output.img,format=raw,if=none');
    expect(args).toContain('-nodefaults');
    expect(args[args.indexOf('-append') + 1]).toContain('airlock.net=0');
    expect(args[args.indexOf('-M') + 1]).toMatch(/^microvm,/);
  });

  it('scoped: restrict=on user network whose only opening is the guestfwd to the loopback proxy', () => {
    const args = qemuArgs(image, { accel: 'kvm', memoryMiB: 640, proxyPort: 41234, tscKhz: 1 }, disks);
    expect(args[args.indexOf('-netdev') + 1]).toBe('user,id=net0,restrict=on,ipv6=off,net=10.0.2.0/24,host=10.0.2.2,guestfwd=tcp:10.0.2.100:3128-tcp:127.0.0.1:41234');
    expect(args[args.indexOf('-cpu') + 1]).toBe('host');
    expect(args[args.indexOf('-append') + 1]).toContain('airlock.net=1');
  });
});
