// Reads the server name (SNI) of a TLS ClientHello, for tunnels the proxy does not terminate:
// the name the client asks the far side for must be the host the policy allowed.
// Returns 'incomplete' until the whole first handshake record has arrived.

export type SniResult = { name: string | undefined } | 'incomplete' | { error: string };

export function readSni(bytes: Uint8Array): SniResult {
  if (bytes.length < 5) return 'incomplete';
  if (bytes[0] !== 0x16) return { error: 'the client did not start with a TLS handshake' };
  const recordLength = ((bytes[3] ?? 0) << 8) | (bytes[4] ?? 0);
  if (bytes.length < 5 + recordLength) return 'incomplete';
  const view = bytes.subarray(5, 5 + recordLength);
  let at = 0;
  const need = (n: number): boolean => at + n <= view.length;
  const u8 = (): number => view[at++] ?? 0;
  const u16 = (): number => (u8() << 8) | u8();
  if (!need(4) || u8() !== 0x01) return { error: 'the first TLS handshake message is not a ClientHello' };
  at += 3; // handshake length
  at += 2 + 32; // version, random
  // (`at += u8()` would read `at` before u8() moves it: skip in two steps.)
  const skip = (length: number): void => {
    at += length;
  };
  if (!need(1)) return { error: 'truncated ClientHello' };
  skip(u8()); // session id
  if (!need(2)) return { error: 'truncated ClientHello' };
  skip(u16()); // cipher suites
  if (!need(1)) return { error: 'truncated ClientHello' };
  skip(u8()); // compression methods
  if (!need(2)) return { name: undefined };
  const extensionsLength = u16();
  const end = Math.min(view.length, at + extensionsLength);
  while (at + 4 <= end) {
    const type = u16();
    const length = u16();
    const next = at + length;
    if (type === 0 && length >= 5) {
      at += 2; // list length
      const nameType = u8();
      const nameLength = u16();
      if (nameType !== 0 || at + nameLength > next) return { error: 'malformed server_name extension' };
      return { name: new TextDecoder().decode(view.subarray(at, at + nameLength)) };
    }
    at = next;
  }
  return { name: undefined };
}
