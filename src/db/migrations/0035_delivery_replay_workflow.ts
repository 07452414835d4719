import { sql, type Kysely } from 'kysely';

/**
 * `deliveries.replay_workflow_id`: the `dlqReplay` workflow that owns the delivery's latest replay while
 * its own attempt is being sent, and after that attempt delivered it (docs/DISPATCH.md). Null when no
 * replay owns it: before any replay, and once the replay's attempt did not deliver and the replay's
 * run took it over. The queue names this workflow then, since no `delivery-<id>-replay-<n>` run exists
 * for a replay its own attempt delivered.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table deliveries add column replay_workflow_id text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table deliveries drop column replay_workflow_id`.execute(db);
}
