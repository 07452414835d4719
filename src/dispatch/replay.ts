import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Db } from '../db/connect';
import { AppError, temporalUnavailable } from '../errors';
import { within } from '../time';
import { newId } from '../ids';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA, workflowIds } from '../temporal/names';
import { REPLAY_MAX, type dlqReplay, type ReplayResult } from '../../workflows/dlq-replay';
import { getDelivery } from './deliveries';

export interface ReplayOutcome extends ReplayResult {
  status: 'scheduled' | 'scheduling';
  replay_workflow_id: string;
  remaining: number;
  /** The answer in words: what was replayed, what is still dead-lettered, what to do next. */
  summary: string;
}

/**
 * Replays one dead-lettered delivery or all of them through the dlqReplay workflow and waits (bounded)
 * for it to report the runs it started. Replaying one delivery twice at once is one replay: its
 * workflow id names the delivery and its next replay number.
 */
export async function replayDeadLetters(temporal: TemporalHandle | null, db: Db, opts: { deliveryId?: string; waitMs: number }): Promise<ReplayOutcome> {
  if (!temporal) throw temporalUnavailable('Dead-letter replay');
  let workflowId = workflowIds.dlqReplay(newId('all'));
  if (opts.deliveryId) {
    const d = await getDelivery(db, opts.deliveryId);
    if (d.state !== 'dlq') {
      throw new AppError(409, 'delivery_not_in_dlq', `Delivery ${d.delivery_id} is ${d.state}; only dead-lettered deliveries are replayed.`, { state: d.state });
    }
    workflowId = workflowIds.dlqReplay(`${d.delivery_id}-${d.replays + 1}`);
  }
  let handle;
  try {
    handle = await temporal.client.workflow.start<typeof dlqReplay>('dlqReplay', {
      workflowId,
      taskQueue: temporal.taskQueue,
      args: [{ deliveryId: opts.deliveryId ?? null }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: SA.FlowStage, value: 'dlq-replay' }],
      staticSummary: opts.deliveryId ? `Replay ${opts.deliveryId} from the dead-letter queue` : 'Replay the dead-letter queue',
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) handle = temporal.client.workflow.getHandle(workflowId);
    else throw err;
  }
  const result = await within(handle.result() as Promise<ReplayResult>, opts.waitMs);
  const remaining = await countDeadLetters(db);
  return result
    ? { ...result, status: 'scheduled', replay_workflow_id: workflowId, remaining, summary: replaySummary(result.scheduled, remaining, opts.deliveryId) }
    : { scheduled: 0, replays: [], status: 'scheduling', replay_workflow_id: workflowId, remaining, summary: replaySummary(null, remaining, opts.deliveryId) };
}

const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

/**
 * `remaining` alone ("state":"dlq","remaining":13) read as if 13 replays had failed; it counts the
 * deliveries still dead-lettered after this call (past the per-call cap, or dead-lettered meanwhile).
 */
export function replaySummary(scheduled: number | null, remaining: number, deliveryId?: string): string {
  const started =
    scheduled === null
      ? 'Replays are still being started; follow replay_workflow_id.'
      : `Replayed ${deliveries(scheduled)} from the dead-letter queue: each is pending again and retried on the normal schedule.`;
  const left =
    remaining === 0
      ? 'No delivery is dead-lettered now.'
      : `${deliveries(remaining)} ${remaining === 1 ? 'is' : 'are'} still dead-lettered (remaining)${deliveryId ? '' : `; call again with {} to replay them (at most ${REPLAY_MAX.toLocaleString('en-US')} per call)`}.`;
  return `${started} ${left}`;
}


async function countDeadLetters(db: Db): Promise<number> {
  const row = await db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', 'dlq').executeTakeFirstOrThrow();
  return Number(row.n);
}
