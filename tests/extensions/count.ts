// A server-hosted extension in TypeScript (loaded through tsx): a named export.
import type { ExtensionCall, ExtensionResult } from '../../src/host/extensions/spec.js';

export async function count({ stdin }: ExtensionCall): Promise<ExtensionResult> {
  let bytes = 0;
  for await (const piece of stdin) bytes += piece.length;
  return { stdout: `${bytes}\n` };
}
