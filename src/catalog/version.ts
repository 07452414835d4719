import { sql } from 'kysely';
import type { Db } from '../db/connect';

/** The catalog's version (migration 0019): it moves, in the same transaction, with any catalog change. */
export async function readCatalogVersion(db: Db): Promise<string> {
  const { rows } = await sql<{ version: string }>`select version from catalog_version`.execute(db);
  return rows[0]?.version ?? '0';
}
