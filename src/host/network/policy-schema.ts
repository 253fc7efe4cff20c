// The JSON Schema of a network policy as data (a policy file, the server's `network:`
// section). Node only: the browser takes policies as objects from the page's own code.

import { GITHUB_PROFILES } from './github-profiles.js';

const strings = { type: 'array', items: { type: 'string', minLength: 1 } } as const;
const methods = { type: 'array', items: { type: 'string', pattern: '^[A-Za-z]+$' } } as const;

export const POLICY_PROPERTIES = {
  mode: { enum: ['strict', 'open'] },
  allowedHosts: strings,
  blockedHosts: strings,
  groups: { type: 'object', propertyNames: { pattern: '^[a-z0-9][a-z0-9-]*$' }, additionalProperties: strings },
  methods,
  ports: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 65535 } },
  rules: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['hosts', 'action'],
      properties: { hosts: strings, methods, paths: { type: 'array', items: { type: 'string', pattern: '^/' } }, action: { enum: ['allow', 'deny'] } },
    },
  },
  githubProfile: { enum: [...GITHUB_PROFILES] },
  tunnel: strings,
} as const;

export const POLICY_SCHEMA = { type: 'object', additionalProperties: false, properties: POLICY_PROPERTIES } as const;
