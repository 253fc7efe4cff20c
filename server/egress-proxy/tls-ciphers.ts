// The cipher order on both of the proxy's TLS legs when it terminates TLS: Node's default
// list with TLS_AES_128_GCM_SHA256 moved ahead of the other two TLS 1.3 suites. The proxy
// decrypts and re-encrypts every byte of a terminated exchange, and AES-128-GCM does that
// about a fifth faster than AES-256-GCM (`openssl speed -evp`, AES-NI). Nothing is added
// or taken away: the same suites as Node's default are offered and accepted, all of them
// AEAD for TLS 1.3, and the TLS 1.2 part (already AES-128 first) is Node's own.
//
// On the client's leg the proxy is the server and its order decides (honorCipherOrder),
// among the suites the client offers: a client that offers only AES-256 gets AES-256. On
// the upstream leg it is only the proxy's preference: a server that picks by its own order
// (OpenSSL's, Node's) still picks AES-256.

import { DEFAULT_CIPHERS } from 'node:tls';

const PREFERRED = 'TLS_AES_128_GCM_SHA256';

/** Node's default cipher list with AES-128-GCM first among the TLS 1.3 suites. */
export const PROXY_CIPHERS = [PREFERRED, ...DEFAULT_CIPHERS.split(':').filter((suite) => suite !== PREFERRED)].join(':');
