// Errors the host API throws. Each is a typed Error subclass with a stable `code`, so
// callers can tell a limit from a bad path from a closed sandbox, on both sides of the
// channel (errors cross it as {name, code, message, details} and are rebuilt here).

export class AirlockError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'AirlockError';
    this.code = code;
  }
}

/** A limit refused something. Names the limit and its value. */
export class LimitError extends AirlockError {
  constructor(
    readonly limit: string,
    readonly value: number,
    message?: string,
  ) {
    super('ELIMIT', message ?? `limit exceeded: ${limit} is ${value}`);
    this.name = 'LimitError';
  }
}

/** A filesystem call on the sandbox failed (code is the errno name: ENOENT, EROFS, ...). */
export class SandboxFsError extends AirlockError {
  constructor(
    code: string,
    readonly path: string,
    message: string,
  ) {
    super(code, `${message}: ${path}`);
    this.name = 'SandboxFsError';
  }
}

/** The sandbox was destroyed, or its worker died and could not be restarted. */
export class SandboxClosedError extends AirlockError {
  constructor(message = 'the sandbox is closed') {
    super('ECLOSED', message);
    this.name = 'SandboxClosedError';
  }
}

/** A message on the host⇄worker channel broke the protocol (too large, malformed). */
export class ProtocolError extends AirlockError {
  constructor(message: string) {
    super('EPROTO', message);
    this.name = 'ProtocolError';
  }
}

/** What an error looks like on the wire. */
export interface WireError {
  name: string;
  code: string;
  message: string;
  limit?: string;
  value?: number;
  path?: string;
}

export function toWireError(error: unknown): WireError {
  if (error instanceof LimitError) return { name: error.name, code: error.code, message: error.message, limit: error.limit, value: error.value };
  if (error instanceof SandboxFsError) return { name: error.name, code: error.code, message: error.message, path: error.path };
  if (error instanceof AirlockError) return { name: error.name, code: error.code, message: error.message };
  return { name: 'Error', code: 'EINTERNAL', message: error instanceof Error ? error.message : String(error) };
}

export function fromWireError(wire: WireError): Error {
  switch (wire.name) {
    case 'LimitError':
      return new LimitError(wire.limit ?? 'unknown', wire.value ?? 0, wire.message);
    case 'SandboxFsError': {
      const error = new SandboxFsError(wire.code, wire.path ?? '', 'x');
      error.message = wire.message;
      return error;
    }
    case 'SandboxClosedError':
      return new SandboxClosedError(wire.message);
    case 'ProtocolError':
      return new ProtocolError(wire.message);
    default:
      return new AirlockError(wire.code, wire.message);
  }
}
