// The page's cache of Python memory snapshots (Cache Storage). The sandbox realms cannot
// use storage, so the page keeps the snapshot its builder worker made and hands it down
// with the other assets. Entries are keyed by the Pyodide build and snapshot recipe
// (__AIRLOCK_PYODIDE_KEY__, scripts/pyodide-assets-plugin.ts): another build finds nothing and
// boots cold, and storing a new entry drops the others.

const CACHE_NAME = 'airlock-python-snapshot';

function entryUrl(key: string): string {
  return new URL(`/__airlock/python-snapshot/${encodeURIComponent(key)}`, location.origin).href;
}

function cacheStorage(): CacheStorage | undefined {
  return typeof caches === 'object' && caches !== null ? caches : undefined;
}

/** The cached snapshot for `key`, or undefined (none, or storage unavailable). */
export async function readCachedSnapshot(key: string): Promise<Uint8Array | undefined> {
  const storage = cacheStorage();
  if (storage === undefined) return undefined;
  try {
    const cache = await storage.open(CACHE_NAME);
    const response = await cache.match(entryUrl(key));
    if (response === undefined) return undefined;
    return new Uint8Array(await response.arrayBuffer());
  } catch {
    // A browser that refuses storage (private mode, quota): a cold start, same behaviour.
    return undefined;
  }
}

/** Stores `snapshot` under `key` and removes entries of other keys. Failures are ignored. */
export async function writeCachedSnapshot(key: string, snapshot: Uint8Array): Promise<void> {
  const storage = cacheStorage();
  if (storage === undefined) return;
  try {
    const cache = await storage.open(CACHE_NAME);
    const url = entryUrl(key);
    for (const request of await cache.keys()) if (request.url !== url) await cache.delete(request);
    const body = new Uint8Array(snapshot);
    await cache.put(url, new Response(body, { headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length) } }));
  } catch {
    // Quota or a storage error: the next page load makes the snapshot again.
  }
}
