import type { PanelDefinition } from '../panel.js';
import { WelcomePanel } from './welcome-panel.js';

export const welcomePanel: PanelDefinition = { id: 'welcome', title: 'Welcome', enabled: () => true, component: WelcomePanel };
