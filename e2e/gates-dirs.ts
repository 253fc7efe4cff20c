// Where the e2e server keeps gate workspaces and runs (test-results/, never the repository's
// own files): playwright.config.ts hands them to the server, the Gates spec writes workspaces.

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const results = join(fileURLToPath(new URL('..', import.meta.url)), 'test-results/e2e-gates');
export const GATES_E2E_WORKSPACES = join(results, 'workspaces');
export const GATES_E2E_RUNS = join(results, 'runs');
