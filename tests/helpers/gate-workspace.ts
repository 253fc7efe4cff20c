// For the gate tests (the runner, the CLI): a scratch root holding a workspace to gate.

import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh root (named from `prefix`) with `ws/.airlock/` in it, where a workspace's gate.yaml goes. */
export function scratchGateWorkspace(prefix: string): { root: string; workspace: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.airlock'), { recursive: true });
  return { root, workspace };
}
