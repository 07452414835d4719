import * as wf from '@temporalio/workflow';
import { searchAttributes as SA } from '../src/temporal/names';
import { claimDeadLetters, startDeliveryRuns } from './dispatch-bookkeeping';

/** Deliveries claimed per batch, and the most one replay request moves (the rest waits for the next). */
export const REPLAY_BATCH = 200;
export const REPLAY_MAX = 2000;

export interface ReplayInput {
  /** One delivery, or every dead-lettered one (up to REPLAY_MAX) when absent. */
  deliveryId: string | null;
}

export interface ReplayResult {
  scheduled: number;
  replays: Array<{ delivery_id: string; workflow_id: string; run_id: string | null }>;
}

/**
 * Dead-letter replay: claim dead-lettered deliveries in batches (claiming moves them back to pending
 * in the same statement, so nothing is claimed twice) and start a new delivery run for each.
 */
export async function dlqReplay(input: ReplayInput): Promise<ReplayResult> {
  wf.upsertSearchAttributes([{ key: SA.FlowStage, value: 'dlq-replay' }]);
  const replays: ReplayResult['replays'] = [];
  while (replays.length < REPLAY_MAX) {
    const batch = await claimDeadLetters(input.deliveryId, Math.min(REPLAY_BATCH, REPLAY_MAX - replays.length));
    replays.push(...(await startDeliveryRuns(batch.deliveries, batch.policy)));
    wf.setCurrentDetails(`${replays.length} deliveries replayed`);
    if (input.deliveryId || batch.deliveries.length < REPLAY_BATCH) break;
  }
  return { scheduled: replays.length, replays };
}
