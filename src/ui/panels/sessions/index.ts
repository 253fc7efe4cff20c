import type { PanelDefinition } from '../panel.js';
import { SessionsPanel } from './sessions-panel.js';

export const sessionsPanel: PanelDefinition = { id: 'sessions', title: 'Sessions', component: SessionsPanel };
