import type { PanelDefinition } from '../panel.js';
import { ExtensionsPanel } from './extensions-panel.js';

export const extensionsPanel: PanelDefinition = { id: 'extensions', title: 'Extensions', component: ExtensionsPanel };
