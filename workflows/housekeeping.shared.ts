/**
 * The housekeeping flows: small periodic chores that must run once per deployment, not once per API
 * replica. The hourly purge is started by its Temporal Schedule (src/housekeeping/schedules.ts); the
 * frequent chores run inside one long-running loop per task queue, `systemChores`
 * (src/housekeeping/chores.ts), so the workflow list shows business flows, not a row every 30 s
 * (docs/DECISIONS.md, "System chores in one loop").
 * What clients (the schedule, the worker's boot, tests, operators) import: the workflow type names,
 * the loop's chores, Updates and results.
 */

/** The workflow types, one per chore (the Schedule's action names them). */
export const HOUSEKEEPING_WORKFLOWS = {
  /** Hourly: idempotency records past their 24 h replay window, and spent rate-limit buckets. */
  purge: 'housekeepingPurge',
  /** Replaced by the `proposalExpiry` chore of `systemChores`; kept registered so recorded runs replay. */
  proposalExpiry: 'proposalExpirySweep',
  /** Replaced by the `surgeSweep` chore of `systemChores`; kept registered so recorded runs replay. */
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

/** The loop of the frequent system chores, one run per task queue at a time (fixed workflow id). */
export const SYSTEM_CHORES_WORKFLOW = 'systemChores';

/** Each chore of the loop and how often it is due (the loop wakes every `SYSTEM_CHORES_TICK_MS`). */
export const SYSTEM_CHORES = {
  /** Intents stored while Temporal was away, whose fan-out never started. */
  surgeSweep: { everyMs: 30_000 },
  /** Proposals past their expiry that nobody has read since (reads apply expiry themselves). */
  proposalExpiry: { everyMs: 60_000 },
  /** Commerce runtime rows whose workflow closed without closing them; stranded payment authorizations. */
  runtimeReconcile: { everyMs: 60_000 },
  /** The catalog changed since the last walk: start the `catalogEmbedding` walk (one at a time). */
  catalogEmbedding: { everyMs: 60_000 },
} as const;

export type SystemChore = keyof typeof SYSTEM_CHORES;
export const SYSTEM_CHORE_NAMES = Object.keys(SYSTEM_CHORES) as SystemChore[];
export const SYSTEM_CHORES_TICK_MS = 30_000;

/** What one chore did; the `runChore` Update answers with it. */
export type ChoreResult =
  | { chore: 'surgeSweep'; started: number }
  | { chore: 'proposalExpiry'; expired: number }
  | { chore: 'runtimeReconcile'; checked: number; closed: number; voided: number }
  /** `walk`: the walk's workflow id when the catalog needed one (started now or already running), else null. */
  | { chore: 'catalogEmbedding'; walk: string | null }
  | { chore: SystemChore; failed: string };

/** The loop's input: its chore clocks (workflow time, ms) and whether operators paused it, carried across continue-as-new. */
export interface SystemChoresState {
  lastRunAtMs: Partial<Record<SystemChore, number>>;
  paused: boolean;
}

/** The loop's Updates (the Temporal UI, `temporal workflow update execute`, tests). */
export const SYSTEM_CHORES_UPDATES = {
  /** Runs the named chore now and answers with its result (paused or not). */
  runChore: 'runChore',
  /** Stops the timed chores (runChore still works) until `resume`; answers with the loop's state. */
  pause: 'pause',
  resume: 'resume',
} as const;
