import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { GAPS_DOC, renderGaps } from './gaps.js';

it('docs/compat.md lists every known difference and skipped case (npx tsx tests/compat/gaps.ts --write)', () => {
  expect(existsSync(GAPS_DOC) ? readFileSync(GAPS_DOC, 'utf8') : '').toBe(renderGaps());
});
