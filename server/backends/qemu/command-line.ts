// The QEMU command line of a gate VM: -M microvm, no default devices, the serial console on
// stdio (the agent's ready/go protocol), the root image read-only, the input disk read-only,
// the output disk writable, each found by its serial. No NIC unless the spec is scoped; then
// a user-mode network with restrict=on (the guest reaches nothing on the host or beyond)
// whose only opening is a guestfwd from 10.0.2.100:3128 to the egress proxy on loopback.

import type { ImagePaths } from './image.js';
import { GUEST_PROXY } from './plan.js';

export type Accel = 'kvm' | 'tcg';

export interface VmShape {
  accel: Accel;
  memoryMiB: number;
  /** The egress proxy's loopback port when the VM has a NIC; null: no NIC at all. */
  proxyPort: number | null;
  /** Host TSC kHz for the guest's early clock (TCG's TSC is the host's). */
  tscKhz: number;
}

export interface VmDisks {
  input: string;
  output: string;
}

export function kernelCommandLine(shape: VmShape): string {
  // Without a PIT the kernel cannot calibrate the TSC under TCG: tell it (0: KVM knows).
  const tsc = shape.tscKhz > 0 ? [`tsc_early_khz=${shape.tscKhz}`, 'tsc=reliable'] : [];
  return ['console=ttyS0', 'quiet', 'loglevel=3', 'panic=-1', ...tsc, 'random.trust_cpu=on', 'mitigations=off', `airlock.net=${shape.proxyPort === null ? 0 : 1}`].join(' ');
}

export function qemuArgs(image: ImagePaths, shape: VmShape, disks: VmDisks, extra: { incoming?: string; qmpSocket?: string } = {}): string[] {
  const args = [
    '-M', 'microvm,x-option-roms=off,isa-serial=on,rtc=on',
    '-accel', shape.accel,
    '-cpu', shape.accel === 'kvm' ? 'host' : 'max',
    '-m', `${shape.memoryMiB}M`,
    '-smp', '1',
    '-nodefaults', '-no-user-config', '-display', 'none', '-no-reboot',
    '-kernel', image.kernel, '-initrd', image.initrd, '-append', kernelCommandLine(shape),
    '-serial', 'stdio',
    '-drive', `id=root,file=${image.root},format=raw,if=none,readonly=on`, '-device', 'virtio-blk-device,drive=root,serial=airlock-root',
    '-drive', `id=in,file=${disks.input},format=raw,if=none,readonly=on`, '-device', 'virtio-blk-device,drive=in,serial=airlock-in',
    '-drive', `id=out,file=${disks.output},format=raw,if=none`, '-device', 'virtio-blk-device,drive=out,serial=airlock-out',
  ];
  if (shape.proxyPort !== null) {
    const [guestHost, guestPort] = GUEST_PROXY.split(':');
    args.push(
      '-netdev', `user,id=net0,restrict=on,ipv6=off,net=10.0.2.0/24,host=10.0.2.2,guestfwd=tcp:${guestHost}:${guestPort}-tcp:127.0.0.1:${shape.proxyPort}`,
      '-device', 'virtio-net-device,netdev=net0',
    );
  }
  if (extra.qmpSocket !== undefined) args.push('-qmp', `unix:${extra.qmpSocket},server=on,wait=off`);
  if (extra.incoming !== undefined) args.push('-incoming', extra.incoming);
  return args;
}
