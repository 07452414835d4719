import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { createDb, type Db } from '../../src/db/connect';
import { freePort } from '../../src/net';
import { onboard, type Onboarded } from '../helpers/console';
import { call, type HttpResult } from '../helpers/http';
import { stockedProduct } from '../helpers/catalog';
import { startApiProcess, type ApiProcess } from '../helpers/api-process';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { sql } from 'kysely';
import { startTestApi, type TestApi } from '../helpers/stack';
import { systemChoresWorkflowId } from '../../src/housekeeping/chores';
import { workflowIds } from '../../src/temporal/names';
import { SYSTEM_CHORES_WORKFLOW } from '../../workflows/housekeeping.shared';
import { apiEnv, proposingMerchant, deploymentEnv, eventually, letters, sleep, tryCall, stopHousekeeping } from './deployment';

/**
 * Two API and two worker processes of one deployment (one task queue) against one Temporal and one
 * Postgres. Load goes through both APIs as a careful client sends it: every write with an
 * Idempotency-Key, a refused or cut connection retried on the other replica, a 429/503 retried after
 * its Retry-After. Mid-load one API and one worker get SIGTERM. Then:
 *   - every operation succeeded, and no answer was one such a client would not retry (no 4xx or 5xx
 *     without Retry-After);
 *   - both stopped processes drained and exited 0 (no SIGKILL needed);
 *   - a tight rate limit held across both APIs: the deployment allowed the limit, not twice it;
 *   - housekeeping is per deployment: one system-chores loop across the replicas, and its sweep ran.
 */
const LOGIN_LIMIT = 6;
let db: Db;
let dev: Onboarded;
let apis: ApiProcess[] = [];
let workers: WorkerProcess[] = [];
let connection: Connection;
let temporal: Client;
let taskQueue: string;

beforeAll(async () => {
  taskQueue = `replicas-${letters()}`;
  const ports = [await freePort(), await freePort()];
  const shared = deploymentEnv({
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    url: `http://127.0.0.1:${ports[0]}`,
    taskQueue,
  });
  const extra = { LOGIN_RATE_LIMIT_PER_IP: String(LOGIN_LIMIT), REGISTER_RATE_LIMIT_PER_IP: '1000', SHUTDOWN_GRACE_MS: '20000' };
  apis = ports.map((p) => startApiProcess(p, apiEnv(shared, extra)));
  const asApi = { url: apis[0]!.url, config: { TEMPORAL_TASK_QUEUE: taskQueue } } as TestApi;
  workers = [
    startWorkerProcess(asApi, { ...shared, SHUTDOWN_GRACE_MS: '20000' }),
    startWorkerProcess(asApi, { ...shared, SHUTDOWN_GRACE_MS: '20000' }),
  ];
  await Promise.all([...apis.map((a) => a.ready), ...workers.map((w) => w.ready)]);
  db = createDb(inject('databaseUrl'), { max: 4 });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  temporal = new Client({ connection });
  dev = await onboard(apis[1]!.url);
}, 120_000);

afterAll(async () => {
  for (const w of workers) await w.stop(30_000);
  for (const a of apis) await a.stop(30_000);
  await stopHousekeeping(temporal, taskQueue);
  await connection?.close();
  await db?.destroy();
});

type Outcome = HttpResult & { ms: number };
/** Every answer a client saw, with the replica that gave it (for the "would a client retry it" check). */
const seen: Array<{ op: string; api: number; status: number; retryAfter: string | null }> = [];

/**
 * One logical operation as a careful client runs it: start at replica `first`, on a refused or cut
 * connection go to the other one (a write carries its Idempotency-Key, so the retry is the same
 * request), on an answer with Retry-After (429, 503, 409 in flight) wait that long. Bounded: 8 tries.
 */
async function careful(op: string, first: number, send: (base: string) => Promise<Outcome>): Promise<Outcome> {
  let at = first;
  for (let attempt = 0; attempt < 8; attempt++) {
    const res = await send(apis[at]!.url);
    seen.push({ op, api: at, status: res.status, retryAfter: res.headers.get('retry-after') });
    if (res.status === 0) {
      at = 1 - at;
      continue;
    }
    if (res.status >= 400 && res.headers.get('retry-after')) {
      await sleep(Math.min(5, Number(res.headers.get('retry-after'))) * 1000);
      continue;
    }
    return res;
  }
  throw new Error(`${op}: no answer after 8 tries`);
}

describe('two API and two worker replicas', () => {
  it(
    'serve load through both APIs while one of each is stopped; limits and housekeeping are per deployment',
    { timeout: 240_000 },
    async () => {
      const product = await stockedProduct(db);
      const tag = letters();
      const merchant = await proposingMerchant(product, 300);
      try {
        const reg = await call(apis[0]!.url, 'POST', '/v1/merchant/register', {
          token: dev.apiKey,
          body: { merchant_id: `m-${tag}`, agent_endpoint: merchant.server.url, subscription_tags: [tag] },
        });
        expect(reg.status, reg.text).toBe(200);

        // One rate-limit bucket for the deployment: wrong-password logins alternate between the two APIs;
        // per-process buckets would let twice the limit through.
        const wrongLogin = (base: string) =>
          call(base, 'POST', '/v1/developers/login', { body: { contact_email: dev.email, password: 'not the password' } });
        const statuses: number[] = [];
        for (let i = 0; i < 3 * LOGIN_LIMIT; i++) statuses.push((await wrongLogin(apis[i % 2]!.url)).status);
        expect(statuses.filter((s) => s !== 429).length, `statuses: ${statuses.join(',')}`).toBe(LOGIN_LIMIT);
        expect(new Set(statuses.filter((s) => s !== 429))).toEqual(new Set([401]));

        // Load: 3 clients, each 6 rounds of intent create, intent read and a commerce runtime, alternating replicas.
        const CLIENTS = 3;
        const ROUNDS = 6;
        let done = 0;
        const write = (path: string, key: string, body: unknown) => (base: string) =>
          tryCall(base, 'POST', path, { token: dev.apiKey, body, headers: { 'idempotency-key': key, prefer: 'wait=20' } });
        const client = async (c: number) => {
          const results: Array<{ op: string; res: Outcome }> = [];
          for (let r = 0; r < ROUNDS; r++) {
            const first = (c + r) % 2;
            const k = `${tag}-${c}-${r}`;
            const intent = await careful(
              'intent',
              first,
              write('/v1/intents', `in-${k}`, { raw_query: `${tag} travel mug ${k}`, intent_tags: [tag] }),
            );
            results.push({ op: 'intent', res: intent });
            if (intent.status === 201) {
              const id = intent.body.intent.intent_id as string;
              results.push({
                op: 'read',
                res: await careful('read', 1 - first, (base) => tryCall(base, 'GET', `/v1/intents/${id}`, { token: dev.apiKey })),
              });
            }
            const rt = { intent: { raw_query: `${tag} wireless headphones ${k}`, intent_tags: [tag] } };
            results.push({ op: 'runtime', res: await careful('runtime', first, write('/v1/commerce-runtime', `rt-${k}`, rt)) });
            done++;
          }
          return results;
        };
        const load = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

        // Mid-load: SIGTERM API 0 and worker 0 (they drain; the helpers SIGKILL only past 40 s).
        await eventually('a third of the load done', async () => done >= (CLIENTS * ROUNDS) / 3, 60_000, 100);
        const stoppedApi = apis[0]!;
        const stoppedWorker = workers[0]!;
        const stops = [stoppedApi.stop(40_000), stoppedWorker.stop(40_000)];
        const results = (await load).flat();
        await Promise.all(stops);
        expect(await stoppedApi.exited, 'the API drained and exited by itself').toBe(0);
        expect(await stoppedWorker.exited, 'the worker drained and exited by itself').toBe(0);

        // Every operation succeeded, and every answer on the way was one a careful client retries.
        for (const { op, res } of results)
          expect([op, res.status, res.text.slice(0, 300)]).toEqual([op, op === 'read' ? 200 : 201, expect.anything()]);
        const unretriable = seen.filter((s) => s.status >= 400 && !s.retryAfter);
        expect(unretriable).toEqual([]);
        const refused = seen.filter((s) => s.status === 0).length;
        console.log(
          `[replicas] ${results.length} operations, ${seen.length} answers, ${refused} refused/cut connection(s) retried on the other replica`,
        );
        // The runtimes the stopped worker had in flight finished on the other one.
        for (const { res } of results.filter((r) => r.op === 'runtime'))
          expect(res.body.runtime.runtime_session.stage).toBe('awaiting_user_confirmation');

        // Housekeeping: one system-chores loop on the deployment's queue however many workers booted
        // (each boot starts it with USE_EXISTING), and its timed sweep runs on the surviving worker: an
        // intent stored while Temporal was away (an API without Temporal) gets its fan-out.
        const running = await eventually(
          'the system-chores loop listed',
          async () => {
            const runs: string[] = [];
            const query = `WorkflowType = '${SYSTEM_CHORES_WORKFLOW}' AND TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
            for await (const wf of temporal.workflow.list({ query })) runs.push(`${wf.workflowId}/${wf.runId}`);
            return runs.length > 0 && runs;
          },
          15_000,
        );
        expect(running.length).toBe(1);
        expect(running[0]!.startsWith(`${systemChoresWorkflowId(taskQueue)}/`)).toBe(true);
        const offline = await startTestApi({ withTemporal: false, db, env: { TEMPORAL_TASK_QUEUE: taskQueue } });
        try {
          const created = await call(offline.url, 'POST', '/v1/intents', {
            token: dev.apiKey,
            body: { raw_query: `${tag} missed fan-out travel mug`, intent_tags: [tag] },
          });
          expect(created.status, created.text).toBe(201);
          const intentId = created.body.intent.intent_id as string;
          // Older than the sweep's 10 s grace (a create still starting its fan-out is left alone).
          await db
            .updateTable('intents')
            .set({ created_at: sql`now() - interval '30 seconds'` })
            .where('intent_id', '=', intentId)
            .execute();
          // The loop sweeps every 30 s: two ticks and some, bounded.
          await eventually(
            'the missed intent swept',
            async () =>
              (await db.selectFrom('intents').select('surge_started_at').where('intent_id', '=', intentId).executeTakeFirstOrThrow())
                .surge_started_at,
            75_000,
            500,
          );
          const surge = await temporal.workflow.getHandle(workflowIds.surge(intentId)).describe();
          expect(surge.taskQueue).toBe(taskQueue);
        } finally {
          await offline.close();
        }
      } finally {
        await merchant.server.close();
      }
    },
  );
});
