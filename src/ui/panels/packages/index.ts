import type { PanelDefinition } from '../panel.js';
import { PackagesPanel } from './packages-panel.js';

export const packagesPanel: PanelDefinition = { id: 'packages', title: 'Packages', component: PackagesPanel };
