/** A stored timestamp as the API shows it: ISO 8601 in UTC, or null. */
export const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** `p`'s value when it settles within `ms`, else undefined (a rejection inside the bound rejects); the timer never outlives the wait. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
