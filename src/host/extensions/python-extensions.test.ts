// Extensions from Python (docs/extensions.md): `from airlock_extensions import NAME`,
// NAME(*args, stdin=b'') returns stdout, raises on a non-zero status; only registered
// names import. A real Node sandbox with CPython (Pyodide); generous timeouts under load.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonSnapshotReady } from '../python/node-snapshot.js';
import { kernelBundlePath } from '../node/kernel-bundle.js';
import { Sandbox, drainWarmPool } from '../node/index.js';

const TIMEOUT = 240_000;
let sandbox: Sandbox;
const calls: string[][] = [];

const python = async (source: string): Promise<{ stdout: string; stderr: string; exitCode: number }> => {
  await sandbox.writeFile('/tmp/t.py', source);
  return sandbox.run('python3 /tmp/t.py', { timeoutMs: 120_000 });
};

describe('airlock_extensions in Python', { timeout: TIMEOUT }, () => {
  beforeAll(async () => {
    await pythonSnapshotReady(await kernelBundlePath());
    sandbox = await Sandbox.create({
      extensions: [
        {
          name: 'shout',
          description: 'shout: capitals',
          handler: async ({ args, stdin }) => {
            calls.push(args);
            return { stdout: `${args.join(' ')}${await stdin.text()}`.toUpperCase() };
          },
        },
        { name: 'vector-search', description: 'vector-search: nearest', handler: ({ args }) => ({ stdout: `nearest to ${args[0]}\n` }) },
        { name: 'refuse', description: 'refuse: fails', handler: () => ({ stderr: 'no such row\n', exitCode: 3 }) },
      ],
    });
  }, TIMEOUT);

  afterAll(async () => {
    await sandbox?.destroy();
    drainWarmPool();
  });

  it('calls an extension with arguments and stdin and returns its stdout', async () => {
    const result = await python(
      "from airlock_extensions import shout\nprint(repr(shout('a', 1, stdin=b' and more')))\nprint(repr(shout(stdin='text')))\n",
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: "b'A 1 AND MORE'\nb'TEXT'\n" });
    expect(calls).toContainEqual(['a', '1']);
  });

  it('reaches a name with - through _', async () => {
    expect((await python("from airlock_extensions import vector_search\nprint(vector_search('q').decode(), end='')\n")).stdout).toBe('nearest to q\n');
  });

  it('raises on a non-zero status, with the status and stderr', async () => {
    const result = await python(
      'import airlock_extensions as ext\ntry:\n    ext.refuse()\nexcept ext.ExtensionError as error:\n    print(error.returncode, error.stderr, str(error))\n',
    );
    expect(result.stdout).toBe("3 b'no such row\\n' extension refuse exited with status 3: no such row\n");
  });

  it('imports only registered names and lists only those', async () => {
    const result = await python(
      'import airlock_extensions as ext\nprint(sorted(n for n in dir(ext) if not n.startswith("_")))\ntry:\n    from airlock_extensions import ls\nexcept ImportError as error:\n    print("ImportError")\n',
    );
    expect(result.stdout).toBe("['ExtensionError', 'refuse', 'shout', 'vector-search']\nImportError\n");
  });
});
