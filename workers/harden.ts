// Realm hardening, done before anything untrusted runs (docs/architecture.md §1): the network
// and storage globals are removed, and shadowed on the global object so a copy left on a
// prototype (browsers define fetch on WorkerGlobalScope.prototype) is unreachable too.
// String code generation is disabled by the embedder: CSP without 'unsafe-eval' in the
// browser, --disallow-code-generation-from-strings in Node.

/** Globals a sandbox realm must not have. Missing ones are simply skipped. */
export const FORBIDDEN_GLOBALS = [
  'fetch', 'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'WebTransport',
  'RTCPeerConnection', 'webkitRTCPeerConnection', 'importScripts', 'indexedDB', 'IDBFactory',
  'caches', 'CacheStorage', 'BroadcastChannel', 'Worker', 'SharedWorker', 'localStorage',
  'sessionStorage', 'openDatabase', 'navigator', 'Request', 'Response', 'Headers',
  'process', 'require', 'module', 'global', 'Deno', 'Bun',
  // Chromium's workers also carry the old sandboxed-filesystem API (origin storage), the
  // storage and lock managers and notifications: storage and a way out of the realm.
  'webkitRequestFileSystem', 'webkitRequestFileSystemSync', 'webkitResolveLocalFileSystemURL',
  'webkitResolveLocalFileSystemSyncURL', 'Notification', 'StorageManager', 'LockManager',
] as const;

/** Removes and shadows the forbidden globals of `scope`; returns the names that existed. */
export function hardenRealm(scope: object = globalThis): string[] {
  return removeGlobals(scope, FORBIDDEN_GLOBALS);
}

/**
 * Deletes `names` from `scope` and every prototype above it, then shadows them on `scope`
 * with a non-configurable `undefined`; returns the names that existed.
 */
export function removeGlobals(scope: object, names: readonly string[]): string[] {
  const removed: string[] = [];
  for (const name of names) {
    let present = false;
    for (let holder: object | null = scope; holder !== null; holder = Object.getPrototypeOf(holder)) {
      if (Object.prototype.hasOwnProperty.call(holder, name)) {
        present = true;
        try {
          delete (holder as Record<string, unknown>)[name];
        } catch {
          // Non-configurable: shadowed below.
        }
      }
    }
    try {
      Object.defineProperty(scope, name, { value: undefined, writable: false, configurable: false, enumerable: false });
    } catch {
      // Already non-configurable on the scope itself; it was deleted or cannot be reached.
    }
    if (present) removed.push(name);
  }
  return removed;
}
