// The `airlock` subcommands, in the order `airlock --help` lists them.

import type { CliCommand } from './command.js';
import { runCommand } from './run/run-command.js';
import { auditCommand } from './audit/audit-command.js';
import { gateCommand } from './gate/gate-command.js';
import { mcpCommand } from './mcp/mcp-command.js';
import { agentCommand } from './agent/agent-command.js';

export const COMMANDS: readonly CliCommand[] = [runCommand, auditCommand, gateCommand, mcpCommand, agentCommand];
