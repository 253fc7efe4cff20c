// Per-page tokens: every HTML page the server serves carries a fresh token (a random nonce
// and its HMAC under a key that lives only in this server process), and every endpoint a
// page uses checks it. Stateless: nothing is stored per page, and a restart ends them all
// (the page reloads).

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface PageTokens {
  mint(): string;
  verify(token: string | undefined): boolean;
}

export function pageTokens(key: Uint8Array = randomBytes(32)): PageTokens {
  const mac = (nonce: string): Buffer => createHmac('sha256', key).update(nonce).digest();
  return {
    mint() {
      const nonce = randomBytes(18).toString('base64url');
      return `${nonce}.${mac(nonce).toString('base64url')}`;
    },
    verify(token) {
      if (typeof token !== 'string' || token.length > 200) return false;
      const [nonce, signature, extra] = token.split('.');
      if (nonce === undefined || signature === undefined || extra !== undefined) return false;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(nonce);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
