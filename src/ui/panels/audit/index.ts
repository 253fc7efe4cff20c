import type { PanelDefinition } from '../panel.js';
import { AuditPanel } from './audit-panel.js';

export const auditPanel: PanelDefinition = { id: 'audit', title: 'Audit', component: AuditPanel };
