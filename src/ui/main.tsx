// The playground page. window.airlock exposes the sandbox and the controller to the
// browser tests (Playwright) and to curious users in DevTools.

import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { PlaygroundController } from './playground/controller.js';
import './styles.css';

const workspace = new URLSearchParams(location.search).get('ws') ?? 'default';
const controller = new PlaygroundController({ workspace, persist: true });
(window as unknown as { airlock: unknown }).airlock = { sandbox: controller.ready, controller };
createRoot(document.getElementById('root') as HTMLElement).render(<App controller={controller} />);
void controller.start();
