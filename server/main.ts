// The Airlock companion server: serves the playground (dist/web) on 127.0.0.1, the network
// gateway, and the services of server/services.ts. Configuration: defaults < YAML file
// (--config / AIRLOCK_CONFIG) < environment < command line, each checked at start.

import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, envLayer, fileLayer, pathLayer, resolveConfig, type ConfigLayer } from './config/load.js';
import type { ServerConfig } from './config/schema.js';
import type { PageTokens } from './pages/page-token.js';

export const SERVER_USAGE = `Usage: node dist/server/main.mjs [OPTIONS]

Starts the Airlock server: the playground, the network gateway and the other services.
Listens on 127.0.0.1:4173 unless told otherwise; needs no configuration.

  -c, --config FILE       read a YAML configuration file (also AIRLOCK_CONFIG); see docs/server.md
      --host HOST         address to listen on (AIRLOCK_HOST; default 127.0.0.1)
      --port N            port to listen on, 0 for any free one (AIRLOCK_PORT or PORT; default 4173)
      --web DIR           the built web app to serve (AIRLOCK_WEB; default dist/web)
      --net-allow HOSTS   hosts the gateway may reach, comma-separated (AIRLOCK_NET_ALLOW)
      --audit FILE        append audit events (pages' and the gateway's) to FILE, a hash-chained
                          log (AIRLOCK_AUDIT_FILE; checkpoints signed with AIRLOCK_AUDIT_KEY_FILE)
      --log-level LEVEL   fatal, error, warn, info, debug, trace or silent (AIRLOCK_LOG_LEVEL)
  -h, --help              show this help

Environment: AIRLOCK_NET_BLOCK and AIRLOCK_DNS_SERVERS (comma-separated) set
network.blockedHosts and network.dnsServers.
`;

/** A wrong command line (exit status 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

const OPTIONS: Record<string, { path: [string, string]; convert: (text: string) => unknown }> = {
  '--host': { path: ['server', 'host'], convert: (t) => t },
  '--port': { path: ['server', 'port'], convert: (t) => (/^\d+$/.test(t) ? Number(t) : t) },
  '--web': { path: ['server', 'web'], convert: (t) => t },
  '--net-allow': { path: ['network', 'allowedHosts'], convert: (t) => t.split(',').map((s) => s.trim()).filter((s) => s.length > 0) },
  '--log-level': { path: ['log', 'level'], convert: (t) => t },
  '--audit': { path: ['audit', 'file'], convert: (t) => t },
};

/** The configuration the command line and environment ask for, or 'help'. */
export function configFromCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): ServerConfig | 'help' {
  let file = env.AIRLOCK_CONFIG !== undefined && env.AIRLOCK_CONFIG !== '' ? env.AIRLOCK_CONFIG : undefined;
  const entries: Array<{ path: [string, string]; value: unknown; source: string }> = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') return 'help';
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = inline ?? argv[i + 1];
    if (name === '-c' || name === '--config') {
      if (value === undefined) throw new UsageError(`option ${name} needs a file`);
      file = value;
    } else if (OPTIONS[name] !== undefined) {
      if (value === undefined) throw new UsageError(`option ${name} needs a value`);
      const option = OPTIONS[name];
      entries.push({ path: option.path, value: option.convert(value), source: `option ${name}` });
    } else {
      throw new UsageError(`unknown option '${arg}'`);
    }
    if (inline === undefined) i++;
  }
  const layers: ConfigLayer[] = [];
  if (file !== undefined) {
    try {
      layers.push(fileLayer(file));
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`${file}: cannot read the configuration: ${(error as Error).message}`);
    }
  }
  layers.push(envLayer(env), pathLayer(entries));
  return resolveConfig(layers);
}

/** A configuration for a program that starts the server itself: `patch` over the defaults, checked. */
export function serverConfig(patch: { [K in keyof ServerConfig]?: Partial<ServerConfig[K]> } = {}): ServerConfig {
  return resolveConfig([{ values: patch, origin: (path) => `startServer option ${path.join('.')}` }]);
}

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  /** Mints page tokens (for tests and tools that act as a page of this server). */
  tokens: PageTokens;
  close(): Promise<void>;
}

export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const { app, tokens } = await buildApp(config);
  await app.listen({ host: config.server.host, port: config.server.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.server.port;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  return { url: `http://${host}:${port}/`, app, tokens, close: () => app.close() };
}

/** Ends the server on SIGINT/SIGTERM: requests in flight get config.server.shutdownMs. */
export function closeOnSignals(server: RunningServer, config: ServerConfig): void {
  const stop = (signal: NodeJS.Signals): void => {
    server.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      server.app.log.warn(`requests still running after ${config.server.shutdownMs} ms; exiting`);
      process.exit(1);
    }, config.server.shutdownMs);
    timer.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutting down failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export async function main(argv: string[]): Promise<number> {
  let config: ServerConfig | 'help';
  try {
    config = configFromCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`airlock server: ${error.message}\nTry '--help' for more information.\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`airlock server: invalid configuration:\n${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (config === 'help') {
    process.stdout.write(SERVER_USAGE);
    return 0;
  }
  try {
    const server = await startServer(config);
    closeOnSignals(server, config);
    console.log(`Airlock is running at ${server.url}`);
    return 0;
  } catch (error) {
    process.stderr.write(`airlock server: ${(error as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && /server[\\/]main\.(m?js|ts)$/.test(process.argv[1])) {
  main(process.argv.slice(2)).then((status) => {
    if (status !== 0) process.exitCode = status;
  });
}
