import type { PanelDefinition } from '../panel.js';
import { GatesPanel } from './gates-panel.js';

export const gatesPanel: PanelDefinition = { id: 'gates', title: 'Gates', enabled: () => true, component: GatesPanel };
