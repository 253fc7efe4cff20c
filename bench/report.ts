// Benchmark rows and their printing. Benchmarks print figures and ratios to a reference
// measured in the same run; they never assert anything about time.

export interface BenchRow {
  group: string;
  name: string;
  value: number;
  unit: string;
  /** The same work done by the reference (native tool, real bash, host CPython), if any. */
  reference?: number;
  referenceLabel?: string;
  /** Ratio shown as ours/reference for times, reference/ours for throughputs. */
  higherIsBetter?: boolean;
  target?: string;
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

export function ratio(row: BenchRow): number | undefined {
  if (row.reference === undefined || row.reference === 0 || row.value === 0) return undefined;
  return row.higherIsBetter ? row.reference / row.value : row.value / row.reference;
}

function format(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(3);
}

export function printTable(rows: BenchRow[]): string {
  const lines = ['| benchmark | ours | reference | ratio | target |', '|---|---|---|---|---|'];
  for (const row of rows) {
    const r = ratio(row);
    const reference = row.reference === undefined ? '' : `${format(row.reference)} ${row.unit}${row.referenceLabel ? ` (${row.referenceLabel})` : ''}`;
    lines.push(`| ${row.group}: ${row.name} | ${format(row.value)} ${row.unit} | ${reference} | ${r === undefined ? '' : `${r.toFixed(2)}×`} | ${row.target ?? ''} |`);
  }
  return lines.join('\n');
}
