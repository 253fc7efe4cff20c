// The Firecracker API requests of a gate VM (Firecracker's REST API on its Unix socket):
// one function per request body, pure, checked against golden payloads
// (golden/*.json). The guest is the qemu backend's image: the same kernel, initramfs, root
// and agent; the disks are found by the agent through their serials... which Firecracker
// does not set, so drive order is fixed instead: root, input, output = vda, vdb, vdc.

import type { SandboxSpec } from '../contract.js';
import { kernelCommandLine } from '../qemu/command-line.js';
import type { ImagePaths } from '../qemu/image.js';

export interface ApiRequest {
  method: 'PUT' | 'PATCH' | 'GET';
  path: string;
  body?: Record<string, unknown>;
}

export interface FirecrackerVm {
  image: ImagePaths;
  inputDisk: string;
  outputDisk: string;
  memoryMiB: number;
  tscKhz: number;
}

export function bootSource(vm: FirecrackerVm): ApiRequest {
  const args = `${kernelCommandLine({ accel: 'kvm', memoryMiB: vm.memoryMiB, proxyPort: null, tscKhz: vm.tscKhz })} airlock.disks=order`;
  return { method: 'PUT', path: '/boot-source', body: { kernel_image_path: vm.image.kernel, initrd_path: vm.image.initrd, boot_args: args } };
}

export function drives(vm: FirecrackerVm): ApiRequest[] {
  const drive = (id: string, path: string, readOnly: boolean): ApiRequest => ({
    method: 'PUT', path: `/drives/${id}`, body: { drive_id: id, path_on_host: path, is_root_device: false, is_read_only: readOnly },
  });
  return [drive('root', vm.image.root, true), drive('input', vm.inputDisk, true), drive('output', vm.outputDisk, false)];
}

export function machineConfig(vm: FirecrackerVm): ApiRequest {
  return { method: 'PUT', path: '/machine-config', body: { vcpu_count: 1, mem_size_mib: vm.memoryMiB, smt: false } };
}

export function instanceStart(): ApiRequest {
  return { method: 'PUT', path: '/actions', body: { action_type: 'InstanceStart' } };
}

/** The requests that configure and start a cold VM, in order. */
export function coldBoot(vm: FirecrackerVm, spec: SandboxSpec): ApiRequest[] {
  if (spec.network === 'scoped') throw new Error("firecracker: network 'scoped' needs a tap device routed to the egress proxy; not supported yet");
  return [bootSource(vm), ...drives(vm), machineConfig(vm), instanceStart()];
}

/** Pausing a booted idle guest and writing its snapshot (the warm start's source). */
export function snapshotCreate(snapshotPath: string, memPath: string): ApiRequest[] {
  return [
    { method: 'PATCH', path: '/vm', body: { state: 'Paused' } },
    { method: 'PUT', path: '/snapshot/create', body: { snapshot_type: 'Full', snapshot_path: snapshotPath, mem_file_path: memPath } },
  ];
}

/** Restoring it in a fresh Firecracker process; the run's disks are swapped in before resuming. */
export function snapshotLoad(snapshotPath: string, memPath: string, vm: FirecrackerVm): ApiRequest[] {
  return [
    { method: 'PUT', path: '/snapshot/load', body: { snapshot_path: snapshotPath, mem_backend: { backend_type: 'File', backend_path: memPath }, enable_diff_snapshots: false, resume_vm: false } },
    { method: 'PATCH', path: '/drives/input', body: { drive_id: 'input', path_on_host: vm.inputDisk } },
    { method: 'PATCH', path: '/drives/output', body: { drive_id: 'output', path_on_host: vm.outputDisk } },
    { method: 'PATCH', path: '/vm', body: { state: 'Resumed' } },
  ];
}

/** The jailer's argv when a jailer binary is configured (chroot, uid/gid drop, cgroups). */
export function jailerArgs(options: { jailer: string; firecracker: string; id: string; uid: number; gid: number; chrootBase: string }): string[] {
  return [options.jailer, '--id', options.id, '--exec-file', options.firecracker, '--uid', String(options.uid), '--gid', String(options.gid), '--chroot-base-dir', options.chrootBase, '--', '--api-sock', '/run/firecracker.socket'];
}
