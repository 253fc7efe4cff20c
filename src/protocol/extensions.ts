// How a page calls the extensions its server hosts (docs/extensions.md, server/extensions/):
// GET the list, POST one call (its stdin whole, up to the extension's cap) and get its
// output and status back. Byte fields are base64.

export const EXTENSIONS_LIST_PATH = '/api/extensions';
export const EXTENSION_CALL_PATH = '/api/extensions/call';

/** An extension as the server lists it: what a page needs to declare it in its sandbox. */
export interface HostedExtensionInfo {
  name: string;
  description: string;
  timeoutMs: number;
  maxStdinBytes: number;
  maxOutputBytes: number;
}

export interface ExtensionCallRequest {
  name: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** base64 */
  stdin: string;
  /** The page's sandbox session, for the server's audit events. */
  sessionId?: string;
}

export interface ExtensionCallReply {
  /** base64 */
  stdout: string;
  /** base64 */
  stderr: string;
  exitCode: number;
}
