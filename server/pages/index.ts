// The pages service: serves the web app, each HTML page with its own page token.

import { resolve } from 'node:path';
import type { ServerService } from '../service.js';
import { staticAnswer } from './static-files.js';

export const pagesService: ServerService = {
  name: 'pages',
  register(app, context) {
    const root = resolve(context.config.server.web);
    app.route({
      method: ['GET', 'HEAD'],
      url: '/*',
      handler(request, reply) {
        const ifNoneMatch = request.headers['if-none-match'];
        const answer = staticAnswer(root, request.method, request.url, typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, context.tokens.mint);
        if (answer === undefined) return reply.callNotFound();
        reply.code(answer.status).headers(answer.headers);
        return reply.send(answer.body ?? '');
      },
    });
  },
};
