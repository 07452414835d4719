import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Defaulted, Json, NullableTimestamp, Timestamp } from './columns';
import type { CatalogTables } from './schema-catalog';
import type { MatchingTables } from './schema-matching';
import type { MandatesTables } from './schema-mandates';
import type { DispatchTables } from './schema-dispatch';
import type { RecommendTables } from './schema-recommend';
import type { ProofTables } from './schema-proof';
import type { RuntimeTables } from './schema-runtime';
import type { CheckoutTables } from './schema-checkout';
import type { SupplyTables } from './schema-supply';
import type { z } from 'zod';
import type { AgentReadyProfile, MerchantProtocol, TrustEvidencePolicy, WorkflowContext } from '../schemas/merchants';

/** Table types, one place (Kysely style); the column types are in columns.ts. */

export interface DevelopersTable {
  developer_id: string;
  display_name: string;
  contact_email: string;
  /** lower-cased e-mail: the unique key, so accounts are case-insensitive. */
  email_normalized: string;
  company: string | null;
  website: string | null;
  password_hash: string;
  status: string;
  invite_verified_at: NullableTimestamp;
  metadata: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DeveloperSessionsTable {
  session_id: string;
  developer_id: string;
  token_hash: string;
  status: string;
  expires_at: Timestamp;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

export interface ApiKeysTable {
  key_id: string;
  developer_id: string;
  key_prefix: string;
  key_hash: string;
  /** AES-256-GCM envelope of the full key; null for hash-only keys (cannot be revealed). */
  key_ciphertext: string | null;
  label: string | null;
  scopes: Json<string[]>;
  status: string;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  deleted_at: NullableTimestamp;
}

export interface RequestLogsTable {
  id: Generated<string>;
  request_id: string;
  key_id: string;
  developer_id: string;
  channel: string | null;
  method: string;
  path: string;
  status_code: number;
  duration_ms: number;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  owner_id: string;
  idem_key: string;
  method: string;
  path: string;
  request_hash: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: Json<unknown> | null;
  /** Claim heartbeat: refreshed every second while the claiming process runs the request. */
  locked_at: Timestamp;
  created_at: Timestamp;
  /** Fixed at the first claim, kept by a takeover: the ids the request creates derive from it. */
  resource_seed: string | null;
  /** response_body is `{"sealed": "<AES-GCM envelope>"}` (it carried a secret). */
  response_sealed: Generated<boolean>;
}

export interface MerchantsTable {
  merchant_id: string;
  agent_endpoint: string;
  subscription_tags: Defaulted<string[]>;
  capabilities: Defaulted<string[]>;
  regions: Defaulted<string[]>;
  category_tags: Defaulted<string[]>;
  inventory_scope: Json<Record<string, unknown>[]>;
  /** `gateway` | `ucp` | `acp` (migration 0032, src/registry/merchant-protocol.ts). */
  protocol_version: Defaulted<MerchantProtocol>;
  /** What protocol discovery found (UCP: src/protocols/ucp/discovery.ts); null for gateway agents. */
  protocol_profile: Json<Record<string, unknown> | null>;
  protocol_profile_fetched_at: NullableTimestamp;
  /** ACP: the credential the seller issued to agents, sealed like the webhook secret; null when none. */
  seller_credential_sealed: string | null;
  a2a_capabilities: Json;
  metadata: Json;
  workflow_context: Json<z.infer<typeof WorkflowContext>>;
  trust_evidence_policy: Json<z.infer<typeof TrustEvidencePolicy>>;
  agent_ready_profile: Json<z.infer<typeof AgentReadyProfile>>;
  status: Defaulted<'active' | 'inactive'>;
  token_hash: string;
  /** AES-256-GCM envelope (`v1.…`) when KEY_ENCRYPTION_KEY is set, else `plain.<secret>`. */
  webhook_secret_sealed: string;
  registered_by_key_id: string | null;
  /** The keyed request that created the row (docs/OPERATIONS.md): its retry may re-issue the credentials. */
  created_by_request: Defaulted<string | null>;
  registered_at: Timestamp;
  updated_at: Timestamp;
  last_seen_at: NullableTimestamp;
  deactivated_at: NullableTimestamp;
}

export interface MerchantHealthProbesTable {
  id: Generated<string>;
  merchant_id: string;
  healthy: boolean;
  reason: string | null;
  http_status: number | null;
  latency_ms: number | null;
  endpoint: string;
  checked_at: Timestamp;
}

export interface CommerceAgentsTable {
  agent_id: string;
  agent_type: string;
  endpoint: string;
  agent_card_url: string | null;
  protocols: Json<string[]>;
  auth_methods: Json<string[]>;
  capabilities: Json<string[]>;
  capability_profile: Json;
  regions: Json<string[]>;
  categories: Json<string[]>;
  metadata: Json;
  status: Defaulted<'active' | 'inactive'>;
  token_hash: string;
  registered_by_key_id: string | null;
  /** The keyed request that created the row (docs/OPERATIONS.md): its retry may re-issue the credentials. */
  created_by_request: Defaulted<string | null>;
  registered_at: Timestamp;
  updated_at: Timestamp;
  last_seen_at: NullableTimestamp;
  deactivated_at: NullableTimestamp;
}

export interface Database
  extends
    CatalogTables,
    MatchingTables,
    MandatesTables,
    DispatchTables,
    RecommendTables,
    ProofTables,
    RuntimeTables,
    CheckoutTables,
    SupplyTables {
  developers: DevelopersTable;
  developer_sessions: DeveloperSessionsTable;
  api_keys: ApiKeysTable;
  request_logs: RequestLogsTable;
  idempotency_keys: IdempotencyKeysTable;
  merchants: MerchantsTable;
  merchant_health_probes: MerchantHealthProbesTable;
  commerce_agents: CommerceAgentsTable;
}

export type Developer = Selectable<DevelopersTable>;
export type DeveloperSession = Selectable<DeveloperSessionsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type ApiKeyUpdate = Updateable<ApiKeysTable>;
export type RequestLog = Selectable<RequestLogsTable>;
export type NewRequestLog = Insertable<RequestLogsTable>;
export type MerchantRow = Selectable<MerchantsTable>;
export type CommerceAgentRow = Selectable<CommerceAgentsTable>;
