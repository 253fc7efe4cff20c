// The playground's entry: starts what the first prompt waits for (boot.ts), then loads the
// page (page.tsx: React, the terminal, the panels), whose download and parsing no longer
// delay the sandbox's. The page's code is loaded once the saved workspace is read (or
// after READ_WAIT_MS): the read is a few IndexedDB round trips, each of which would
// otherwise wait behind the page's long tasks (evaluating React and the terminal,
// rendering), and the sandbox is made only after it.

import { pageWorkspace, prestart, prestartWorkspace } from './boot.js';
import './styles.css';

prestart();
const READ_WAIT_MS = 100;
const read = prestartWorkspace(pageWorkspace());
void Promise.race([read, new Promise((resolve) => setTimeout(resolve, READ_WAIT_MS))]).then(() => import('./page.js'));
