/**
 * The reconciliation flow's contract (docs/RECONCILIATION.md): the input and output of
 * workflows/reconciliation.ts. The API (src/reconciliation/client.ts) and the Schedule
 * (src/reconciliation/schedule.ts) import this, never the workflow.
 */
import type { ReconciliationTrigger } from '../src/db/schema-supply';
import type { ReconciliationSummary } from '../src/schemas/reconciliation';
import type { ReconciliationWindow } from '../src/supply/window';

export interface ReconciliationInput {
  trigger: ReconciliationTrigger;
  days: number;
  /** The order source's name (docs/RECONCILIATION.md). */
  source: string;
  /** Where the window ends (ISO 8601); absent: when the run starts (a scheduled run). */
  asOf?: string;
  /** Given by the API (it answers with it); a scheduled run makes its own. */
  runId?: string;
}

/** The run's stages (the `FlowStage` search attribute). */
export type ReconciliationStage = 'queued' | 'reconciling' | 'completed' | 'failed';

export interface ReconciliationOutcome {
  runId: string;
  status: 'completed' | 'failed';
  window: ReconciliationWindow;
  discrepancies?: ReconciliationSummary['discrepancies'];
  error?: string;
}

/** The workflow's signature, for typed starts by name. */
export type ReconciliationWorkflow = (input: ReconciliationInput) => Promise<ReconciliationOutcome>;
