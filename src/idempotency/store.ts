import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import canonicalize from 'canonicalize';
import type { Db } from '../db/connect';
import { sha256Hex } from '../crypto/tokens';
import { decryptSecret, encryptSecret } from '../crypto/key-encryption';

/** How long a completed response is replayed. */
export const RETENTION_HOURS = 24;
/** The process running a keyed request refreshes its claim (`locked_at`) this often. */
export const CLAIM_HEARTBEAT_MS = 1000;
/**
 * A claim whose heartbeat is older than this belongs to a process that died: the same request takes
 * it over. Five missed heartbeats: a GC pause or a slow statement does not look like a death.
 */
export const STALE_CLAIM_SECONDS = 5;

export type Claim =
  | { kind: 'claimed'; seed: string; takeover: boolean }
  | { kind: 'replay'; status: number; body: unknown; sealed: boolean }
  | { kind: 'conflict' }
  | { kind: 'in_flight'; heartbeatAgeMs: number };

export interface IdempotencyRequest {
  ownerId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

/** Same method, path and JSON body (key order and spacing do not matter) → same hash. */
export function requestHash(r: Pick<IdempotencyRequest, 'method' | 'path' | 'body'>): string {
  return sha256Hex(`${r.method} ${r.path}\n${canonicalize(r.body ?? null) ?? 'null'}`);
}

/**
 * The id of a resource a keyed request creates, derived from the claim's seed: every run of the
 * request (the first, and a takeover after the first one's process died) names the same intent,
 * runtime and workflow, so the takeover finds and finishes what the first run started.
 * Same shape as `newId` (prefix + 16 base64url characters).
 */
export function seededId(seed: string, prefix: string): string {
  return `${prefix}_${createHash('sha256').update(`${seed}\n${prefix}`).digest().subarray(0, 12).toString('base64url')}`;
}

/**
 * Claims an idempotency key for a request. A record past the retention window is replaced (new seed);
 * an in-flight claim of the same request whose heartbeat stopped is taken over, keeping its seed.
 */
export async function claimIdempotencyKey(db: Db, r: IdempotencyRequest): Promise<Claim> {
  const hash = requestHash(r);
  const expired = sql<boolean>`idempotency_keys.created_at < now() - make_interval(hours => ${RETENTION_HOURS})`;
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({
      owner_id: r.ownerId,
      idem_key: r.key,
      method: r.method,
      path: r.path,
      request_hash: hash,
      state: 'in_flight',
      locked_at: sql`now()`,
      created_at: sql`now()`,
      resource_seed: randomBytes(16).toString('base64url'),
    })
    .onConflict((oc) =>
      oc
        .columns(['owner_id', 'idem_key'])
        .doUpdateSet({
          method: r.method,
          path: r.path,
          request_hash: hash,
          state: 'in_flight',
          response_status: null,
          response_body: null,
          response_sealed: false,
          locked_at: sql`now()`,
          created_at: sql`now()`,
          // A takeover continues the dead run: same seed, same ids. A reused expired key starts afresh.
          resource_seed: sql`case when ${expired} then excluded.resource_seed else coalesce(idempotency_keys.resource_seed, excluded.resource_seed) end`,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', sql<Date>`now() - make_interval(hours => ${RETENTION_HOURS})`),
            eb.and([
              eb('idempotency_keys.state', '=', 'in_flight'),
              eb('idempotency_keys.request_hash', '=', hash),
              eb('idempotency_keys.locked_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_CLAIM_SECONDS})`),
            ]),
          ]),
        ),
    )
    // xmax <> 0: the row was updated (a takeover), not inserted.
    .returning(['resource_seed', sql<boolean>`xmax <> 0`.as('takeover')])
    .executeTakeFirst();
  if (claimed) return { kind: 'claimed', seed: claimed.resource_seed!, takeover: claimed.takeover };

  const existing = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .select(sql<number>`extract(epoch from now() - locked_at) * 1000`.as('heartbeat_age_ms'))
    .where('owner_id', '=', r.ownerId)
    .where('idem_key', '=', r.key)
    .executeTakeFirst();
  if (!existing) return claimIdempotencyKey(db, r); // released between our two statements
  if (existing.request_hash !== hash) return { kind: 'conflict' };
  if (existing.state === 'in_flight') return { kind: 'in_flight', heartbeatAgeMs: Number(existing.heartbeat_age_ms) };
  return { kind: 'replay', status: existing.response_status ?? 200, body: existing.response_body, sealed: existing.response_sealed };
}

/** Refreshes the claim while its request runs; a claim that stops being refreshed is taken over. */
export async function heartbeatIdempotencyKey(db: Db, ownerId: string, key: string, seed: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ locked_at: sql`now()` })
    .where('owner_id', '=', ownerId)
    .where('idem_key', '=', key)
    .where('state', '=', 'in_flight')
    .where('resource_seed', '=', seed)
    .execute();
}

/**
 * Response members that are secrets shown once (merchant and agent registration, API keys): a stored
 * response holding one is sealed, never kept in plain text.
 */
const SECRET_MEMBERS = new Set(['registration_token', 'webhook_secret', 'api_key']);

export function carriesSecret(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(carriesSecret);
  if (body && typeof body === 'object') {
    return Object.entries(body).some(([k, v]) => (SECRET_MEMBERS.has(k) && typeof v === 'string') || carriesSecret(v));
  }
  return false;
}

/** The response with its secret members set to null: what is stored when no KEY_ENCRYPTION_KEY can seal it. */
export function withholdSecrets(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withholdSecrets);
  if (body && typeof body === 'object') {
    return Object.fromEntries(
      Object.entries(body).map(([k, v]) => [k, SECRET_MEMBERS.has(k) && typeof v === 'string' ? null : withholdSecrets(v)]),
    );
  }
  return body;
}

const sealAad = (ownerId: string, key: string) => `idempotency:${ownerId}:${key}`;

/**
 * Stores the answer to replay. A response carrying a secret is sealed with KEY_ENCRYPTION_KEY
 * (AES-256-GCM, bound to the owner and key); without that key its secret members are stored as null,
 * so a replay answers everything but the secret (docs/DECISIONS.md).
 */
export async function completeIdempotencyKey(db: Db, ownerId: string, key: string, status: number, body: unknown, sealKey?: Buffer) {
  const secret = carriesSecret(body);
  const stored = !secret
    ? (body ?? null)
    : sealKey
      ? { sealed: encryptSecret(sealKey, JSON.stringify(body), sealAad(ownerId, key)) }
      : withholdSecrets(body);
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      response_status: status,
      response_body: JSON.stringify(stored),
      response_sealed: secret && Boolean(sealKey),
    })
    .where('owner_id', '=', ownerId)
    .where('idem_key', '=', key)
    .execute();
}

/** The stored answer as the caller first got it (unsealed). */
export function openStoredResponse(row: { body: unknown; sealed: boolean }, ownerId: string, key: string, sealKey?: Buffer): unknown {
  if (!row.sealed) return row.body;
  if (!sealKey) throw new Error('KEY_ENCRYPTION_KEY is needed to replay a sealed idempotent response');
  return JSON.parse(decryptSecret(sealKey, (row.body as { sealed: string }).sealed, sealAad(ownerId, key)));
}

/** Forgets a claim (5xx or a crash in the handler): the client may retry with the same key. */
export async function releaseIdempotencyKey(db: Db, ownerId: string, key: string) {
  await db.deleteFrom('idempotency_keys').where('owner_id', '=', ownerId).where('idem_key', '=', key).execute();
}

export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  const res = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', sql<Date>`now() - make_interval(hours => ${RETENTION_HOURS})`)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
