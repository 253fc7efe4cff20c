// The server as a process: --help prints help and starts nothing, a bad configuration
// stops it with the reason, /healthz answers, pages carry their token, and SIGTERM shuts it
// down gracefully (exit 0).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PAGE_TOKEN_META } from '../src/protocol/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const serverArgs = ['--import', 'tsx', 'server/main.ts'];
const web = mkdtempSync(join(tmpdir(), 'airlock-web-'));
writeFileSync(join(web, 'index.html'), '<!doctype html><html><head><title>t</title></head><body>hi</body></html>');
writeFileSync(join(web, 'app.js'), 'console.log(1)');

afterAll(() => rmSync(web, { recursive: true, force: true }));

describe('the server process', () => {
  it('prints help for --help and exits without listening', () => {
    const result = spawnSync('node', [...serverArgs, '--help'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: node dist\/server\/main.mjs \[OPTIONS\]/);
    expect(result.stdout).not.toContain('running at');
  });

  it('stops on a bad configuration or option, naming it', () => {
    const config = join(web, 'bad.yaml');
    writeFileSync(config, 'server:\n  prot: 80\n');
    const bad = spawnSync('node', [...serverArgs, '--config', config], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(`airlock server: invalid configuration:\n${config}:2: unknown key server.prot\n`);
    const option = spawnSync('node', [...serverArgs, '--prot', '80'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(option.status).toBe(2);
    expect(option.stderr).toContain("unknown option '--prot'");
  });

  it('serves /healthz and pages with their own token, logs as JSON, and shuts down on SIGTERM', async () => {
    const child = spawn('node', [...serverArgs, '--port', '0', '--web', web], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const match = /running at (http:\/\/\S+)/.exec(stdout);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.on('exit', () => reject(new Error(`the server exited: ${stdout}`)));
      });
      expect(await (await fetch(new URL('healthz', url))).json()).toMatchObject({ status: 'ok' });
      const tokenOf = async (): Promise<string | undefined> => new RegExp(`<meta name="${PAGE_TOKEN_META}" content="([^"]+)">`).exec(await (await fetch(url)).text())?.[1];
      const [first, second] = [await tokenOf(), await tokenOf()];
      expect(first).toMatch(/^[\w-]+\.[\w-]+$/);
      expect(second).not.toBe(first);
      const script = await fetch(new URL('app.js', url));
      expect(await script.text()).toBe('console.log(1)');
      expect(script.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect((await fetch(new URL('nothing-here', url))).status).toBe(404);
      child.kill('SIGTERM');
      expect(await exited, stdout.split('\n').slice(-5).join('\n')).toBe(0);
      const logs = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string });
      expect(logs.map((l) => l.msg)).toContain('shutting down');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
