// The kernel tells of its refusals where it makes them: a tool outside the allowlist, a
// write to a read-only tree, a write past a filesystem limit — whichever way the process
// asked (a WASI call, an airlock spawn, a run's argv).

import { describe, expect, it } from 'vitest';
import { createTestKernel } from '../../../tests/helpers/test-kernel.js';
import type { Refusal } from './refusal.js';

describe('refusals', () => {
  it('are told with the tool or the path and the limit', async () => {
    const refusals: Refusal[] = [];
    const other = { name: 'other', run: async () => 0 };
    const t = createTestKernel({ allowedTools: ['probe'], limits: { fsBytes: 20 }, externals: [{ tools: ['other'], program: other }], events: { refused: (refusal) => refusals.push(refusal) } });
    expect((await t.run(['probe', 'write', '/etc/passwd', 'x'])).out).toMatch(/^err /);
    expect((await t.run(['probe', 'write', 'big', 'more than twenty bytes in all'])).out).toMatch(/^err /);
    expect((await t.run(['probe', 'spawn', 'other'])).out).toBe('status 126\n');
    expect(refusals).toEqual([
      { kind: 'write', errno: 'EROFS', path: 'etc/passwd' },
      { kind: 'write', errno: 'ENOSPC', path: '/home/user/big', limit: 'fsBytes' },
      { kind: 'tool', tool: 'other' },
    ]);
  });
});
