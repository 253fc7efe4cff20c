// Test report parsers: JUnit XML (fast-xml-parser), TAP (tap-parser), jest/vitest JSON,
// and pytest's and unittest's own summaries. Each returns counts and the first failures,
// or null when the text is not of its format.

import { XMLParser } from 'fast-xml-parser';
import { Parser as TapParser } from 'tap-parser';

export interface TestCounts {
  format: 'junit' | 'tap' | 'jest-json' | 'pytest' | 'unittest';
  total: number;
  failed: number;
  skipped: number;
  failures: string[];
}

type XmlNode = Record<string, unknown>;
const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export function parseJunit(text: string): TestCounts | null {
  if (!/<testsuites?[\s>]/.test(text)) return null;
  let doc: XmlNode;
  try {
    doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(text) as XmlNode;
  } catch {
    return null;
  }
  const suites = [...asArray((doc.testsuites as XmlNode | undefined)?.testsuite as XmlNode | XmlNode[] | undefined), ...asArray(doc.testsuite as XmlNode | XmlNode[] | undefined)];
  const counts: TestCounts = { format: 'junit', total: 0, failed: 0, skipped: 0, failures: [] };
  const visit = (suite: XmlNode): void => {
    for (const testcase of asArray(suite.testcase as XmlNode | XmlNode[] | undefined)) {
      counts.total += 1;
      if (testcase.failure !== undefined || testcase.error !== undefined) {
        counts.failed += 1;
        counts.failures.push(`${String(testcase.classname ?? '')}${testcase.classname ? '.' : ''}${String(testcase.name ?? '')}`);
      } else if (testcase.skipped !== undefined) counts.skipped += 1;
    }
    for (const inner of asArray(suite.testsuite as XmlNode | XmlNode[] | undefined)) visit(inner);
  };
  for (const suite of suites) visit(suite);
  return counts;
}

export function parseTap(text: string): TestCounts | null {
  if (!/^(TAP version \d+|1\.\.\d+|(not )?ok \d+)/m.test(text)) return null;
  let counts: TestCounts | null = null;
  const parser = new TapParser((results) => {
    // failures also lists protocol problems (a missing plan): count test points only.
    const points = results.failures.filter((failure) => 'id' in failure && typeof failure.id === 'number');
    counts = { format: 'tap', total: results.count, failed: points.length, skipped: results.skip + results.todo, failures: points.map((failure) => ('name' in failure ? String(failure.name) : '')).filter((name) => name !== '') };
  });
  parser.end(text);
  return counts;
}

export function parseJestJson(text: string): TestCounts | null {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof doc.numTotalTests !== 'number' || typeof doc.numFailedTests !== 'number') return null;
  const failures: string[] = [];
  for (const file of asArray(doc.testResults as XmlNode[] | undefined)) {
    for (const assertion of asArray(file.assertionResults as XmlNode[] | undefined)) {
      if (assertion.status === 'failed') failures.push(String(assertion.fullName ?? assertion.title ?? ''));
    }
  }
  return { format: 'jest-json', total: doc.numTotalTests, failed: doc.numFailedTests, skipped: Number(doc.numPendingTests ?? 0) + Number(doc.numTodoTests ?? 0), failures };
}

export function parsePytest(text: string): TestCounts | null {
  const summary = [...text.matchAll(/^=*\s*((?:\d+ (?:passed|failed|error|errors|skipped|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+s/gm)].at(-1);
  if (summary === undefined) return null;
  const count = (word: string): number => Number(new RegExp(`(\\d+) ${word}`).exec(summary[1] ?? '')?.[1] ?? 0);
  const failed = count('failed') + count('errors?');
  const failures = [...text.matchAll(/^(?:FAILED|ERROR) (\S+)/gm)].map((match) => match[1] as string);
  return { format: 'pytest', total: count('passed') + failed + count('skipped'), failed, skipped: count('skipped'), failures };
}

export function parseUnittest(text: string): TestCounts | null {
  const ran = /^Ran (\d+) tests? in [\d.]+s$/m.exec(text);
  if (ran === null) return null;
  const failedLine = /^FAILED \(([^)]*)\)$/m.exec(text)?.[1] ?? '';
  const count = (word: string): number => Number(new RegExp(`${word}=(\\d+)`).exec(failedLine)?.[1] ?? 0);
  const skipped = Number(/skipped=(\d+)/.exec(text)?.[1] ?? 0);
  // `FAIL: test_x (module.Class)` before Python 3.11, `FAIL: test_x (module.Class.test_x)` since.
  const failures = [...text.matchAll(/^(?:FAIL|ERROR): (\S+) \(([^)]+)\)/gm)].map(([, name, where]) => (where?.endsWith(`.${name}`) ? where : `${where}.${name}`));
  return { format: 'unittest', total: Number(ran[1]), failed: count('failures') + count('errors'), skipped, failures };
}
