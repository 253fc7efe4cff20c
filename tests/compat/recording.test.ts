import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPAT_ROOT, loadSuite, suites, type LoadedCase } from './cases.js';
import { caseInput, readRecordingFile, RECORDING_SUFFIX, recordingFile, writeRecordingFile, type Recording } from './recording.js';

const scratch = mkdtempSync(join(tmpdir(), 'airlock-recording-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('recording files', () => {
  it('give back every output byte for byte: text, CRLF, control bytes, invalid UTF-8, no final newline', () => {
    const outputs = ['a\nb\n', 'x\r\ny\r\n', 'tab\there\0nul\x1b[0m', ' leading and trailing  \n\n', 'no newline', '', '# not a comment\n- not a list\n'];
    const recordings: Recording[] = outputs.map((text, i) => ({ name: `case ${i}`, input: '0', status: i, stdout: Buffer.from(text), stderr: Buffer.from(text) }));
    recordings.push({ name: 'bytes', input: '0', status: 1, stdout: Buffer.from([0xff, 0xfe, 0x41, 0x0a]) });
    const path = join(scratch, `t${RECORDING_SUFFIX}`);
    writeRecordingFile(path, recordings);
    const back = readRecordingFile(path);
    for (const r of recordings) expect(back.get(r.name)).toEqual(r);
    expect(readFileSync(path, 'utf8')).toContain('stdout_base64:');
  });

  it('tell an edited case from the one recorded', () => {
    const base: LoadedCase = { name: 'n', script: 'echo', suite: 's', file: 'f.yaml', id: 's/f: n' };
    const digests = [base, { ...base, script: 'echo ' }, { ...base, files: { a: '' } }, { ...base, stdin: '' }, { ...base, compare_stderr: true }].map(caseInput);
    expect(new Set(digests).size).toBe(digests.length);
    expect(caseInput({ ...base, known_failure: 'why', timeout: 5 })).toBe(caseInput(base));
  });
});

describe.each(suites())('recordings of %s', (suite) => {
  const cases = loadSuite(suite);
  it('belong to cases that exist (npm run compat:record removes the others)', () => {
    const names = new Set(cases.filter((c) => c.skip === undefined).map((c) => `${c.file}: ${c.name}`));
    for (const file of readdirSync(join(COMPAT_ROOT, suite)).filter((f) => f.endsWith(RECORDING_SUFFIX))) {
      const caseFile = file.replace(RECORDING_SUFFIX, '.yaml');
      expect(existsSync(join(COMPAT_ROOT, suite, caseFile)), `${suite}/${file} has no case file`).toBe(true);
      for (const name of readRecordingFile(recordingFile(suite, caseFile)).keys()) {
        expect(names.has(`${caseFile}: ${name}`), `${suite}/${file}: "${name}" is not a case to run`).toBe(true);
      }
    }
  });
});
