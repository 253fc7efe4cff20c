import { expect, it } from 'vitest';
import { GENERATED_MARKER, renderGaps, splitGapsDoc } from './gaps.js';

it('docs/compat.md lists every known difference and skipped case (npx tsx tests/compat/gaps.ts --write)', () => {
  const { prose, generated } = splitGapsDoc();
  expect(prose.length, `docs/compat.md has no line ${GENERATED_MARKER}`).toBeGreaterThan(0);
  expect(generated).toBe(renderGaps());
});
