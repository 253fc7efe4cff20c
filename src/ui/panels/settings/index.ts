import type { PanelDefinition } from '../panel.js';
import { SettingsPanel } from './settings-panel.js';

export const settingsPanel: PanelDefinition = { id: 'settings', title: 'Settings', component: SettingsPanel };
