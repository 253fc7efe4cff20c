// The Firecracker API requests of a gate VM (Firecracker's REST API on its Unix socket):
// one function per request body, pure, checked against golden payloads
// (golden/*.json). The guest is the qemu backend's image: the same kernel, initramfs, root
// and agent; the disks are found by the agent through their serials... which Firecracker
// does not set, so drive order is fixed instead: root, input, output = vda, vdb, vdc.

import type { SandboxSpec } from '../contract.js';
import { kernelCommandLine } from '../qemu/command-line.js';

export interface ApiRequest {
  method: 'PUT' | 'PATCH' | 'GET';
  path: string;
  body?: Record<string, unknown>;
}

/** A VM's files as Firecracker names them (inside the jail when jailed: launch.ts). */
export interface FirecrackerVm {
  kernel: string;
  initrd: string;
  rootDisk: string;
  inputDisk: string;
  outputDisk: string;
  memoryMiB: number;
  tscKhz: number;
}

export function bootSource(vm: FirecrackerVm): ApiRequest {
  const args = `${kernelCommandLine({ accel: 'kvm', memoryMiB: vm.memoryMiB, proxyPort: null, tscKhz: vm.tscKhz })} airlock.disks=order`;
  return { method: 'PUT', path: '/boot-source', body: { kernel_image_path: vm.kernel, initrd_path: vm.initrd, boot_args: args } };
}

export function drives(vm: FirecrackerVm): ApiRequest[] {
  const drive = (id: string, path: string, readOnly: boolean): ApiRequest => ({
    method: 'PUT', path: `/drives/${id}`, body: { drive_id: id, path_on_host: path, is_root_device: false, is_read_only: readOnly },
  });
  return [drive('root', vm.rootDisk, true), drive('input', vm.inputDisk, true), drive('output', vm.outputDisk, false)];
}

export function machineConfig(vm: FirecrackerVm): ApiRequest {
  return { method: 'PUT', path: '/machine-config', body: { vcpu_count: 1, mem_size_mib: vm.memoryMiB, smt: false } };
}

export function instanceStart(): ApiRequest {
  return { method: 'PUT', path: '/actions', body: { action_type: 'InstanceStart' } };
}

/** The requests that configure and start a VM from cold, in order. */
export function bootRequests(vm: FirecrackerVm): ApiRequest[] {
  return [bootSource(vm), ...drives(vm), machineConfig(vm), instanceStart()];
}

/** A run's cold boot (network `none` only: `scoped` needs a tap device, not built yet). */
export function coldBoot(vm: FirecrackerVm, spec: SandboxSpec): ApiRequest[] {
  if (spec.network === 'scoped') throw new Error(SCOPED_REFUSAL);
  return bootRequests(vm);
}

export const SCOPED_REFUSAL = "firecracker: network 'scoped' needs a tap device routed to the egress proxy; not supported yet";

/**
 * Pausing a booted idle guest (the agent waiting for `go`) and writing its snapshot: the
 * warm start's source, made on a VM's first use (snapshot.ts).
 */
export function snapshotCreate(snapshotPath: string, memPath: string): ApiRequest[] {
  return [
    { method: 'PATCH', path: '/vm', body: { state: 'Paused' } },
    { method: 'PUT', path: '/snapshot/create', body: { snapshot_type: 'Full', snapshot_path: snapshotPath, mem_file_path: memPath } },
  ];
}

/**
 * Restoring it in a fresh Firecracker process: the snapshot's drives are reopened at the
 * paths it recorded, then the run's own disks are patched in (same capacities; the guest
 * has not read them yet) and the VM resumes; the host then sends `go`.
 */
export function snapshotLoad(snapshotPath: string, memPath: string, vm: FirecrackerVm): ApiRequest[] {
  return [
    { method: 'PUT', path: '/snapshot/load', body: { snapshot_path: snapshotPath, mem_backend: { backend_type: 'File', backend_path: memPath }, enable_diff_snapshots: false, resume_vm: false } },
    { method: 'PATCH', path: '/drives/input', body: { drive_id: 'input', path_on_host: vm.inputDisk } },
    { method: 'PATCH', path: '/drives/output', body: { drive_id: 'output', path_on_host: vm.outputDisk } },
    { method: 'PATCH', path: '/vm', body: { state: 'Resumed' } },
  ];
}
