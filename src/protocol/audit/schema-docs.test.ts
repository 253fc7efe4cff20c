// docs/audit.md documents the schema: every type has its row, naming every field of the
// type, marked a refusal exactly when the schema says so; and no row names a type the
// schema does not have.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES } from './schema.js';

const docs = readFileSync(fileURLToPath(new URL('../../../docs/audit.md', import.meta.url)), 'utf8');
const rows = new Map(
  docs
    .split('\n')
    .map((line) => /^\| `([a-z_]+\.[a-z_]+)` \|([^|]*)\|(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && !(match[1] as string).endsWith('.ts'))
    .map((match) => [match[1] as string, { mark: (match[2] as string).trim(), rest: match[3] as string }]),
);

describe('docs/audit.md', () => {
  for (const [type, spec] of Object.entries(AUDIT_EVENT_TYPES)) {
    it(`documents ${type} and its fields`, () => {
      const row = rows.get(type);
      expect(row, `no row for ${type}`).toBeDefined();
      for (const field of Object.keys(spec.fields)) expect(row?.rest, `${type}: field ${field}`).toContain(`\`${field}\``);
      const conditional = type === 'network.decision' || type === 'agent.tool_call';
      expect(row?.mark).toBe(conditional ? 'R if refused' : spec.refusal ? 'R' : '');
    });
  }

  it('documents no type the schema does not have', () => {
    expect([...rows.keys()].filter((type) => !(type in AUDIT_EVENT_TYPES))).toEqual([]);
  });
});
