import { REPLAY_MAX, type StartedRun } from '../../workflows/dispatch.shared';
import { claimedDeliveries, type PlannedDelivery } from './deliveries';
import { sendBatchAttempts, type BatchDelivery, type BatchDeps } from './surge-page';

/** How a dead-letter replay is told to the caller (src/dispatch/client.ts starts it). */
const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

/**
 * `remaining` alone ("state":"dlq","remaining":13) read as if 13 replays had failed; it counts the
 * deliveries still dead-lettered after this call (past the per-call cap, or dead-lettered meanwhile).
 */
export function replaySummary(scheduled: number | null, remaining: number, deliveryId?: string): string {
  const started =
    scheduled === null
      ? 'Replays are still being sent; follow replay_workflow_id.'
      : `Replayed ${deliveries(scheduled)} from the dead-letter queue: each was sent again, and one that did not deliver retries on the normal schedule in its own run (see replays).`;
  const left =
    remaining === 0
      ? 'No delivery is dead-lettered now.'
      : `${deliveries(remaining)} ${remaining === 1 ? 'is' : 'are'} still dead-lettered (remaining)${deliveryId ? '' : `; call again with {} to replay them (at most ${REPLAY_MAX.toLocaleString('en-US')} per call)`}.`;
  return `${started} ${left}`;
}

/**
 * One batch of a dead-letter replay, sent (docs/DISPATCH.md): each claimed delivery's replay attempt
 * goes out from here (src/dispatch/surge-page.ts sendBatchAttempts), and only one that does not
 * deliver gets its run `delivery-<id>-replay-<n>` (a retry on the schedule, or Failed once
 * dead-lettered again). A replay delivered here is told as sent by `replayRun`, the dlqReplay
 * workflow. The claim is the record: a re-run batch reads the claimed rows and sends nothing twice.
 */
export async function sendReplays(deps: BatchDeps, claimed: PlannedDelivery[], replayRun: Omit<StartedRun, 'delivery_id'>) {
  const ids = claimed.map((d) => d.delivery_id);
  const rows = new Map((await claimedDeliveries(deps.attempt.db, ids)).map((r) => [r.delivery_id, r]));
  const told = new Map<string, StartedRun>();
  const owned: PlannedDelivery[] = [];
  const toSend: BatchDelivery[] = [];
  for (const c of claimed) {
    const row = rows.get(c.delivery_id);
    // Replayed again since (a later replay owns it), or gone: nothing of this replay's is left to send.
    if (!row || row.replays !== c.replay) continue;
    owned.push(c);
    if (row.state !== 'delivered') toSend.push({ ...row, first_attempt: c.first_attempt, replay: c.replay });
    // Delivered by an earlier run of this batch, or by the run it started (past the replay's attempt).
    else if (row.attempts > c.first_attempt)
      told.set(c.delivery_id, { delivery_id: c.delivery_id, workflow_id: c.workflow_id, run_id: null });
    else told.set(c.delivery_id, { ...replayRun, delivery_id: c.delivery_id });
  }
  const sent = await sendBatchAttempts(deps, toSend);
  for (const id of sent.delivered) told.set(id, { ...replayRun, delivery_id: id });
  for (const run of sent.runs) told.set(run.delivery_id, run);
  // (In flight past the replay's attempt: the run it started before is sending it.)
  return owned.map((c) => told.get(c.delivery_id) ?? { delivery_id: c.delivery_id, workflow_id: c.workflow_id, run_id: null });
}
