// `airlock mcp`: the MCP server over stdio (docs/mcp.md). One client, one session, one
// sandbox; it ends (and the sandbox with it) when the client closes stdin. Logs go to
// stderr: stdout carries only the protocol.

import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpSessions } from '../../../server/mcp/sessions.js';
import type { CliCommand, CliContext } from '../command.js';
import { runPolicy } from '../run/net-policy.js';

const USAGE = `Usage: airlock mcp [options]

Serves one MCP client on stdin/stdout (docs/mcp.md): its own sandbox as tools — run,
read_file, write_file, edit_file, list_files, snapshot, restore, fork, close_fork, run_gate.
Nothing runs on this machine; the sandbox ends when the client disconnects.

options:
  --net GROUP|HOST        let the sandbox reach a group (github, provider, package-registry)
                          or host (repeatable; default: no network)
  --net-mode strict|open  open: any public host (the SSRF floor still holds)
  --net-policy FILE       a policy file (docs/network.md)
  --allow-tools LIST      tools the sandbox may run, comma-separated (default: all)
  --timeout-ms N          each command's time limit (default: the sandbox's)
  --gate-backend NAME     where run_gate runs (default wasm)
  -h, --help              show this help
`;

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'serve a sandbox to an MCP client over stdio',
  usage: USAGE,
  async main(argv: string[], cli: CliContext): Promise<number> {
    let values: ReturnType<typeof parse>['values'];
    try {
      values = parse(argv).values;
    } catch (error) {
      return cli.usageError((error as Error).message, 'mcp');
    }
    if (values.help === true) {
      process.stdout.write(USAGE);
      return 0;
    }
    const netMode = values['net-mode'];
    if (netMode !== undefined && netMode !== 'strict' && netMode !== 'open') return cli.usageError(`--net-mode must be strict or open, not ${netMode}`, 'mcp');
    const timeout = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
    if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) return cli.usageError(`--timeout-ms must be a positive whole number of milliseconds, not ${values['timeout-ms']}`, 'mcp');
    const backend = values['gate-backend'];
    if (backend !== undefined && !['wasm', 'qemu', 'firecracker'].includes(backend)) return cli.usageError(`--gate-backend must be wasm, qemu or firecracker, not ${backend}`, 'mcp');
    let network;
    try {
      network = runPolicy({ net: values.net ?? [], ...(netMode === undefined ? {} : { netMode }), ...(values['net-policy'] === undefined ? {} : { netPolicy: values['net-policy'] }) });
    } catch (error) {
      process.stderr.write(`airlock mcp: ${(error as Error).message}\n`);
      return 2;
    }
    const sessions = new McpSessions({
      sandbox: {
        ...(network === undefined ? {} : { network }),
        ...(values['allow-tools'] === undefined ? {} : { allowedTools: values['allow-tools'].split(',').map((t) => t.trim()).filter(Boolean) }),
        ...(timeout === undefined ? {} : { limits: { timeoutMs: timeout } }),
      },
      maxSessions: 1,
      // stdio: the client's lifetime is the session's; no idle end.
      idleMs: 2 ** 31 - 1,
      ...(backend === undefined ? {} : { gate: { backend: backend as 'wasm' } }),
    });
    const { server } = await sessions.create();
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    await server.connect(transport);
    await closed;
    await sessions.closeAll();
    return 0;
  },
};

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      net: { type: 'string', multiple: true },
      'net-mode': { type: 'string' },
      'net-policy': { type: 'string' },
      'allow-tools': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'gate-backend': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}
