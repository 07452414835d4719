import type { Defaulted, NullableTimestamp, Timestamp } from './columns';

export type DeliveryState = 'pending' | 'inflight' | 'delivered' | 'dlq';

/** One Intent.Surge delivery: the merchant's copy of an intent, tracked until delivered or dead-lettered. */
export interface DeliveriesTable {
  delivery_id: string;
  intent_id: string;
  merchant_id: string;
  state: DeliveryState;
  endpoint: string;
  payload: string;
  attempts: Defaulted<number>;
  replays: Defaulted<number>;
  next_attempt_at: NullableTimestamp;
  last_attempt_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  dlq_at: NullableTimestamp;
  dlq_reason: string | null;
  /** The dlqReplay workflow that owns the latest replay (sending its attempt, or it delivered); null otherwise. */
  replay_workflow_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type AttemptOutcome = 'delivered' | 'failed' | 'gone' | 'unsafe_endpoint';

export interface DeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  replay: number;
  outcome: AttemptOutcome;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  retry_after_s: number | null;
  attempted_at: Timestamp;
}

/** Table types of the dispatch tables (merged into Database in schema.ts). */
export interface DispatchTables {
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
}
