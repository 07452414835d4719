/**
 * The runtime reconciler's contract: what one pass of workflows/runtime-reconciler.ts reports. Its
 * only client is the `runtime-reconcile` Schedule (src/runtime/reconcile.ts), started by type name.
 */
export interface ReconcilerOutcome {
  /** Open runtime rows looked at. */
  checked: number;
  /** Rows closed because their workflow had closed (or never started). */
  closed: number;
}

export type RuntimeReconcilerWorkflow = () => Promise<ReconcilerOutcome>;
