/**
 * The runtime reconciler's contract: what one pass of workflows/runtime-reconciler.ts reports. Its
 * client was the `runtime-reconcile` Schedule, replaced by the `runtimeReconcile` chore of the
 * system-chores loop (src/housekeeping/chores.ts); the workflow stays so recorded runs replay.
 */
export interface ReconcilerOutcome {
  /** Open runtime rows looked at. */
  checked: number;
  /** Rows closed because their workflow had closed (or never started). */
  closed: number;
}

export type RuntimeReconcilerWorkflow = () => Promise<ReconcilerOutcome>;
