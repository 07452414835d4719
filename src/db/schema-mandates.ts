import type { Json, Timestamp } from './columns';

/** One signed intent mandate, kept for audit (append-only: a trigger refuses UPDATE and DELETE). */
export interface IntentMandatesTable {
  mandate_id: string;
  developer_id: string;
  api_key_id: string;
  product_id: string;
  amount_limit: number;
  currency: string;
  intent_id: string | null;
  merchant_id: string | null;
  /** The payload as JSON (for queries); canonical_payload is the authoritative signed text. */
  payload: Json;
  canonical_payload: string;
  signature: string;
  jws: string;
  alg: string;
  kid: string;
  issued_at: Timestamp;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** Table types of the mandates tables (merged into Database in schema.ts). */
export interface MandatesTables {
  intent_mandates: IntentMandatesTable;
}
