import proto from '@temporalio/proto';
import { AppError } from '../errors';
import { within } from '../time';
import type { TemporalHandle } from './client';

// Default import: Node's ESM loader cannot see this CommonJS package's named exports.
const { TaskQueueType, TaskQueueKind } = proto.temporal.api.enums.v1;

/**
 * A worker long-polls its task queue; the server records when each poll started and a poll lasts up
 * to a minute, so a live but idle worker may have been seen up to ~60 s ago. A queue with no poll
 * started within this window has no worker.
 */
export const WORKER_SEEN_WITHIN_MS = 75_000;
/** One answer that a worker polls serves the next second or so (healthz, waits): no Describe call per request. */
const CACHE_MS = 1000;

export interface WorkerPresence {
  /** Workflow-task pollers seen within WORKER_SEEN_WITHIN_MS. */
  workflowPollers: number;
  /** Activity-task pollers seen within the same window. */
  activityPollers: number;
}

const cache = new WeakMap<TemporalHandle, { at: number; value: Promise<WorkerPresence | null> }>();

async function describe(t: TemporalHandle, type: number, timeoutMs: number): Promise<number> {
  const res = await t.connection.withDeadline(Date.now() + timeoutMs, () =>
    t.connection.workflowService.describeTaskQueue({
      namespace: t.namespace,
      taskQueue: { name: t.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: type,
    }),
  );
  const now = Date.now();
  return (res.pollers ?? []).filter((p) => {
    const s = p.lastAccessTime?.seconds;
    const at = s === undefined || s === null ? 0 : Number(s) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6);
    return now - at < WORKER_SEEN_WITHIN_MS;
  }).length;
}

/**
 * Who polls the deployment's task queue (DescribeTaskQueue), or null when Temporal does not answer
 * within `timeoutMs`. Cached for a second per connection.
 */
export function workerPresence(t: TemporalHandle, timeoutMs = 1500): Promise<WorkerPresence | null> {
  const hit = cache.get(t);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
  const value = (async () => {
    try {
      const deadline = new Promise<null>((r) => setTimeout(() => r(null), timeoutMs).unref());
      const both = Promise.all([
        describe(t, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, timeoutMs),
        describe(t, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, timeoutMs),
      ]).then(([workflowPollers, activityPollers]) => ({ workflowPollers, activityPollers }));
      return await Promise.race([both, deadline]);
    } catch {
      return null;
    }
  })();
  cache.set(t, { at: Date.now(), value });
  // Only a worker seen is worth keeping: a worker that has just started must be found by the next call.
  void value.then((p) => {
    if (!p || p.workflowPollers === 0) cache.delete(t);
  });
  return value;
}

/** True when something polls the queue; false when nothing does or Temporal does not say. */
export async function workerPolls(t: TemporalHandle): Promise<boolean> {
  const p = await workerPresence(t);
  return Boolean(p && p.workflowPollers > 0);
}

/** 503 `no_worker`: the flow is accepted by Temporal but no worker polls its task queue. */
export const noWorker = (flow: string) =>
  new AppError(503, 'no_worker', `${flow} is waiting for a worker: none polls the task queue right now. Retry later.`, undefined, {
    'Retry-After': '15',
  });

export type Waited<T> = { done: true; value: T } | { done: false; noWorker: boolean };

/**
 * Every API wait on a workflow goes through here: `work` (a result, an Update) is awaited at most
 * `deadlineMs` (the `Prefer: wait` rules); past it the caller learns whether a worker polls at all,
 * so the route answers 202 with a status URL, or 503 `no_worker` with Retry-After. A failure of
 * `work` within the deadline rejects as usual. `work` keeps running past the deadline; its
 * rejection is observed here so it never goes unhandled.
 *
 * `failFast`: when no worker polls, stop waiting at once rather than at the deadline.
 */
export async function waitOnWorkflow<T>(
  t: TemporalHandle,
  work: Promise<T>,
  deadlineMs: number,
  opts: { failFast?: boolean } = {},
): Promise<Waited<T>> {
  work.catch(() => undefined);
  const settled = work.then((value) => ({ done: true as const, value }));
  const race: Array<Promise<Waited<T> | undefined>> = [within(settled, deadlineMs)];
  // Fail fast only on Temporal's word that nothing polls: a server that does not say (or cannot, as
  // the time-skipping test server) leaves the caller to the deadline.
  const knownIdle = (p: WorkerPresence | null) => p !== null && p.workflowPollers === 0;
  if (opts.failFast)
    race.push(workerPresence(t).then((p) => (knownIdle(p) ? { done: false as const, noWorker: true } : new Promise<never>(() => {}))));
  const out = await Promise.race(race);
  if (out) return out;
  return { done: false, noWorker: !(await workerPolls(t)) };
}

/**
 * waitOnWorkflow for a call that needs the flow's answer to go on (a checkout's plan, its confirm):
 * the value within the deadline, else `{done: false}` (the route answers 202 with the status URL).
 * When no worker polls the task queue it does not hold the caller to the deadline: 503 `no_worker`
 * with Retry-After at once (what is asked stays with Temporal and proceeds once a worker polls).
 */
export async function waitForAnswer<T>(
  t: TemporalHandle,
  work: Promise<T>,
  deadlineMs: number,
  flow: string,
): Promise<{ done: true; value: T } | { done: false }> {
  const waited = await waitOnWorkflow(t, work, deadlineMs, { failFast: true });
  if (waited.done) return waited;
  if (waited.noWorker) throw noWorker(flow);
  return { done: false };
}
