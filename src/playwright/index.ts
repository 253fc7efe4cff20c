// `airlock/playwright`: helpers for users' Playwright suites (docs/playwright.md).
//
//   import { test, expect } from 'airlock/playwright';
//   test('…', async ({ sandbox, embeddedSandbox }) => {
//     expect(await sandbox.run('echo hi')).toHaveOutput('hi\n');          // a Node sandbox
//     const embedded = await embeddedSandbox();                            // one in the page
//     await embedded.writeFile('a.txt', 'x');
//     expect(await embedded.run('cat a.txt')).toHaveOutput('x');
//   });
//
// `sandbox` is a Node sandbox (a hardened child process) per test, destroyed after it.
// `embeddedSandbox()` adds embed.html from the Airlock server at the `airlockUrl` option to
// the page under test (call it after page.goto) and drives it through postMessage.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as PlaywrightTest from '@playwright/test';
import { Sandbox, type NodeSandboxOptions } from '../host/node/index.js';
import { embedSandbox, EmbeddedSandboxError, type EmbeddedRunResult, type EmbeddedSandbox } from './embedded.js';

export { Sandbox, embedSandbox, EmbeddedSandboxError };
export type { EmbeddedRunResult, EmbeddedSandbox, NodeSandboxOptions };

export interface AirlockFixtures {
  /** A Node sandbox for this test (options: `sandboxOptions`). */
  sandbox: Sandbox;
  /** Adds a sandbox to the page under test (at `airlockUrl`) and returns its client. */
  embeddedSandbox: (options?: { rows?: number }) => Promise<EmbeddedSandbox>;
}

export interface AirlockOptions {
  /** Options of the `sandbox` fixture (limits, files, network, …). */
  sandboxOptions: NodeSandboxOptions;
  /** Where the Airlock server serves embed.html (e.g. http://127.0.0.1:4173/). */
  airlockUrl: string;
}

/**
 * The project's own @playwright/test, resolved from where the runner runs: importing a
 * second copy (e.g. the one beside a linked Airlock checkout) makes Playwright refuse to
 * start ("Requiring @playwright/test second time").
 */
async function projectPlaywright(): Promise<typeof PlaywrightTest> {
  const path = createRequire(`${process.cwd()}/`).resolve('@playwright/test');
  const module = (await import(pathToFileURL(path).href)) as typeof PlaywrightTest & { default?: typeof PlaywrightTest };
  return module.default ?? module;
}

const { test: base, expect: baseExpect } = await projectPlaywright();

export const test = base.extend<AirlockFixtures & AirlockOptions>({
  sandboxOptions: [{}, { option: true }],
  airlockUrl: [process.env.AIRLOCK_URL ?? 'http://127.0.0.1:4173/', { option: true }],
  sandbox: async ({ sandboxOptions }, use) => {
    const sandbox = await Sandbox.create(sandboxOptions);
    try {
      await use(sandbox);
    } finally {
      await sandbox.destroy();
    }
  },
  embeddedSandbox: async ({ page, airlockUrl }, use) => {
    await use((options = {}) => embedSandbox(page, airlockUrl, options));
  },
});

/** What toHaveOutput looks at: a run's result (Node or embedded). */
interface HasOutput {
  stdout: string;
  stderr?: string;
  exitCode?: number;
}

export const expect = baseExpect.extend({
  /**
   * The run's stdout is `expected` (a string: exactly; a RegExp: matches). With
   * `{ stderr }`, its stderr is checked the same way.
   */
  toHaveOutput(received: HasOutput, expected: string | RegExp, options: { stderr?: string | RegExp } = {}) {
    const matches = (actual: string, wanted: string | RegExp): boolean => (typeof wanted === 'string' ? actual === wanted : wanted.test(actual));
    const name = 'toHaveOutput';
    if (typeof received !== 'object' || received === null || typeof received.stdout !== 'string') {
      return { pass: false, name, message: () => `${name}: expected a run result with stdout, got ${this.utils.printReceived(received)}` };
    }
    const stdoutOk = matches(received.stdout, expected);
    const stderrOk = options.stderr === undefined || matches(received.stderr ?? '', options.stderr);
    const pass = stdoutOk && stderrOk;
    const message = (): string => {
      const lines = [this.utils.matcherHint(name, undefined, undefined, { isNot: this.isNot })];
      lines.push(`stdout: expected ${this.isNot ? 'not ' : ''}${this.utils.printExpected(expected)}, received ${this.utils.printReceived(received.stdout)}`);
      if (options.stderr !== undefined) lines.push(`stderr: expected ${this.utils.printExpected(options.stderr)}, received ${this.utils.printReceived(received.stderr ?? '')}`);
      if (received.exitCode !== undefined) lines.push(`exit status: ${received.exitCode}`);
      return lines.join('\n');
    };
    return { pass, name, message, expected, actual: received.stdout };
  },
});
