// For the CLI's tests: runs the CLI entry in this process with its output captured.
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

/** `airlock ARGS` in this process: its exit code and what it wrote to stdout and stderr. */
export async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
