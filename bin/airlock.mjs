#!/usr/bin/env node
// The `airlock` command. In a source checkout the CLI is bundled on first use.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/node/cli.mjs`;
if (!existsSync(cli)) {
  const { buildNode } = await import('../scripts/build-node.mjs');
  await buildNode(root);
}
const { main } = await import(cli);
process.exitCode = await main(process.argv.slice(2));
