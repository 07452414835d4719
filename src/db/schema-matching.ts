import type { Defaulted, Json, NullableTimestamp, Timestamp } from './columns';
import type { RankedProposal } from '../schemas/match';
import type { z } from 'zod';
import type { CommissionPlan, ShippingCommitment } from '../schemas/proposals';

/** Intents, proposals, match sessions, match tokens and payment authorizations (issue: matching core). */

/** Who answers an intent instead of Intent.Surge: GET /v1/recommend, or a commerce runtime that queries the merchants itself. */
export type IntentAnsweredBy = 'recommend' | 'commerce_runtime';

export interface IntentsTable {
  intent_id: string;
  raw_query: string;
  normalized_query: string | null;
  intent_tags: Defaulted<string[]>;
  target_audience: string | null;
  budget_min_cents: number | null;
  budget_max_cents: number | null;
  budget_currency: string | null;
  region: string | null;
  constraints: Json<string[]>;
  source_channel: string | null;
  resolution_source: string | null;
  resolution_summary: string | null;
  metadata: Json;
  time_window: Json<Record<string, unknown> | null>;
  asset_refs: Json<Record<string, unknown>[]>;
  attribution_chain: Json<Record<string, unknown>[]>;
  workflow: Json;
  experience_context: Json;
  developer_id: string | null;
  /** When the intentSurge workflow was started (null: not yet; the API retries). */
  surge_started_at: NullableTimestamp;
  /** Set when the gateway answers the intent itself (never dispatched by Intent.Surge). */
  answered_by: IntentAnsweredBy | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ProposalState = 'draft' | 'quoted' | 'pending_confirmation' | 'accepted' | 'settled' | 'expired';

export interface ProposalsTable {
  proposal_id: string;
  merchant_agent_id: string;
  intent_id: string;
  product_id: number;
  offer_title: string;
  price_cents: number;
  currency: string;
  inventory_status: string;
  shipping_commitment: Json<z.infer<typeof ShippingCommitment>>;
  commission_plan: Json<z.infer<typeof CommissionPlan>>;
  service_terms: Json;
  evidence: Json<Record<string, unknown>[]>;
  valid_until: NullableTimestamp;
  proposal_score_inputs: Json;
  product_snapshot: Json<Record<string, unknown> | null>;
  metadata: Json;
  provenance: string;
  status: Defaulted<'active' | 'withdrawn' | 'expired'>;
  proposal_state: ProposalState;
  trust_score: Json;
  asset_refs: Json<Record<string, unknown>[]>;
  attribution_chain: Json<Record<string, unknown>[]>;
  workflow: Json;
  experience_preview: Json;
  experience_card: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProposalTransitionsTable {
  id: Defaulted<string>;
  proposal_id: string;
  from_state: string;
  to_state: string;
  reason: string;
  at: Timestamp;
}

export type MatchSessionStatus = 'open' | 'accepted' | 'closed' | 'expired';

export interface MatchSessionsTable {
  match_session_id: string;
  intent_id: string;
  best_proposal_id: string | null;
  ranked_proposals: Json<RankedProposal[]>;
  /** The top RENDER_LIMIT_MAX of the ranking when it is longer; null when ranked_proposals is the top. */
  ranked_top: Json<RankedProposal[]> | null;
  summary: Json;
  status: MatchSessionStatus;
  expires_at: Timestamp;
  developer_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type AcceptanceState = 'issued' | 'accepted' | 'payment_authorized' | 'consumed' | 'expired' | 'revoked';

export interface MatchTokensTable {
  match_token_id: string;
  match_session_id: string;
  intent_id: string;
  proposal_id: string;
  acceptance_state: AcceptanceState;
  amount_cents: number;
  currency: string;
  intent_snapshot: Json;
  proposal_snapshot: Json;
  ranking_snapshot: Json;
  trace_ids: Json;
  signed_token: string;
  issued_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
  updated_at: Timestamp;
  /** The owner (docs/TENANCY.md): the developer of the session the token was minted in. */
  developer_id: string | null;
}

export interface PaymentAuthorizationsTable {
  authorization_id: string;
  match_token_id: string;
  proposal_id: string;
  amount_cents: number;
  currency: string;
  authorized_at: Timestamp;
  key_id: string | null;
  /** The owner: the developer of the token it authorizes. */
  developer_id: string | null;
  /** `voided` once a checkout's handoff failed for good (migration 0021). */
  status: Defaulted<'authorized' | 'voided'>;
  voided_at: NullableTimestamp;
  void_reason: string | null;
}

export interface MatchingTables {
  intents: IntentsTable;
  proposals: ProposalsTable;
  proposal_transitions: ProposalTransitionsTable;
  match_sessions: MatchSessionsTable;
  match_tokens: MatchTokensTable;
  payment_authorizations: PaymentAuthorizationsTable;
}
