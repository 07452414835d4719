import { sql } from 'kysely';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Db } from '../db/connect';
import type { Logger } from '../logger';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA, workflowIds } from '../temporal/names';
import type { intentSurge } from '../../workflows/intent-surge';
import { createIntent, type IntentRow } from '../matching/intents';
import { within } from '../time';

/**
 * How long a create waits for Temporal to accept the fan-out. A healthy server answers in
 * milliseconds; one that is away would hold the caller through the client's connection retries
 * (9-18 s measured), so past this the caller gets its intent and the sweep starts the fan-out.
 */
export const SURGE_START_WAIT_MS = 1000;
/** How long a fan-out start may keep retrying in the background before the sweep's turn. */
export const SURGE_START_DEADLINE_MS = 5000;
import type { IntentCreateInput } from '../schemas/intents';

/**
 * Starts the intent's fan-out once: the workflow id is `surge-<intent_id>` and a second start (a retried
 * create, the sweep racing the request) finds it, running or finished, and starts nothing.
 */
export async function startSurge(temporal: Pick<TemporalHandle, 'client' | 'taskQueue'>, db: Db, intentId: string): Promise<void> {
  try {
    await temporal.client.workflow.start<typeof intentSurge>('intentSurge', {
      workflowId: workflowIds.surge(intentId),
      taskQueue: temporal.taskQueue,
      args: [{ intentId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SA.IntentId, value: intentId },
        { key: SA.FlowStage, value: 'fan-out' },
      ],
      staticSummary: `Intent.Surge fan-out for ${intentId}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await db.updateTable('intents').set({ surge_started_at: sql`now()` }).where('intent_id', '=', intentId).where('surge_started_at', 'is', null).execute();
}

/**
 * POST /v1/intents (and the MCP tool create_intent): stores the intent, then starts its fan-out. The
 * intent is stored either way; a fan-out that cannot start now is started by the API's sweep.
 */
export async function createIntentAndStartSurge(
  deps: { db: Db; temporal: TemporalHandle | null; logger: Logger },
  body: IntentCreateInput,
  caller: { developerId?: string },
  /** `intentId`: fixed by the request's Idempotency-Key claim, so a retry after a crash finds the same intent. */
  opts: { intentId?: string } = {},
): Promise<IntentRow> {
  const { db, temporal, logger } = deps;
  const intent = await createIntent(db, body, caller, opts.intentId ? { intentId: opts.intentId } : {});
  if (temporal && !intent.surge_started_at) {
    // Bounded: past SURGE_START_DEADLINE_MS the client stops retrying (the sweep takes over), so no
    // retry of a start is left pending when the process shuts its Temporal connection.
    const starting = temporal.connection
      .withDeadline(Date.now() + SURGE_START_DEADLINE_MS, () => startSurge(temporal, db, intent.intent_id))
      .catch((err) => logger.warn({ err, intent_id: intent.intent_id }, 'surge start failed; the sweep retries'));
    // The start goes on in the background past the wait; the surge id makes a second start (the sweep) harmless.
    await within(starting, SURGE_START_WAIT_MS);
  }
  return intent;
}

/**
 * An intent is stored before its fan-out starts; if Temporal was unreachable then, this starts it
 * later (the `surgeSweep` housekeeping flow, every 30 s). Only for an hour: merchants get fresh
 * demand, not a backlog of stale intents.
 */
export async function startMissedSurges(
  temporal: Pick<TemporalHandle, 'client' | 'taskQueue'>,
  db: Db,
  logger: Logger,
  opts: { olderThanS?: number; limit?: number } = {},
): Promise<number> {
  const missed = await db
    .selectFrom('intents')
    .select('intent_id')
    .where('surge_started_at', 'is', null)
    // Intents the gateway answers itself (recommend, commerce runtime) are not merchant demand.
    .where('answered_by', 'is', null)
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${opts.olderThanS ?? 10})`)
    .where('created_at', '>', sql<Date>`now() - interval '1 hour'`)
    .orderBy('created_at')
    .limit(opts.limit ?? 100)
    .execute();
  let started = 0;
  for (const { intent_id } of missed) {
    try {
      await startSurge(temporal, db, intent_id);
      started++;
    } catch (err) {
      logger.warn({ err, intent_id }, 'surge start failed; will retry');
      break; // Temporal is still away: try again on the next sweep.
    }
  }
  return started;
}
