import type { Generated } from 'kysely';
import type { Defaulted, Json, NullableTimestamp, Timestamp } from './columns';
import type { DiscrepancyKind, ReconciliationSummary } from '../schemas/reconciliation';

/** Experience commerce and supply operations (issue 8; migration 0012_experience_supply). */

/** docs/CONTRACT.md#decision-events: the experience guide's kinds, then the outcome events SLA and reputation read. */
export const DECISION_EVENT_TYPES = [
  'pick',
  'nope',
  'remix',
  'confirm',
  'view',
  'click',
  'purchase',
  'return',
  'complaint',
  'fulfilled',
  'late_delivery',
] as const;
export type DecisionEventType = (typeof DECISION_EVENT_TYPES)[number];

export interface DecisionEventsTable {
  feedback_id: string;
  event_type: DecisionEventType;
  intent_id: string | null;
  proposal_id: string | null;
  match_token_id: string | null;
  merchant_id: string | null;
  product_id: number | null;
  agent_id: string | null;
  payload: Json;
  developer_id: string | null;
  created_at: Timestamp;
}

export interface MerchantReputationSnapshotsTable {
  snapshot_id: string;
  merchant_id: string;
  score: number;
  basis: Json;
  window_days: number;
  computed_at: Timestamp;
}

export type AffiliateOrderStatus = 'completed' | 'refunded' | 'cancelled';

export interface AffiliateOrdersTable {
  id: Generated<string>;
  source: Defaulted<string>;
  order_id: string;
  rec_id: string | null;
  match_token_id: string | null;
  checkout_id: string | null;
  product_id: number | null;
  merchant_id: string | null;
  amount_cents: number;
  currency: string;
  commission_cents: number | null;
  status: Defaulted<AffiliateOrderStatus>;
  ordered_at: Timestamp;
  import_batch: string;
  line: number | null;
  raw: Json;
  imported_at: Timestamp;
}

export type ReconciliationTrigger = 'api' | 'schedule';

export interface ReconciliationRunsTable {
  run_id: string;
  workflow_id: string;
  trigger: ReconciliationTrigger;
  source: string;
  days: number;
  window_start: Timestamp;
  window_end: Timestamp;
  status: 'running' | 'completed' | 'failed';
  /** `{}` while running or after a failure. */
  summary: Json<ReconciliationSummary | Record<string, never>>;
  error: string | null;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface ReconciliationDiscrepanciesTable {
  id: Generated<string>;
  run_id: string;
  kind: DiscrepancyKind;
  order_id: string | null;
  ref_type: string | null;
  ref_id: string | null;
  expected_amount_cents: number | null;
  actual_amount_cents: number | null;
  currency: string | null;
  detail: Json;
}

export interface SupplyTables {
  decision_events: DecisionEventsTable;
  merchant_reputation_snapshots: MerchantReputationSnapshotsTable;
  affiliate_orders: AffiliateOrdersTable;
  reconciliation_runs: ReconciliationRunsTable;
  reconciliation_discrepancies: ReconciliationDiscrepanciesTable;
}
