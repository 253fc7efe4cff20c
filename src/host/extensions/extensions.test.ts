// Host extensions end to end (docs/extensions.md): a real Node sandbox (hardened child,
// the real shell and coreutils) calling handlers on this side.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../protocol/audit/schema.js';
import { Sandbox, drainWarmPool, type ExtensionSpec } from '../node/index.js';

const upper: ExtensionSpec = {
  name: 'upper',
  description: 'upper: prints its arguments, or its stdin, in capitals',
  handler: async ({ args, stdin }) => ({ stdout: (args.length > 0 ? `${args.join(' ')}\n` : await stdin.text()).toUpperCase() }),
};

/** Counts its stdin in pieces, as it streams, and prints the count. */
const count: ExtensionSpec = {
  name: 'count',
  description: 'count: bytes on stdin',
  maxStdinBytes: 3_000_000,
  handler: async ({ stdin }) => {
    let bytes = 0;
    for await (const piece of stdin) bytes += piece.length;
    return { stdout: `${bytes}\n` };
  },
};

const context: ExtensionSpec = {
  name: 'context',
  description: 'context: what a handler sees',
  handler: ({ args, env, cwd }) => ({ stdout: JSON.stringify({ args, cwd, greeting: env.GREETING ?? null }) + '\n', exitCode: Number(env.STATUS ?? 0) }),
};

const fails: ExtensionSpec = {
  name: 'fails',
  description: 'fails: throws',
  handler: () => {
    throw new Error('the database is down');
  },
};

const slow: ExtensionSpec = {
  name: 'slow',
  description: 'slow: never answers in time',
  timeoutMs: 300,
  handler: ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ stdout: 'late\n' }))),
};

const chatty: ExtensionSpec = {
  name: 'chatty',
  description: 'chatty: prints too much',
  maxOutputBytes: 1000,
  handler: () => ({ stdout: 'x'.repeat(5000) }),
};

/** Waits until the call is over for the sandbox, and says so. */
let patientEnded: Promise<string> = Promise.resolve('');
const patient: ExtensionSpec = {
  name: 'patient',
  description: 'patient: waits for a long time',
  timeoutMs: 600_000,
  handler: ({ signal }) => {
    patientEnded = new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted')));
    return patientEnded.then(() => ({}));
  },
};

/** Streams output until the sandbox stops reading, and says how it ended. */
let streamerEnded: Promise<string> = Promise.resolve('');
const streamer: ExtensionSpec = {
  name: 'streamer',
  description: 'streamer: writes forever',
  maxOutputBytes: 256 * 1024 * 1024,
  handler: ({ stdout, signal }) => {
    streamerEnded = (async () => {
      try {
        for (let i = 0; i < 100_000; i++) await stdout.write('y'.repeat(4096));
        return 'wrote everything';
      } catch {
        return signal.aborted ? 'aborted' : 'write failed';
      }
    })();
    return streamerEnded.then(() => ({}));
  },
};

const events: AuditEvent[] = [];
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await Sandbox.create({ extensions: [upper, count, context, fails, slow, chatty, streamer, patient], onAuditEvent: (event) => events.push(event) });
});

afterAll(async () => {
  await sandbox.destroy();
  await drainWarmPool();
});

describe('an extension is a command', () => {
  it('prints its description for --help', async () => {
    expect(await sandbox.run('upper --help')).toMatchObject({ exitCode: 0, stdout: 'upper: prints its arguments, or its stdin, in capitals\n' });
  });

  it('gets its arguments, environment and working directory, and its exit status is the command’s', async () => {
    const result = await sandbox.run('cd /tmp && GREETING=hi STATUS=3 context a "b c"');
    expect(result.stdout).toBe('{"args":["a","b c"],"cwd":"/tmp","greeting":"hi"}\n');
    expect(result.exitCode).toBe(3);
  });

  it('works in pipelines, $( ) and xargs', async () => {
    expect((await sandbox.run('echo hello | upper | tr H J')).stdout).toBe('JELLO\n');
    expect((await sandbox.run('echo "[$(upper quiet)]"')).stdout).toBe('[QUIET]\n');
    expect((await sandbox.run('printf "a\\nb\\n" | xargs -n1 upper')).stdout).toBe('A\nB\n');
    expect((await sandbox.run('find /tmp -maxdepth 0 -exec upper {} \\;')).stdout).toBe('/TMP\n');
    expect((await sandbox.run('command -v upper')).stdout).toBe('/usr/bin/upper\n');
  });

  it('streams stdin to the handler up to maxStdinBytes, and refuses more naming the limit', async () => {
    expect((await sandbox.run('head -c 2500000 /dev/zero | count')).stdout).toBe('2500000\n');
    expect((await sandbox.run('head -c 3000000 /dev/zero | count')).stdout).toBe('3000000\n');
    const over = await sandbox.run('head -c 3000001 /dev/zero | count');
    expect(over.exitCode).toBe(1);
    expect(over.stderr).toBe('count: stdin is over 3000000 bytes (maxStdinBytes of extension count)\n');
  });

  it('does not wait for stdin the handler never reads', async () => {
    expect(await sandbox.run('context', { interactive: true, terminal: true })).toMatchObject({ exitCode: 0 });
  });
});

describe('how a call can end badly', () => {
  it('a handler that throws ends the command with status 1 and its message', async () => {
    expect(await sandbox.run('fails')).toMatchObject({ exitCode: 1, stdout: '', stderr: 'fails: the database is down\n' });
  });

  it('a slow handler is cut at its timeout with status 124', async () => {
    const result = await sandbox.run('slow; echo "status $?"');
    expect(result.stdout).toBe('status 124\n');
    expect(result.stderr).toBe('slow: timed out after 300 ms (timeoutMs)\n');
  });

  it('output over maxOutputBytes is cut and the command says so', async () => {
    const result = await sandbox.run('chatty');
    expect(result.stdout).toBe('x'.repeat(1000));
    expect(result.stderr).toBe('chatty: output truncated at 1000 bytes (maxOutputBytes)\n');
  });

  it('the run’s deadline ends a call like any process, and its handler is told', async () => {
    const result = await sandbox.run('patient', { timeoutMs: 500 });
    expect(result.exitCode).toBe(124);
    expect(await patientEnded).toBe('aborted');
  });

  it('streamed output meets the pipe: the handler stops when the reader is gone', async () => {
    const result = await sandbox.run('streamer | head -c 10');
    expect(result.stdout).toBe('y'.repeat(10));
    expect(await streamerEnded).not.toBe('wrote everything');
  });
});

describe('every call is an audit event', () => {
  it('records the name, status and outcome, never the data', async () => {
    events.length = 0;
    await sandbox.run('upper x; fails; chatty >/dev/null 2>&1');
    const calls = events.filter((event) => event.type === 'extension.called');
    expect(calls.map((event) => [event.name, event.exitCode, event.outcome])).toEqual([
      ['upper', 0, 'ok'],
      ['fails', 1, 'error'],
      ['chatty', 0, 'truncated'],
    ]);
    expect(calls[0]).toMatchObject({ runId: expect.any(Number), stdinBytes: 0, outputBytes: 2 });
    expect(JSON.stringify(calls)).not.toContain('"X\\n"');
  });
});

describe('the sandbox cannot register, replace or enumerate extensions', () => {
  it('sees only the registered names, and cannot add or change one', async () => {
    const listing = (await sandbox.run('ls /usr/bin')).stdout.split('\n');
    for (const name of ['upper', 'count', 'context', 'fails', 'slow', 'chatty', 'streamer']) expect(listing).toContain(name);
    expect((await sandbox.run('echo x > /usr/bin/upper')).exitCode).not.toBe(0);
    expect((await sandbox.run('echo x > /usr/bin/newext')).exitCode).not.toBe(0);
    // A copy of an extension's entry is still that extension, never a new one.
    await sandbox.run('cp /usr/bin/upper /tmp/mine && chmod +x /tmp/mine');
    expect((await sandbox.run('/tmp/mine y')).stdout).toBe('Y\n');
    // A forged entry naming an unregistered extension runs nothing.
    await sandbox.run("cp /usr/bin/upper /tmp/forged && sed -i 's/upper/secret/' /tmp/forged && chmod +x /tmp/forged");
    const forged = await sandbox.run('/tmp/forged');
    expect(forged.exitCode).not.toBe(0);
    expect(forged.stdout).toBe('');
  });
});

describe('the tool allowlist applies to extensions', () => {
  it('refuses an extension the allowlist leaves out, and runs one it names', async () => {
    const limited = await Sandbox.create({ extensions: [upper, context], allowedTools: ['echo', 'upper'] });
    try {
      expect((await limited.run('upper ok')).stdout).toBe('OK\n');
      const refused = await limited.run('context');
      expect(refused.exitCode).toBe(126);
      expect(refused.stderr).toContain('context: not allowed by this sandbox');
    } finally {
      await limited.destroy();
    }
  });
});

describe('registration is checked at create', () => {
  it('refuses bad names, duplicates, clashes with tools and limits out of range', async () => {
    await expect(Sandbox.create({ extensions: [{ ...upper, name: '../x' }] })).rejects.toThrow(/not a command name/);
    await expect(Sandbox.create({ extensions: [upper, upper] })).rejects.toThrow(/given twice/);
    await expect(Sandbox.create({ extensions: [{ ...upper, timeoutMs: 0 }] })).rejects.toThrow(/timeoutMs must be a whole number/);
    await expect(Sandbox.create({ extensions: [{ ...upper, name: 'cat' }] })).rejects.toThrow(/extension cat: a tool of that name is already installed/);
  });
});
