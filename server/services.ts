// The server's services, registered in this order. A new service is a folder under server/
// with a ServerService and one line here.

import { gatewayService } from './gateway/index.js';
import { pagesService } from './pages/index.js';
import { auditService } from './audit/index.js';
import { gatesService } from './gates/service/gates-service.js';
import { queueService } from './queue/index.js';
import { mcpService } from './mcp/index.js';
import { agentService } from './agent/index.js';
import { extensionsService } from './extensions/index.js';
import type { ServerService } from './service.js';

export const SERVICES: readonly ServerService[] = [gatewayService, auditService, queueService, gatesService, mcpService, agentService, extensionsService, pagesService];
