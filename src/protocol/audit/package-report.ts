// What the kernel's `pkg` tells the host it did (a `package` worker event): an install, a
// removal or a refused install. The host checks each report's shape before believing it and
// records it as a `sandbox-reported` package.* event (docs/audit.md): the sandbox is not
// trusted to tell the truth, but the trail shows what it said it installed.

export type PackageReport =
  | { action: 'installed'; name: string; version: string; host: string; bytes: number; sha256: string }
  | { action: 'removed'; name: string }
  | { action: 'refused'; name: string; reason: string };
