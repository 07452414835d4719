import { sql } from 'kysely';
import canonicalize from 'canonicalize';
import type { Db } from '../db/connect';
import { sha256Hex } from '../crypto/tokens';

/** How long a completed response is replayed, and when an unfinished claim counts as abandoned. */
export const RETENTION_HOURS = 24;
export const IN_FLIGHT_LOCK_SECONDS = 60;

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'conflict' }
  | { kind: 'in_flight' };

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
 * Claims an idempotency key for a request. A stale record (older than the retention window, or an
 * in-flight claim whose process died holding it) is taken over in the same statement.
 */
export async function claimIdempotencyKey(db: Db, r: IdempotencyRequest): Promise<Claim> {
  const hash = requestHash(r);
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
          locked_at: sql`now()`,
          created_at: sql`now()`,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', sql<Date>`now() - make_interval(hours => ${RETENTION_HOURS})`),
            eb.and([
              eb('idempotency_keys.state', '=', 'in_flight'),
              eb('idempotency_keys.request_hash', '=', hash),
              eb('idempotency_keys.locked_at', '<', sql<Date>`now() - make_interval(secs => ${IN_FLIGHT_LOCK_SECONDS})`),
            ]),
          ]),
        ),
    )
    .returning('owner_id')
    .executeTakeFirst();
  if (claimed) return { kind: 'claimed' };

  const existing = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('owner_id', '=', r.ownerId)
    .where('idem_key', '=', r.key)
    .executeTakeFirst();
  if (!existing) return claimIdempotencyKey(db, r); // released between our two statements
  if (existing.request_hash !== hash) return { kind: 'conflict' };
  if (existing.state === 'in_flight') return { kind: 'in_flight' };
  return { kind: 'replay', status: existing.response_status ?? 200, body: existing.response_body };
}

export async function completeIdempotencyKey(db: Db, ownerId: string, key: string, status: number, body: unknown) {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'completed', response_status: status, response_body: JSON.stringify(body ?? null) })
    .where('owner_id', '=', ownerId)
    .where('idem_key', '=', key)
    .execute();
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
