/** The period a reconciliation run covers. Pure: the workflow imports it too. */

export const RECONCILIATION_DAYS = { min: 1, max: 30, default: 1 } as const;
const DAY_MS = 86_400_000;

export interface ReconciliationWindow {
  /** ISO 8601, inclusive. */
  start: string;
  /** ISO 8601, exclusive. */
  end: string;
  days: number;
}

export function windowEnding(end: Date, days: number): ReconciliationWindow {
  return { start: new Date(end.getTime() - days * DAY_MS).toISOString(), end: end.toISOString(), days };
}
