// Typed errors of the gate backends. Each has a stable code the runner and the CLI read:
// a spec error is the caller's (usage), an unreachable backend is not retryable.

export class SandboxError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** A spec broke the schema, the env allowlist or a limit; names the field and the rule. */
export class SandboxSpecError extends SandboxError {
  constructor(message: string) {
    super('ESPEC', message);
    this.name = 'SandboxSpecError';
  }
}

/** The backend cannot run here (no binary, no KVM, no image); says why and what to do. */
export class SandboxBackendUnavailable extends SandboxError {
  constructor(
    readonly backend: string,
    readonly reasons: string[],
    code = 'EUNAVAILABLE',
  ) {
    super(code, `backend ${backend} cannot run here: ${reasons.join('; ')}`);
    this.name = 'SandboxBackendUnavailable';
  }
}

/**
 * The backend's guest image is not there (not built yet, or built for another recipe): an
 * unreachable backend of its own kind, since the remedy is a build, not a different host.
 */
export class SandboxImageUnavailable extends SandboxBackendUnavailable {
  constructor(
    backend: string,
    readonly image: string,
    reason: string,
  ) {
    super(backend, [reason], 'EIMAGE');
    this.name = 'SandboxImageUnavailable';
  }
}

/** The backend started but the run broke (VM crashed, guest output unreadable). */
export class SandboxRunFailed extends SandboxError {
  constructor(message: string) {
    super('ERUN', message);
    this.name = 'SandboxRunFailed';
  }
}
