import { workflowIds } from '../temporal/names';
import { FIRST_PAGE_HEAD, type DeliveryPolicy, type StartedRun, type SurgePageResult } from '../../workflows/dispatch.shared';
import {
  deadLetter,
  markInflight,
  recordAttempts,
  secretFor,
  sendAttempt,
  verdictOf,
  type AttemptDeps,
  type SettledAttempt,
} from './attempt';
import { openSurgePage, type PlannedDelivery, type SendableOpenDelivery } from './deliveries';

/**
 * First attempts in flight at once per batch. A send holds no database connection (the batch is
 * marked in flight before and recorded after, a statement per RECORD_BATCH), so the bound is the
 * merchants' hosts and this process's sockets, not the pool (`DB_POOL_MAX`).
 */
export const FIRST_ATTEMPT_CONCURRENCY = 128;

/** Settled attempts recorded per statement at most (recordAttempts; about 12 parameters each). */
export const RECORD_BATCH = 200;

/** Runs started at once (each a Temporal call). */
const START_CONCURRENCY = 100;

export interface BatchDeps {
  attempt: AttemptDeps;
  policy: DeliveryPolicy;
  /** Starts a delivery's run (src/dispatch/client.ts startDeliveryRun); a repeated start starts nothing. */
  startRun: (d: PlannedDelivery) => Promise<StartedRun>;
  /** Called after each delivery is settled for this batch (the activity heartbeats it). */
  progress: (done: number) => void;
  /**
   * Aborted when Temporal has given this batch to another attempt (its heartbeat timed out): no new
   * delivery is taken up, so two attempts of one batch do not send side by side for long.
   */
  signal: AbortSignal;
}

export interface SurgePageDeps extends BatchDeps {
  publicBaseUrl: string;
}

/** A delivery whose attempt `first_attempt` (of replay `replay`) is this batch's to send, as read with what sending takes. */
export type BatchDelivery = SendableOpenDelivery & { first_attempt: number; replay: number };

/** The run that takes a delivery over after the batch's attempt, from attempt `firstAttempt`. */
const runFor = (d: BatchDelivery, firstAttempt: number, from?: { scheduleIndex: number; waitMs: number }): PlannedDelivery => ({
  delivery_id: d.delivery_id,
  merchant_id: d.merchant_id,
  intent_id: d.intent_id,
  workflow_id: workflowIds.delivery(d.delivery_id, d.replay),
  first_attempt: firstAttempt,
  replay: d.replay,
  ...(from && { schedule_index: from.scheduleIndex, first_wait_ms: from.waitMs }),
});

/**
 * Sends one attempt per delivery from here (a fan-out page's first attempts, a replay batch's replay
 * attempts; at most FIRST_ATTEMPT_CONCURRENCY at once) and gives a delivery a run of its own only when
 * it needs one: a failed attempt (the run waits out the schedule and attempts again), or a dead letter
 * (the run ends Failed, where operators look). A delivered one costs Temporal nothing more.
 *
 * The statements are per batch, not per attempt: the deliveries still pending are marked in flight in
 * one statement before the sends (a fan-out page's are created in flight), and settled attempts are
 * recorded a group at a time (recordAttempts: whatever settled while the last group was being written,
 * so the sends never wait for the database). A run is started only once its delivery's attempt is
 * recorded, so it never races the record.
 *
 * The delivery rows are the durable record, so a batch is re-run safely after a worker crash: a
 * delivered delivery is not sent again; one cut off between its send and its group's record (in flight
 * at the batch's attempt) is sent again under the same webhook-id (at least once) and recorded once (the
 * attempt's row is keyed by delivery and attempt); one whose attempt is recorded gets its run (a run
 * started already is not started twice). Returns the deliveries it delivered and the runs it started.
 */
export async function sendBatchAttempts(
  deps: BatchDeps,
  deliveries: BatchDelivery[],
): Promise<{ delivered: string[]; runs: StartedRun[] }> {
  const { schedule } = deps.policy;
  const { db } = deps.attempt;
  const delivered: string[] = [];
  const runs: StartedRun[] = [];
  let done = 0;
  const settled = (n: number) => n > 0 && deps.progress((done += n));
  const startRuns = async (planned: PlannedDelivery[]) => {
    for (let i = 0; i < planned.length; i += START_CONCURRENCY) {
      runs.push(...(await Promise.all(planned.slice(i, i + START_CONCURRENCY).map((d) => deps.startRun(d)))));
      settled(Math.min(START_CONCURRENCY, planned.length - i));
    }
  };

  // What each delivery needs, as the batch finds it.
  const toSend: Array<{ d: BatchDelivery; secret: string }> = [];
  const toRun: PlannedDelivery[] = [];
  const parked: Array<{ d: BatchDelivery; reason: string }> = [];
  for (const d of deliveries) {
    const first = d.first_attempt;
    if (d.replays > d.replay) {
      // A later replay owns the delivery now: nothing of this batch's is left to send.
      settled(1);
    } else if ((d.state === 'pending' && d.attempts === first - 1) || (d.state === 'inflight' && d.attempts <= first)) {
      const open = secretFor(deps.attempt, d);
      if ('parked' in open) parked.push({ d, reason: open.parked });
      else toSend.push({ d, secret: open.secret });
    } else if (d.state === 'pending') {
      // The batch's attempt recorded as failed by a run of this batch cut off before it started the retry run.
      const waitMs = Math.max(0, (d.next_attempt_at?.getTime() ?? 0) - Date.now());
      toRun.push(runFor(d, d.attempts + 1, { scheduleIndex: d.attempts - first + 1, waitMs }));
    } else if (d.state === 'dlq') {
      toRun.push(runFor(d, Math.max(first, d.attempts)));
    } else {
      // (inflight past the batch's attempt: its run is sending it.)
      settled(1);
    }
  }
  // Parked unsent (merchant deactivated, secret unreadable): what stands in the way is not the merchant's answer.
  for (const { d, reason } of parked) {
    await deadLetter(db, d.delivery_id, reason, d.first_attempt);
    toRun.push(runFor(d, d.first_attempt));
  }
  const pending = toSend.filter(({ d }) => d.state === 'pending');
  const marked = await markInflight(
    db,
    pending.map(({ d }) => ({ deliveryId: d.delivery_id, attempt: d.first_attempt, replay: d.replay })),
  );
  // (One that moved since it was read is someone else's now.)
  const sending = toSend.filter(({ d }) => d.state === 'inflight' || marked.has(d.delivery_id));
  settled(toSend.length - sending.length);

  // Settled attempts wait here for their group's record; one group is written at a time.
  const ready: Array<{ d: BatchDelivery; s: SettledAttempt }> = [];
  let writing = null as Promise<void> | null;
  let failure = null as { error: unknown } | null;
  const writeGroups = async () => {
    try {
      while (ready.length && !failure) {
        const group = ready.splice(0, RECORD_BATCH);
        await recordAttempts(
          db,
          group.map((g) => g.s),
        );
        const retries: PlannedDelivery[] = [];
        for (const { d, s } of group) {
          if (s.verdict.state === 'delivered') delivered.push(d.delivery_id);
          else if (s.verdict.state === 'pending')
            retries.push(runFor(d, d.first_attempt + 1, { scheduleIndex: 1, waitMs: s.verdict.nextDelayMs ?? 0 }));
          else retries.push(runFor(d, d.first_attempt));
        }
        settled(group.length - retries.length);
        await startRuns(retries);
      }
    } catch (error) {
      failure ??= { error };
    } finally {
      writing = null;
    }
  };
  const write = () => {
    if (!writing && !failure) writing = writeGroups();
  };

  let next = 0;
  const lane = async () => {
    while (next < sending.length && !deps.signal.aborted && !failure) {
      const { d, secret } = sending[next++]!;
      try {
        const attemptedAt = new Date();
        const sent = await sendAttempt(deps.attempt, d, secret);
        // The batch's attempt's jitter is the batch's to draw: no workflow replays it.
        const verdict = verdictOf(sent, { schedule, scheduleIndex: 0, random: Math.random() });
        ready.push({ d, s: { deliveryId: d.delivery_id, attempt: d.first_attempt, replay: d.replay, sent, attemptedAt, verdict } });
        write();
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FIRST_ATTEMPT_CONCURRENCY, sending.length) }, lane));
  // What was sent is recorded before the batch ends, cut short or not (an unrecorded send is sent again).
  while (writing || (ready.length && !failure)) {
    write();
    await writing;
  }
  if (failure) throw failure.error;
  deps.signal.throwIfAborted();
  await startRuns(toRun);
  return { delivered, runs };
}

/**
 * One page of an Intent.Surge fan-out, sent (docs/DISPATCH.md): records the page's deliveries and
 * sends each one's first attempt (sendBatchAttempts). The fan-out's first page is recorded in two
 * parts, its head (FIRST_PAGE_HEAD merchants) and the rest, the rest recorded while the head is being
 * sent; the page's merchants and where the next page starts are the same as in one part.
 */
export async function deliverSurgePage(
  deps: SurgePageDeps,
  opts: { intentId: string; after: string | null; limit: number },
): Promise<SurgePageResult> {
  const open = (after: string | null, limit: number) =>
    openSurgePage(deps.attempt.db, { ...opts, after, limit, publicBaseUrl: deps.publicBaseUrl });
  const send = (page: Awaited<ReturnType<typeof open>>, batchDeps: BatchDeps) =>
    sendBatchAttempts(
      batchDeps,
      page.deliveries.map((d) => ({ ...d, first_attempt: 1, replay: 0 })),
    );
  const result = (parts: Array<{ page: { size: number }; sent: { delivered: string[]; runs: StartedRun[] } }>, next: string | null) => ({
    deliveries: parts.reduce((n, p) => n + p.page.size, 0),
    delivered: parts.reduce((n, p) => n + p.sent.delivered.length, 0),
    runs: parts.reduce((n, p) => n + p.sent.runs.length, 0),
    next,
  });
  if (opts.after !== null || opts.limit <= FIRST_PAGE_HEAD) {
    const page = await open(opts.after, opts.limit);
    return result([{ page, sent: await send(page, deps) }], page.next);
  }
  // The two parts' progress, told as one.
  const done = [0, 0];
  const part = (i: number): BatchDeps => ({ ...deps, progress: (n) => deps.progress((done[i] = n) + done[1 - i]!) });
  const head = await open(null, FIRST_PAGE_HEAD);
  const sendingHead = send(head, part(0));
  // (Settled either way, so a failure of the rest does not leave the head's rejection unobserved.)
  const headSettled = sendingHead.then(
    () => undefined,
    () => undefined,
  );
  try {
    // One turn of the event loop for the head's requests to be connected and written before the rest's
    // statements and payloads take this thread.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const rest = head.next === null ? null : await open(head.next, opts.limit - FIRST_PAGE_HEAD);
    const restSent = rest ? await send(rest, part(1)) : null;
    const headSent = await sendingHead;
    return result([{ page: head, sent: headSent }, ...(rest && restSent ? [{ page: rest, sent: restSent }] : [])], rest ? rest.next : null);
  } finally {
    await headSettled;
  }
}
