/**
 * The commerce runtime flow's contract (docs/RUNTIME.md): the input and output of workflows/runtime.ts.
 * The API (src/runtime/client.ts) imports this, never the workflow.
 */
import type { CommerceBudget } from '../src/db/schema-runtime';
import type { ChosenOffer } from '../src/runtime/steps';

export interface RuntimeInput {
  runtimeId: string;
  budget: CommerceBudget;
  /** Each merchant agent's answer deadline. */
  merchantDeadlineMs: number;
}

/** The run's stages (the `FlowStage` search attribute; the row's `stage`). */
export type RuntimeStage =
  | 'queued'
  | 'resolving_intent'
  | 'querying_merchants'
  | 'ranking'
  | 'minting_token'
  | 'awaiting_user_confirmation'
  | 'payment_authorized'
  | 'stopped'
  | 'failed';

export interface RuntimeOutcome {
  runtimeId: string;
  stage: RuntimeStage;
  auditStatus: string;
  intentId: string | null;
  proposalId: string | null;
  matchSessionId: string | null;
  matchTokenId: string | null;
  /** The ranked choice's product, merchant and price (operators read it from the UI's Result); null when nothing was ranked. */
  chosen: ChosenOffer | null;
}

/** The workflow's signature, for typed starts by name. */
export type CommerceRuntimeWorkflow = (input: RuntimeInput) => Promise<RuntimeOutcome>;
