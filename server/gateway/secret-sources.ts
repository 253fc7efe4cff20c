// Reads the configured secrets' values at start: from the server's environment or a file.
// A secret that cannot be read stops the server, naming it (never its value).

import { readFileSync } from 'node:fs';
import type { SecretBinding } from '../../src/host/network/secrets.js';
import { ConfigError } from '../config/load.js';
import type { SecretSource } from '../config/schema.js';

export function loadSecrets(sources: readonly SecretSource[], env: NodeJS.ProcessEnv): SecretBinding[] {
  return sources.map((source) => {
    let value: string | undefined;
    if ((source.env === undefined) === (source.file === undefined)) throw new ConfigError(`network.secrets: ${source.name}: give exactly one of env and file`);
    if (source.env !== undefined) {
      value = env[source.env];
      if (value === undefined || value === '') throw new ConfigError(`network.secrets: ${source.name}: the environment variable ${source.env} is not set`);
    } else {
      try {
        value = readFileSync(source.file as string, 'utf8').trim();
      } catch (error) {
        throw new ConfigError(`network.secrets: ${source.name}: cannot read ${source.file}: ${(error as Error).message}`);
      }
    }
    const { env: _env, file: _file, ...binding } = source;
    return { ...binding, value };
  });
}
