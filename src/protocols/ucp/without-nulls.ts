// Apart from wire.ts, which imports discovery.ts's types: discovery.ts reads the profile with it.

/**
 * A business's JSON with every `null` member dropped. The schemas mark absent optional members by
 * leaving them out, but some businesses send `null` for them (the official reference merchant does for
 * every one): read as absent, as a careful client would. Array elements that are null are kept (they
 * mean something).
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}
