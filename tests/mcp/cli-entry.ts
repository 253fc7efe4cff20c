// `airlock` from source, for tests that start the CLI as a process (the MCP stdio server):
// node --import tsx tests/mcp/cli-entry.ts mcp …
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
