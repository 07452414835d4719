import { REPLAY_MAX, type ReplayedDelivery, type StartedRun } from '../../workflows/dispatch.shared';
import { iso } from '../time';
import {
  claimedDeliveries,
  deliveryOwners,
  deliveryWorkflowId,
  type AttemptRow,
  type DeliveryRow,
  type PlannedDelivery,
} from './deliveries';
import { sendBatchAttempts, type BatchDelivery, type BatchDeps } from './surge-page';

/**
 * One batch of a dead-letter replay, sent (docs/DISPATCH.md): each claimed delivery's replay attempt
 * goes out from here (src/dispatch/surge-page.ts sendBatchAttempts), and only one that does not
 * deliver gets its run `delivery-<id>-replay-<n>` (a retry on the schedule, or Failed once
 * dead-lettered again). The claim is the record: a re-run batch reads the claimed rows and sends
 * nothing twice. Each replay is told as its row says once the batch is done: the workflow the queue
 * names for it (`replayRun`, the dlqReplay run, for one its own attempt delivered) and its state.
 */
export async function sendReplays(
  deps: BatchDeps,
  claimed: PlannedDelivery[],
  replayRun: Omit<StartedRun, 'delivery_id'>,
): Promise<ReplayedDelivery[]> {
  const ids = claimed.map((d) => d.delivery_id);
  const rows = new Map((await claimedDeliveries(deps.attempt.db, ids)).map((r) => [r.delivery_id, r]));
  const owned: PlannedDelivery[] = [];
  const toSend: BatchDelivery[] = [];
  for (const c of claimed) {
    const row = rows.get(c.delivery_id);
    // Replayed again since (a later replay owns it), or gone: nothing of this replay's is left to send.
    if (!row || row.replays !== c.replay) continue;
    owned.push(c);
    // (Delivered by an earlier run of this batch, or by the run it started: not sent again.)
    if (row.state !== 'delivered') toSend.push({ ...row, first_attempt: c.first_attempt, replay: c.replay });
  }
  const sent = await sendBatchAttempts(deps, toSend);
  const started = new Map(sent.runs.map((r) => [r.workflow_id, r.run_id]));
  const now = new Map(
    (
      await deliveryOwners(
        deps.attempt.db,
        owned.map((c) => c.delivery_id),
      )
    ).map((r) => [r.delivery_id, r]),
  );
  return owned.flatMap((c) => {
    const row = now.get(c.delivery_id);
    if (!row || row.replays !== c.replay) return [];
    const workflowId = deliveryWorkflowId(row);
    const byReplayWorkflow = workflowId === replayRun.workflow_id;
    // A run this batch did not start (an earlier run of the batch did) is told without its run id.
    const runId = byReplayWorkflow ? replayRun.run_id : (started.get(workflowId) ?? null);
    return [{ delivery_id: c.delivery_id, workflow_id: workflowId, run_id: runId, state: row.state, by_replay_workflow: byReplayWorkflow }];
  });
}

/** How one replay stands when the retry call answers (docs/DISPATCH.md, "Dead-letter replay"). */
export type ReplayOutcomeKind = 'delivered' | 'retrying' | 'dead_lettered' | 'sending';

export interface ReplayView {
  delivery_id: string;
  merchant_id: string;
  outcome: ReplayOutcomeKind;
  state: DeliveryRow['state'];
  attempts: number;
  /** Why it did not deliver (the last attempt's error, or the dead-letter reason); null otherwise. */
  reason: string | null;
  status_code: number | null;
  next_attempt_at: string | null;
  workflow_id: string;
  run_id: string | null;
}

/**
 * A replay as its delivery row says now: delivered; failed again and waiting for its run's next attempt
 * (`retrying`) or dead-lettered again; or still being sent (its outcome not known yet: follow
 * `workflow_id`). The workflow is the one the queue names (deliveryWorkflowId).
 */
export function replayView(told: StartedRun, d: DeliveryRow, last: AttemptRow | null): ReplayView {
  const workflowId = deliveryWorkflowId(d);
  const lastOfReplay = last && last.replay === d.replays ? last : null;
  const outcome: ReplayOutcomeKind =
    d.state === 'delivered'
      ? 'delivered'
      : d.state === 'dlq'
        ? 'dead_lettered'
        : d.state === 'pending' && d.next_attempt_at !== null && lastOfReplay
          ? 'retrying'
          : 'sending';
  const reason = outcome === 'dead_lettered' ? d.dlq_reason : outcome === 'retrying' ? (lastOfReplay?.error ?? null) : null;
  return {
    delivery_id: d.delivery_id,
    merchant_id: d.merchant_id,
    outcome,
    state: d.state,
    attempts: d.attempts,
    reason,
    status_code: outcome === 'sending' ? null : (lastOfReplay?.status_code ?? null),
    next_attempt_at: outcome === 'retrying' ? iso(d.next_attempt_at) : null,
    workflow_id: workflowId,
    run_id: workflowId === told.workflow_id ? told.run_id : null,
  };
}

const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

/**
 * The retry answer in words (src/dispatch/client.ts replayDeadLetters). `remaining` alone
 * ("state":"dlq","remaining":13) read as if 13 replays had failed; it counts the deliveries still
 * dead-lettered after this call (past the per-call cap, or dead-lettered meanwhile), within the
 * call's merchant when it named one.
 */
export function replaySummary(
  replays: ReplayView[] | null,
  remaining: number,
  scope: { deliveryId?: string; merchantId?: string; workflowId: string },
): string {
  const of = scope.merchantId ? ` of merchant ${scope.merchantId}` : '';
  let done: string;
  if (replays === null) {
    done = `Replays are still being sent by ${scope.workflowId}: its result (Temporal UI) lists each one with its outcome, and GET /v1/merchant/dispatch-queue${scope.merchantId ? `?merchant_id=${encodeURIComponent(scope.merchantId)}` : ''} shows each delivery's state.`;
  } else if (!replays.length) {
    done = `Nothing was replayed${of}: the dead letters were claimed by another replay meanwhile.`;
  } else {
    const n = (k: ReplayOutcomeKind) => replays.filter((r) => r.outcome === k).length;
    const parts = [
      n('delivered') && `${n('delivered')} delivered`,
      n('retrying') &&
        `${n('retrying')} failed again and ${n('retrying') === 1 ? 'retries' : 'retry'} on the schedule in ${n('retrying') === 1 ? 'its' : 'their'} own run`,
      n('dead_lettered') && `${n('dead_lettered')} dead-lettered again`,
      n('sending') && `${n('sending')} still being sent (no outcome yet: follow ${n('sending') === 1 ? 'its' : 'each'} workflow_id)`,
    ].filter(Boolean);
    done = `Replayed ${deliveries(replays.length)}${of} from the dead-letter queue: ${parts.join(', ')} (see replays for each one's outcome and workflow).`;
  }
  const left =
    remaining === 0
      ? `No delivery${of} is dead-lettered now.`
      : `${deliveries(remaining)}${of} ${remaining === 1 ? 'is' : 'are'} still dead-lettered (remaining)${scope.deliveryId ? '' : `; call again to replay them (at most ${REPLAY_MAX.toLocaleString('en-US')} per call)`}.`;
  return `${done} ${left}`;
}

/** The answer when the filter matches no dead letter: nothing was started. */
export function nothingToReplaySummary(merchantId: string | undefined, merchantKnown: boolean): string {
  if (merchantId && !merchantKnown) return `No merchant ${merchantId} is registered: nothing was replayed and no workflow was started.`;
  return `No delivery${merchantId ? ` of merchant ${merchantId}` : ''} is dead-lettered: nothing was replayed and no workflow was started.`;
}
