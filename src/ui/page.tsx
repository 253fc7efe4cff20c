// The playground page, loaded by main.tsx once the sandbox's start is under way.
// window.airlock exposes the sandbox and the controller to the browser tests (Playwright)
// and to curious users in DevTools.

import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { PlaygroundController } from './playground/controller.js';
import { exampleById, WELCOME } from './welcome/examples.js';
import { pageWorkspace } from './boot.js';

const params = new URLSearchParams(location.search);
const workspace = pageWorkspace();
// A new default workspace is the first visit: it starts with the welcome files. Other new
// workspaces start empty, unless opened from the Examples menu (?example=ID).
const example = exampleById(params.get('example')) ?? (workspace === 'default' ? WELCOME : undefined);
const controller = new PlaygroundController({ workspace, persist: true, example });
(window as unknown as { airlock: unknown }).airlock = { sandbox: controller.ready, controller };
createRoot(document.getElementById('root') as HTMLElement).render(<App controller={controller} />);
void controller.start();
