// Banners, settings and the embed protocol as pure logic.

import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../host/browser/index.js';
import { allowedOrigins, isEmbedRequest, originAllowed } from '../embed/protocol.js';
import { bannerForRun, bannerForSaveError } from './banners.js';
import { describeSettings, packageSourceProblem, parseSettings, sandboxOptions } from './settings.js';

function result(patch: Partial<RunResult>): RunResult {
  const empty = new Uint8Array(0);
  return { exitCode: 0, stdout: '', stderr: '', stdoutBytes: empty, stderrBytes: empty, truncated: false, durationMs: 1, errorClass: null, cwd: '/home/user', ...patch };
}

describe('banners', () => {
  it('say what happened and what to do for a timeout with rollback', () => {
    const banner = bannerForRun('while true; do :; done', result({ exitCode: 124, errorClass: 'timeout', stderr: 'airlock: ... the sandbox was restored to its state before this command\n' }), 2000);
    expect(banner?.kind).toBe('timeout');
    expect(banner?.title).toContain('2 s time limit');
    expect(banner?.detail).toContain('rolled back');
    expect(banner?.detail).toContain('Settings');
  });

  it('cover a restarted worker and a limit, and stay quiet for normal ends and Ctrl-C', () => {
    expect(bannerForRun('x', result({ exitCode: 1, errorClass: 'worker-restarted' }), 1000)?.title).toContain('restarted');
    // In words, not config names: "fsBytes (268435456)" was the old message.
    expect(bannerForRun('x', result({ exitCode: 1, errorClass: 'limit', limit: { name: 'fsBytes', value: 268435456 } }), 1000)?.title).toBe('“x” hit the disk limit of 256 MiB.');
    expect(bannerForRun('x', result({ exitCode: 3 }), 1000)).toBeUndefined();
    expect(bannerForRun('x', result({ exitCode: 130, errorClass: 'cancelled' }), 1000)).toBeUndefined();
  });

  it('tell a full quota from other save errors', () => {
    const quota = new Error('full');
    quota.name = 'StoreQuotaError';
    expect(bannerForSaveError(quota).kind).toBe('quota');
    expect(bannerForSaveError(new Error('x')).kind).toBe('save');
  });
});

describe('settings', () => {
  it('parse stored settings defensively and describe them', () => {
    expect(parseSettings(null)).toEqual({ networkAllow: [], tools: null, limits: {}, packageRegistry: null, pythonIndex: null });
    const settings = parseSettings({ networkAllow: ['example.com'], tools: ['ls'], limits: { timeoutMs: 5000, fsBytes: -1, bogus: 3 }, packageRegistry: 'file:///etc/passwd' });
    expect(settings).toEqual({ networkAllow: ['example.com'], tools: ['ls'], limits: { timeoutMs: 5000 }, packageRegistry: null, pythonIndex: null });
    expect(describeSettings(settings)).toEqual({ network: 'network: example.com', tools: '1 tools allowed', limits: 'timeout 5 s · disk 256 MiB · files unlimited', packages: 'no packages' });
    expect(sandboxOptions(settings)).toEqual({ limits: { timeoutMs: 5000 }, network: { allowedHosts: ['example.com'], describeRefusal: expect.any(Function) }, allowedTools: ['ls'] });
    // A refusal the sandbox's programs report names the setting, not the option.
    expect(sandboxOptions(settings).network?.describeRefusal?.('other.test is not in network.allowedHosts', 'allowedHosts')).toBe('other.test is not in the allowed hosts (Settings → Network)');
  });

  it('turn packages on with a registry or a Python index, allowing exactly their hosts', () => {
    const settings = parseSettings({ packageRegistry: 'https://pkgs.example.com/index.json', pythonIndex: 'http://pypi.example.com:8080/simple/' });
    expect(sandboxOptions(settings).packages).toEqual({ enabled: true, registry: 'https://pkgs.example.com/index.json', pythonIndex: 'http://pypi.example.com:8080/simple/', allowedHosts: ['pkgs.example.com', 'pypi.example.com:8080'] });
    expect(describeSettings(settings).packages).toBe('packages from pkgs.example.com, pypi.example.com:8080');
    expect(packageSourceProblem('pkgs.example.com')).toContain('is not a URL');
    expect(packageSourceProblem('ftp://x.example/')).toContain('not an http or https URL');
  });
});

describe('embed protocol', () => {
  it('accepts only well-formed requests', () => {
    expect(isEmbedRequest({ airlock: 1, id: 1, type: 'run', command: 'ls' })).toBe(true);
    expect(isEmbedRequest({ airlock: 1, id: 1, type: 'run' })).toBe(false);
    expect(isEmbedRequest({ airlock: 1, type: 'reset' })).toBe(false);
    expect(isEmbedRequest({ airlock: 1, id: 2, type: 'eval', code: '1' })).toBe(false);
    expect(isEmbedRequest('run')).toBe(false);
  });

  it('allows the configured origins, else the embedding page, else none', () => {
    expect(allowedOrigins('https://a.example, https://b.example', 'https://c.example')).toEqual(['https://a.example', 'https://b.example']);
    expect(allowedOrigins(null, 'https://c.example')).toEqual(['https://c.example']);
    expect(allowedOrigins(null, undefined)).toEqual([]);
    expect(originAllowed('https://x.example', ['*'])).toBe(true);
    expect(originAllowed('https://x.example', ['https://c.example'])).toBe(false);
  });
});

describe('limits in words', () => {
  it('shows and reads sizes and durations as people write them', async () => {
    const { formatLimit, parseLimit } = await import('./settings.js');
    expect(formatLimit('bytes', 268435456)).toBe('256 MiB');
    expect(formatLimit('duration', 30_000)).toBe('30 s');
    expect(formatLimit('count', Infinity)).toBe('unlimited');
    expect(parseLimit('bytes', '1.5 GiB')).toBe(1.5 * 1024 ** 3);
    expect(parseLimit('bytes', '512 KB')).toBe(512_000);
    expect(parseLimit('duration', '2 min')).toBe(120_000);
    expect(parseLimit('duration', '45')).toBe(45_000);
    expect(parseLimit('count', 'unlimited')).toBe(Infinity);
    expect(parseLimit('bytes', 'lots')).toBeUndefined();
    expect(parseLimit('duration', '0 s')).toBeUndefined();
  });
});
