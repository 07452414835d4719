import type { Json, NullableTimestamp, Timestamp } from './columns';
import type { z } from 'zod';
import type { BudgetConsumed as BudgetConsumedSchema, CommerceBudget as CommerceBudgetSchema } from '../schemas/runtime';

/** Budget units one AgentStep (or a whole run) consumed. */
export type BudgetConsumed = z.infer<typeof BudgetConsumedSchema>;

/** The budget a run was given, defaults filled in (the `commerce_budget` JSONB column). */
export type CommerceBudget = z.infer<typeof CommerceBudgetSchema>;

export interface RuntimeTrace {
  loop: string;
  current_step: number | null;
  audit_status: string;
  /** Budget units the run consumed so far. */
  consumed?: BudgetConsumed;
}

/** One commerce runtime run (docs/RUNTIME.md); its AgentSteps are rows of commerce_runtime_steps. */
export interface CommerceRuntimesTable {
  runtime_id: string;
  entry_agent_id: string;
  mode: string;
  /** queued → resolving_intent → querying_merchants → ranking → minting_token → awaiting_user_confirmation | payment_authorized | stopped | failed */
  stage: string;
  intent_id: string | null;
  proposal_id: string | null;
  match_session_id: string | null;
  match_token_id: string | null;
  commerce_budget: Json<CommerceBudget>;
  commerce_memory_refs: Json<Record<string, unknown>[]>;
  skill_refs: Json<string[]>;
  /** The request's intent body and proposal shell, as given. */
  request: Json;
  runtime_trace: Json<RuntimeTrace>;
  developer_id: string | null;
  key_id: string | null;
  started_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface CommerceRuntimeStepsTable {
  step_id: string;
  runtime_id: string;
  index: number;
  agent_id: string;
  kind: string;
  status: string;
  input_summary: string;
  output_summary: string;
  budget_consumed: Json<BudgetConsumed>;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
  error: string | null;
}

/** Table types of the commerce runtime (merged into Database in schema.ts). */
export interface RuntimeTables {
  commerce_runtimes: CommerceRuntimesTable;
  commerce_runtime_steps: CommerceRuntimeStepsTable;
}
