// The playground's entry: starts what the first prompt waits for (boot.ts), then loads the
// page (page.tsx: React, the terminal, the panels), whose download and parsing no longer
// delay the sandbox's.

import { pageWorkspace, prestart, prestartWorkspace } from './boot.js';
import './styles.css';

prestart();
prestartWorkspace(pageWorkspace());
void import('./page.js');
