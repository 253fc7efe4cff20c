import type { PanelDefinition } from '../panel.js';
import { NetworkPanel } from './network-panel.js';

export const networkPanel: PanelDefinition = { id: 'network', title: 'Network', component: NetworkPanel };
