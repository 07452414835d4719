/**
 * How the per-process caches of catalog facts serve a value by its age: fresh within the TTL;
 * then stale, still served while one refresh runs in the background, so that values loaded
 * together (every card of a busy minute, the catalog snapshot) do not expire together and make
 * every request wait on the database at once; past twice the TTL, expired: read again before use,
 * which bounds how stale a value that nobody asked for in between can be.
 */
export type Freshness = 'fresh' | 'stale' | 'expired';

export function freshness(loadedAt: number, ttlMs: number, now = Date.now()): Freshness {
  const age = now - loadedAt;
  return age < ttlMs ? 'fresh' : age < 2 * ttlMs ? 'stale' : 'expired';
}
