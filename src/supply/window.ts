/** The look-back window of a supply metric: (to − days, to]. */
export interface MetricWindow {
  days: number;
  from: Date;
  to: Date;
}

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 90;

export function windowEndingAt(to: Date, days: number): MetricWindow {
  return { days, from: new Date(to.getTime() - days * 86_400_000), to };
}

/** `part / whole` to 4 decimals, or null when there is nothing to divide by (no samples). */
export const share = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);

export const round3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
