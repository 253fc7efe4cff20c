// The second half of docs/compat.md is generated from the cases: every accepted difference
// (`known_failure`) and every skipped case, with its reason, per suite. The text above
// GENERATED_MARKER is written by hand and kept. `npx tsx tests/compat/gaps.ts --write`
// rewrites the generated half; gaps.test.ts fails when it is out of date.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadSuite, suites, type LoadedCase } from './cases.js';

export const GAPS_DOC = fileURLToPath(new URL('../../docs/compat.md', import.meta.url));
export const GENERATED_MARKER = '<!-- Generated below from the cases by `npx tsx tests/compat/gaps.ts --write`; do not edit by hand. -->';

/** The hand-written half of docs/compat.md and the generated half as it stands. */
export function splitGapsDoc(): { prose: string; generated: string } {
  const text = existsSync(GAPS_DOC) ? readFileSync(GAPS_DOC, 'utf8') : '';
  const at = text.indexOf(GENERATED_MARKER);
  if (at < 0) return { prose: text, generated: '' };
  return { prose: text.slice(0, at), generated: text.slice(at + GENERATED_MARKER.length + 1) };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

function table(cases: LoadedCase[], reason: (c: LoadedCase) => string): string[] {
  return ['| case | reason |', '|---|---|', ...cases.map((c) => `| ${oneLine(`${c.file.replace(/\.yaml$/, '')}: ${c.name}`)} | ${oneLine(reason(c))} |`)];
}

export function renderGaps(): string {
  const lines = [
    '## Known differences',
    '',
    'A case listed here is an accepted difference: the test suite checks that it still differs',
    'from the recording, so the list stays true.',
    '',
    '| suite | cases | known differences | skipped |',
    '|---|---|---|---|',
  ];
  const sections: string[] = [];
  for (const suite of suites()) {
    const cases = loadSuite(suite);
    if (cases.length === 0) continue;
    const known = cases.filter((c) => c.known_failure !== undefined && c.skip === undefined);
    const skipped = cases.filter((c) => c.skip !== undefined);
    lines.push(`| ${suite} | ${cases.length} | ${known.length} | ${skipped.length} |`);
    if (known.length + skipped.length === 0) continue;
    sections.push('', `### ${suite}`);
    if (known.length > 0) sections.push('', ...table(known, (c) => c.known_failure ?? ''));
    if (skipped.length > 0) sections.push('', 'Not run:', '', ...table(skipped, (c) => c.skip ?? ''));
  }
  return [...lines, ...sections, ''].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderGaps();
  const { prose, generated } = splitGapsDoc();
  if (process.argv.includes('--write')) writeFileSync(GAPS_DOC, `${prose}${GENERATED_MARKER}\n${text}`);
  else process.stdout.write(text);
  if (!process.argv.includes('--write') && generated !== text) process.exitCode = 1;
}
