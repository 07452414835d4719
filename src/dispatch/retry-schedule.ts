/**
 * When the next delivery attempt happens (docs/CONTRACT.md#intentsurge). Pure and free of Node APIs: the delivery
 * workflow calls it with the workflow's deterministic Math.random.
 *
 * `scheduleS[i]` is the wait before attempt i+1 (the first is normally 0: immediately), so the
 * schedule's length is the number of attempts before the dead-letter queue.
 */
export const JITTER = 0.2;
/** A merchant's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_S = 24 * 3600;

export function attemptDelayMs(
  scheduleS: readonly number[],
  attemptIndex: number,
  random: () => number,
  retryAfterS?: number | null,
): number | null {
  const base = scheduleS[attemptIndex];
  if (base === undefined) return null;
  const jittered = base * (1 + JITTER * (2 * random() - 1));
  const floor = retryAfterS && retryAfterS > 0 ? Math.min(retryAfterS, MAX_RETRY_AFTER_S) : 0;
  return Math.round(Math.max(jittered, floor) * 1000);
}

/** Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110, section 10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
