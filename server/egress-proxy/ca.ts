// The egress proxy's ephemeral certificate authority: made fresh for each proxy (each run),
// its key never written anywhere, its certificate handed to the one client or guest that
// should trust it. Leaf certificates for the hosts a client reaches are minted on demand
// (ECDSA P-256: milliseconds each) and kept for the proxy's life. Certificates are built
// with @peculiar/x509 over Node's WebCrypto.

// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;
const crypto = webcrypto as unknown as Crypto;

export interface LeafCertificate {
  /** PEM of the leaf and the CA (the chain a TLS server presents). */
  cert: string;
  key: string;
}

export interface EphemeralCa {
  /** The CA certificate, PEM: what the client must trust. */
  certificate: string;
  /** A certificate for `host` (a name or an IP address), signed by this CA. */
  leafFor(host: string): Promise<LeafCertificate>;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

export async function createEphemeralCa(name = 'Airlock egress proxy (ephemeral)'): Promise<EphemeralCa> {
  const caKeys = (await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=${name}`,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 7 * DAY),
      signingAlgorithm: ALGORITHM,
      keys: caKeys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const caPem = ca.toString('pem');
  const leafKeys = (await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const leafKeyPem = await privateKeyPem(leafKeys.privateKey);
  const leaves = new Map<string, Promise<LeafCertificate>>();

  const mint = async (host: string): Promise<LeafCertificate> => {
    const leaf = await x509.X509CertificateGenerator.create(
      {
        subject: `CN=${host}`,
        issuer: ca.subject,
        notBefore: new Date(Date.now() - DAY),
        notAfter: new Date(Date.now() + 7 * DAY),
        signingAlgorithm: ALGORITHM,
        publicKey: leafKeys.publicKey,
        signingKey: caKeys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([isIP(host) ? { type: 'ip', value: host } : { type: 'dns', value: host }]),
          await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    return { cert: `${leaf.toString('pem')}\n${caPem}`, key: leafKeyPem };
  };

  return {
    certificate: caPem,
    leafFor(host) {
      let leaf = leaves.get(host);
      if (leaf === undefined) {
        leaf = mint(host);
        leaves.set(host, leaf);
      }
      return leaf;
    },
  };
}
