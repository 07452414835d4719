import { sql } from 'kysely';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Db } from '../db/connect';
import { AppError, temporalUnavailable } from '../errors';
import { newId } from '../ids';
import type { Logger } from '../logger';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA, workflowIds } from '../temporal/names';
import type {
  DeliveryPolicy,
  DeliveryWorkflow,
  DlqReplayWorkflow,
  IntentSurgeWorkflow,
  ReplayResult,
  StartedRun,
} from '../../workflows/dispatch.shared';
import { createIntent, type IntentRow } from '../matching/intents';
import { within } from '../time';
import { waitOnWorkflow } from '../temporal/wait';
import { countDeadLetters, deliveriesWithLastAttempt, getDelivery, type PlannedDelivery } from './deliveries';
import { findMerchant } from '../registry/merchants';
import { nothingToReplaySummary, replaySummary, replayView, type ReplayView } from './replay';

/**
 * The dispatch flow's client (docs/ARCHITECTURE.md): starts the fan-out of an intent (`intentSurge`),
 * each merchant's delivery run (`delivery`, from the fan-out's activity) and dead-letter replays
 * (`dlqReplay`). Workflows are started by type name with the types of workflows/dispatch.shared.ts.
 */

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
export async function startSurge(
  temporal: Pick<TemporalHandle, 'client' | 'taskQueue'> & { eagerStart?: boolean },
  db: Db,
  intentId: string,
): Promise<void> {
  try {
    await temporal.client.workflow.start<IntentSurgeWorkflow>('intentSurge', {
      workflowId: workflowIds.surge(intentId),
      taskQueue: temporal.taskQueue,
      requestEagerStart: temporal.eagerStart,
      args: [{ intentId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // The first page's head runs as a local activity inside the first workflow task: a worker killed
      // there is noticed when the task times out, so this is said here rather than left to the default
      // (the same 10 s as the page activity's heartbeat timeout).
      workflowTaskTimeout: '10 seconds',
      typedSearchAttributes: [
        { key: SA.IntentId, value: intentId },
        { key: SA.FlowStage, value: 'fan-out' },
      ],
      staticSummary: `Intent.Surge fan-out for ${intentId}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await db
    .updateTable('intents')
    .set({ surge_started_at: sql`now()` })
    .where('intent_id', '=', intentId)
    .where('surge_started_at', 'is', null)
    .execute();
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

/**
 * Starts one delivery run as a top-level workflow (from the fan-out's or the replay's activity, with the worker's own
 * client): independent starts go through the server in parallel, where child-workflow starts would
 * queue on the parent's history. Eager start hands the run's first task straight to this worker.
 * Repeating it starts nothing twice (workflow ids are the delivery's; duplicates rejected).
 */
export async function startDeliveryRun(client: Client, taskQueue: string, d: PlannedDelivery, policy: DeliveryPolicy): Promise<StartedRun> {
  try {
    const handle = await client.workflow.start<DeliveryWorkflow>('delivery', {
      requestEagerStart: true,
      workflowId: d.workflow_id,
      taskQueue,
      args: [
        {
          deliveryId: d.delivery_id,
          intentId: d.intent_id,
          merchantId: d.merchant_id,
          firstAttempt: d.first_attempt,
          replay: d.replay,
          policy,
          ...(d.schedule_index !== undefined && { scheduleIndex: d.schedule_index, firstWaitMs: d.first_wait_ms ?? 0 }),
        },
      ],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SA.IntentId, value: d.intent_id },
        { key: SA.MerchantId, value: d.merchant_id },
        { key: SA.DeliveryState, value: 'pending' },
      ],
      staticSummary: `Intent.Surge ${d.intent_id} → ${d.merchant_id}${d.replay ? ` (replay ${d.replay})` : ''}`,
      // Business keys on the run (UI Memo, `temporal workflow describe`).
      memo: { delivery_id: d.delivery_id, intent_id: d.intent_id, merchant_id: d.merchant_id, replay: d.replay },
    });
    return { delivery_id: d.delivery_id, workflow_id: d.workflow_id, run_id: handle.firstExecutionRunId };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      return { delivery_id: d.delivery_id, workflow_id: d.workflow_id, run_id: null };
    throw err;
  }
}

export interface ReplayOutcome {
  /** scheduled: the replay workflow is done sending; scheduling: still sending; nothing_to_replay: no workflow was started. */
  status: 'scheduled' | 'scheduling' | 'nothing_to_replay';
  scheduled: number;
  /** The dlqReplay workflow started (or joined) by this call; null when the filter matched no dead letter. */
  replay_workflow_id: string | null;
  merchant_id: string | null;
  remaining: number;
  /** The answer in words: what was replayed and how each went, what is still dead-lettered, what to do next. */
  summary: string;
  replays: ReplayView[];
}

/**
 * Replays one dead-lettered delivery, one merchant's or all of them through the dlqReplay workflow and
 * waits (bounded) for it to send them, then tells each replay as its delivery row says (replayView).
 * A filter that matches no dead letter starts nothing. Replaying one delivery twice at once is one
 * replay: its workflow id names the delivery and its next replay number.
 */
export async function replayDeadLetters(
  temporal: TemporalHandle | null,
  db: Db,
  opts: { deliveryId?: string; merchantId?: string; waitMs: number },
): Promise<ReplayOutcome> {
  if (!temporal) throw temporalUnavailable('Dead-letter replay');
  const { deliveryId, merchantId } = opts;
  const answer = (
    status: ReplayOutcome['status'],
    workflowId: string | null,
    replays: ReplayView[],
    remaining: number,
    summary: string,
  ) => ({
    status,
    scheduled: replays.length,
    replay_workflow_id: workflowId,
    merchant_id: merchantId ?? null,
    remaining,
    summary,
    replays,
  });
  let workflowId: string;
  // The business keys known at the start, for operators' filters (MerchantId = "…").
  const known: SearchAttributePair[] = [];
  if (deliveryId) {
    const d = await getDelivery(db, deliveryId);
    // Another merchant's delivery is not among this merchant's: as an unknown id.
    if (merchantId !== undefined && d.merchant_id !== merchantId)
      throw new AppError(404, 'delivery_not_found', `No delivery '${deliveryId}' of merchant ${merchantId}.`);
    if (d.state !== 'dlq') {
      throw new AppError(
        409,
        'delivery_not_in_dlq',
        `Delivery ${d.delivery_id} is ${d.state}; only dead-lettered deliveries are replayed.`,
        { state: d.state },
      );
    }
    workflowId = workflowIds.dlqReplay(`${d.delivery_id}-${d.replays + 1}`);
    known.push({ key: SA.MerchantId, value: d.merchant_id }, { key: SA.IntentId, value: d.intent_id });
  } else {
    if (!(await countDeadLetters(db, { merchantId }))) {
      const merchantKnown = merchantId === undefined || (await findMerchant(db, merchantId)) !== undefined;
      return answer('nothing_to_replay', null, [], 0, nothingToReplaySummary(merchantId, merchantKnown));
    }
    workflowId = workflowIds.dlqReplay(newId(merchantId === undefined ? 'all' : 'merchant'));
    if (merchantId !== undefined) known.push({ key: SA.MerchantId, value: merchantId });
  }
  let handle;
  try {
    handle = await temporal.client.workflow.start<DlqReplayWorkflow>('dlqReplay', {
      workflowId,
      taskQueue: temporal.taskQueue,
      args: [{ deliveryId: deliveryId ?? null, merchantId: merchantId ?? null }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: SA.FlowStage, value: 'dlq-replay' }, ...known],
      staticSummary: deliveryId
        ? `Replay ${deliveryId} from the dead-letter queue`
        : `Replay the dead-letter queue${merchantId === undefined ? '' : ` of merchant ${merchantId}`}`,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) handle = temporal.client.workflow.getHandle(workflowId);
    else throw err;
  }
  const waited = await waitOnWorkflow(temporal, handle.result() as Promise<ReplayResult>, opts.waitMs);
  const scope = { deliveryId, merchantId, workflowId };
  if (!waited.done) {
    const remaining = await countDeadLetters(db, { merchantId });
    return answer('scheduling', workflowId, [], remaining, replaySummary(null, remaining, scope));
  }
  const told = new Map(waited.value.replays.map((r) => [r.delivery_id, r]));
  const [rows, remaining] = await Promise.all([deliveriesWithLastAttempt(db, [...told.keys()]), countDeadLetters(db, { merchantId })]);
  const byId = new Map(rows.map((r) => [r.delivery.delivery_id, r]));
  // In the workflow's order (the order of the claims).
  const replays = [...told.values()].flatMap((t) => {
    const row = byId.get(t.delivery_id);
    return row ? [replayView(t, row.delivery, row.last)] : [];
  });
  return answer('scheduled', workflowId, replays, remaining, replaySummary(replays, remaining, scope));
}
