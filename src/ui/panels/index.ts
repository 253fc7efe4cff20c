// The one registration point of the playground's side panels, in toolbar order. To add a
// panel: make src/ui/panels/<id>/index.ts export a PanelDefinition (panel.ts), and add one
// line here. Each panel is its own folder: its component, its helpers, its tests.

import type { PanelDefinition } from './panel.js';
import { sessionsPanel } from './sessions/index.js';
import { settingsPanel } from './settings/index.js';
import { auditPanel } from './audit/index.js';
import { welcomePanel } from './welcome/index.js';
import { networkPanel } from './network/index.js';
import { gatesPanel } from './gates/index.js';
import { packagesPanel } from './packages/index.js';
import { extensionsPanel } from './extensions/index.js';

export const PANELS: readonly PanelDefinition[] = [welcomePanel, sessionsPanel, settingsPanel, networkPanel, packagesPanel, extensionsPanel, auditPanel, gatesPanel];

export type { PanelContext, PanelDefinition } from './panel.js';
