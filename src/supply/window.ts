/**
 * Look-back windows: the last `days` days ending at a moment. One helper for the supply metrics
 * (SLA, reputation: rows in (from, to]) and the reconciliation runs (orders in [start, end)). Pure:
 * the reconciliation workflow imports it too.
 */

const DAY_MS = 86_400_000;

/** The look-back window of a supply metric: (to − days, to]. */
export interface MetricWindow {
  days: number;
  from: Date;
  to: Date;
}

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 90;

export function windowEndingAt(to: Date, days: number): MetricWindow {
  return { days, from: new Date(to.getTime() - days * DAY_MS), to };
}

/** The period a reconciliation run covers, in ISO form because it travels in a workflow's input. */
export interface ReconciliationWindow {
  /** ISO 8601, inclusive. */
  start: string;
  /** ISO 8601, exclusive. */
  end: string;
  days: number;
}

export const RECONCILIATION_DAYS = { min: 1, max: 30, default: 1 } as const;

export function windowEnding(end: Date, days: number): ReconciliationWindow {
  const w = windowEndingAt(end, days);
  return { start: w.from.toISOString(), end: w.to.toISOString(), days };
}

/** `part / whole` to 4 decimals, or null when there is nothing to divide by (no samples). */
export const share = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);

export const round3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
