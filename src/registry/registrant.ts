import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/connect';
import type { AppError } from '../errors';
import { registrationTokenMatches } from './secrets';

/**
 * What a registered merchant agent and a registered commerce agent have in common (docs/REGISTRIES.md):
 * a registration token kept only as its SHA-256, a heartbeat that stamps `last_seen_at`, and a
 * deactivation that is idempotent (a second one keeps the first `deactivated_at`). One implementation
 * serves both registries; each names its table, id column and not-found error.
 */
export interface RegistrantKind<Row> {
  table: 'merchants' | 'commerce_agents';
  idColumn: 'merchant_id' | 'agent_id';
  notFound: (id: string) => AppError;
  /** Only carries the row type. */
  readonly row?: Row;
}

/** For the token middleware: is `token` the registration token of this very registrant? */
export async function checkRegistrantToken<Row>(
  db: Db,
  kind: RegistrantKind<Row>,
  id: string,
  token: string,
): Promise<'valid' | 'invalid' | 'unknown'> {
  const { rows } = await sql<{ token_hash: string }>`
    select token_hash from ${sql.table(kind.table)} where ${sql.ref(kind.idColumn)} = ${id}`.execute(db);
  const row = rows[0];
  if (!row) return 'unknown';
  return registrationTokenMatches(token, row.token_hash) ? 'valid' : 'invalid';
}

async function updateOne<Row>(db: Db, kind: RegistrantKind<Row>, id: string, set: RawBuilder<unknown>): Promise<Row> {
  const { rows } = await sql<Row>`
    update ${sql.table(kind.table)} set ${set} where ${sql.ref(kind.idColumn)} = ${id} returning *`.execute(db);
  const row = rows[0];
  if (!row) throw kind.notFound(id);
  return row;
}

export const heartbeatRegistrant = <Row>(db: Db, kind: RegistrantKind<Row>, id: string): Promise<Row> =>
  updateOne(db, kind, id, sql`last_seen_at = now()`);

export const deactivateRegistrant = <Row>(db: Db, kind: RegistrantKind<Row>, id: string): Promise<Row> =>
  updateOne(db, kind, id, sql`status = 'inactive', deactivated_at = coalesce(deactivated_at, now()), updated_at = now()`);
