// Network requests as they cross from the sandbox to the host. The sandbox never opens a
// connection: the kernel hands a request to the host, whose policy decides, and the host
// (through the server's gateway in the browser) performs it.

export interface NetRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
  followRedirects: boolean;
  maxRedirects: number;
  timeoutMs: number;
}

/** Why a request failed, in the terms curl reports (its exit codes in parentheses). */
export type NetFailure =
  | 'refused' // the policy said no (7, "Failed to connect")
  | 'bad-url' // (3)
  | 'resolve' // (6, "Could not resolve host")
  | 'timeout' // (28)
  | 'too-large' // (63, "Maximum file size exceeded")
  | 'too-many-redirects' // (47)
  | 'failed'; // (56, "Failure when receiving data")

/** The answer's head; the body follows in chunks (each under the message limit). */
export type NetHead =
  | { ok: true; status: number; statusText: string; url: string; headers: Array<[string, string]> }
  | { ok: false; failure: NetFailure; message: string };
