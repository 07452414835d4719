/**
 * The housekeeping flows: small periodic chores that must run once per deployment, not once per API
 * replica, each started by its own Temporal Schedule (src/housekeeping/schedules.ts) so that an
 * operator sees every run in the UI and can trigger, pause or backfill one there.
 * What clients (the schedules, tests) import: the workflow type names and their results.
 */

/** The workflow types, one per chore (the Schedule's action names them). */
export const HOUSEKEEPING_WORKFLOWS = {
  /** Hourly: idempotency records past their 24 h replay window, and spent rate-limit buckets. */
  purge: 'housekeepingPurge',
  /** Every 60 s: proposals past their expiry that nobody has read since (reads apply expiry themselves). */
  proposalExpiry: 'proposalExpirySweep',
  /** Every 30 s: intents stored while Temporal was away, whose fan-out never started. */
  surgeSweep: 'surgeSweep',
} as const;

export type HousekeepingChore = keyof typeof HOUSEKEEPING_WORKFLOWS;

export interface PurgeResult {
  idempotencyKeys: number;
  rateLimitBuckets: number;
}

export interface SweepResult {
  /** Proposals expired, or fan-outs started. */
  affected: number;
}
