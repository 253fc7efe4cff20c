// `npm run bench`: runs every benchmark group (or those named on the command line) and
// prints one table, also written to test-results/bench.md.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { drainWarmPool } from '../src/host/node/index.js';
import { printTable, type BenchRow } from './report.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const groups = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .filter((name) => only.length === 0 || only.includes(name));

const rows: BenchRow[] = [];
for (const group of groups) {
  console.log(`bench: ${group}…`);
  const module = (await import(`./${group}.bench.ts`)) as { run(): Promise<BenchRow[]> };
  try {
    rows.push(...(await module.run()));
  } catch (error) {
    console.error(`bench: ${group} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
drainWarmPool();
const table = printTable(rows);
console.log(`\n${table}`);
mkdirSync(fileURLToPath(new URL('../test-results', import.meta.url)), { recursive: true });
writeFileSync(fileURLToPath(new URL('../test-results/bench.md', import.meta.url)), table + '\n');
