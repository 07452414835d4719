import { sql } from 'kysely';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import { workflowIds } from '../temporal/names';
import type { RuntimeOutcome } from '../../workflows/runtime.shared';
import { voidStrandedAuthorizations } from './payment';

/**
 * The runtime reconciler (docs/OPERATIONS.md, failure modes): a run's own workflow closes its row
 * (its last step retries until Postgres answers), but a workflow terminated, reset or timed out
 * from outside, or a start that never reached Temporal, leaves a row that says `running` forever.
 * The system-chores loop runs it every minute (its `runtimeReconcile` chore, src/housekeeping/chores.ts);
 * it closes every such row from what Temporal knows about the run. The same pass voids payment authorizations whose token expired with
 * no live checkout (src/runtime/payment.ts).
 */

/** Rows younger than this are left alone: their workflow may still be starting. */
export const RECONCILE_AFTER_S = 60;
/** A row whose workflow Temporal has never heard of is closed only after this long (the API's start may be slow). */
export const NOT_STARTED_AFTER_S = 600;
const BATCH = 200;

export interface ReconciledRuntime {
  runtimeId: string;
  /** Temporal's status of the run (`NOT_FOUND` when it never started). */
  workflowStatus: string;
  stage: string;
  auditStatus: string;
}

/** Closes a row only while it is still open: the run's own finish always wins a race. */
async function closeOpenRuntime(db: Db, runtimeId: string, stage: string, auditStatus: string): Promise<boolean> {
  const res = await db
    .updateTable('commerce_runtimes')
    .set({
      stage,
      runtime_trace: sql`jsonb_set(runtime_trace, '{audit_status}', to_jsonb(${auditStatus}::text))`,
      finished_at: new Date(),
      updated_at: new Date(),
    })
    .where('runtime_id', '=', runtimeId)
    .where('finished_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * One pass of the runtime reconciler (a local activity of the system-chores loop). It asks Temporal
 * about other runs: a connection per pass (once a minute), closed after it, so nothing outlives the
 * worker's shutdown.
 */
export async function reconcileOpenRuntimes(db: Db, config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>) {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS!, connectTimeout: 5000 });
  try {
    const closed = await reconcileRuntimes(db, new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }));
    // The same pass voids authorizations nothing took up (src/runtime/payment.ts).
    return { ...closed, voided: await voidStrandedAuthorizations(db) };
  } finally {
    await connection.close();
  }
}

export async function reconcileRuntimes(
  db: Db,
  client: Client,
  opts: { olderThanS?: number; notStartedAfterS?: number } = {},
): Promise<{ checked: number; closed: ReconciledRuntime[] }> {
  const olderThanS = opts.olderThanS ?? RECONCILE_AFTER_S;
  const notStartedAfterS = opts.notStartedAfterS ?? NOT_STARTED_AFTER_S;
  const open = await db
    .selectFrom('commerce_runtimes')
    .select(['runtime_id', sql<number>`extract(epoch from now() - started_at)`.as('age_s')])
    .where('finished_at', 'is', null)
    .where('started_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanS})`)
    .orderBy('started_at')
    .limit(BATCH)
    .execute();
  const closed: ReconciledRuntime[] = [];
  for (const row of open) {
    const handle = client.workflow.getHandle(workflowIds.runtime(row.runtime_id));
    let status: string;
    try {
      status = (await handle.describe()).status.name;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      status = 'NOT_FOUND';
    }
    let stage = 'failed';
    let audit: string;
    if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') continue;
    if (status === 'NOT_FOUND') {
      if (Number(row.age_s) < notStartedAfterS) continue;
      audit = 'failed:workflow_not_started';
    } else if (status === 'COMPLETED') {
      // Completed without its last write landing: the outcome says how it ended.
      const outcome = (await handle.result()) as RuntimeOutcome;
      stage = outcome.stage;
      audit = outcome.auditStatus;
    } else {
      audit = `failed:workflow_${status.toLowerCase()}`;
    }
    if (await closeOpenRuntime(db, row.runtime_id, stage, audit))
      closed.push({ runtimeId: row.runtime_id, workflowStatus: status, stage, auditStatus: audit });
  }
  return { checked: open.length, closed };
}
