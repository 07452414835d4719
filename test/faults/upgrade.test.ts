import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { createDb, type Db } from '../../src/db/connect';
import { freePort } from '../../src/net';
import { workflowIds } from '../../src/temporal/names';
import { onboard, type Onboarded } from '../helpers/console';
import { call } from '../helpers/http';
import { stockedProduct } from '../helpers/catalog';
import { startApiProcess, type ApiProcess } from '../helpers/api-process';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { testConfig, type TestApi } from '../helpers/stack';
import { createWorker } from '../../worker/run';
import { ensureCurrentVersion, type Promotion } from '../../src/temporal/versioning';
import {
  apiEnv,
  buyable,
  checkoutBody,
  confirmBody,
  deploymentEnv,
  eventually,
  letters,
  orderMerchant,
  proposingMerchant,
  type Buyable,
  stopHousekeeping,
} from './deployment';

/**
 * A release reaching a running deployment (docs/OPERATIONS.md, "Worker versions"): two API and two
 * worker processes of one deployment (one task queue, so one worker deployment), both workers version
 * r1. Checkouts are planned and wait for the buyer's consent (pinned runs in flight); runtimes run.
 * Then one worker is stopped and replaced by a worker of version r2, which makes itself current:
 *   - new runs (checkouts, runtimes) start on r2;
 *   - the checkouts planned on r1 are confirmed through both APIs and finish on r1 (every workflow task
 *     of theirs, the ones after the upgrade included, completed by r1): confirmed, one order each at
 *     the merchant; no failed run, every API answer the expected one;
 *   - a run of r1 is never taken by r2: with no r1 worker left, a confirm waits (202, pending) and the
 *     merchant sees nothing; an r1 worker started again (it does not make r1 current again) finishes it.
 */
const { VersioningBehavior, WorkerDeploymentVersionStatus } = proto.temporal.api.enums.v1;

let db: Db;
let dev: Onboarded;
let apis: ApiProcess[] = [];
const workers: WorkerProcess[] = [];
let connection: Connection;
let temporal: Client;
let taskQueue: string;
let shared: Record<string, string>;
const r1 = `r1-${letters()}`;
const r2 = `r2-${letters()}`;

/** A worker process of the deployment at `buildId`, ready once it has decided whether its version is current. */
async function startVersionedWorker(buildId: string): Promise<WorkerProcess> {
  const asApi = { url: apis[0]!.url, config: { TEMPORAL_TASK_QUEUE: taskQueue } } as TestApi;
  const w = startWorkerProcess(
    asApi,
    { ...shared, WORKER_VERSIONING: 'on', WORKER_BUILD_ID: buildId, WORKER_VERSION_PROMOTE: 'auto', SHUTDOWN_GRACE_MS: '20000' },
    '"msg":"worker version',
  );
  workers.push(w);
  await w.ready;
  return w;
}

async function deployment() {
  const d = await temporal.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName: taskQueue });
  const info = d.workerDeploymentInfo!;
  return {
    current: info.routingConfig?.currentDeploymentVersion?.buildId ?? null,
    status: (buildId: string) => {
      const s = info.versionSummaries?.find((v) => v.deploymentVersion?.buildId === buildId)?.status;
      return s === undefined || s === null ? undefined : WorkerDeploymentVersionStatus[s];
    },
  };
}

/** The version a run is on and its versioning behaviour (what the Temporal UI shows on the run). */
async function versionOf(workflowId: string) {
  const info = (await temporal.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.versioningInfo;
  return {
    buildId: info?.deploymentVersion?.buildId,
    deploymentName: info?.deploymentVersion?.deploymentName,
    behavior: info?.behavior === undefined || info.behavior === null ? undefined : VersioningBehavior[info.behavior],
  };
}

/** The build id of every completed workflow task of a run, with the time it completed. */
async function taskVersions(workflowId: string) {
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  return history
    .events!.filter((e) => e.workflowTaskCompletedEventAttributes)
    .map((e) => ({
      at: Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6),
      buildId: e.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId,
    }));
}

beforeAll(async () => {
  taskQueue = `upgrade-${letters()}`;
  const ports = [await freePort(), await freePort()];
  shared = deploymentEnv({
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    url: `http://127.0.0.1:${ports[0]}`,
    taskQueue,
  });
  apis = ports.map((p) => startApiProcess(p, apiEnv(shared, { SHUTDOWN_GRACE_MS: '20000' })));
  connection = await Connection.connect({ address: inject('temporalAddress') });
  temporal = new Client({ connection });
  await Promise.all(apis.map((a) => a.ready));
  // Two replicas of r1 at once: the first to poll makes r1 current, the other finds it so.
  await Promise.all([startVersionedWorker(r1), startVersionedWorker(r1)]);
  db = createDb(inject('databaseUrl'), { max: 4 });
  dev = await onboard(apis[1]!.url);
}, 180_000);

afterAll(async () => {
  for (const w of workers) await w.stop(30_000);
  for (const a of apis) await a.stop(30_000);
  await stopHousekeeping(temporal, taskQueue);
  await connection?.close();
  await db?.destroy();
});

describe('upgrading one worker to a new version while runs are in flight', () => {
  it(
    'new runs start on the new version; checkouts awaiting consent finish on the version they started on, even after its last worker came back',
    { timeout: 300_000 },
    async () => {
      expect((await deployment()).current, 'the first r1 worker made r1 current').toBe(r1);
      const product = await stockedProduct(db);
      const tag = letters();
      const orders = await orderMerchant();
      const proposer = await proposingMerchant(product);
      try {
        const post = (api: number, path: string, body: unknown, headers: Record<string, string> = {}) =>
          call(apis[api]!.url, 'POST', path, { token: dev.apiKey, body, headers });
        const get = (path: string) => call(apis[0]!.url, 'GET', path, { token: dev.apiKey });
        const seller = await post(0, '/v1/merchant/register', { merchant_id: `m-${tag}`, agent_endpoint: orders.url });
        expect(seller.status, seller.text).toBe(200);
        const runtimeSeller = await post(0, '/v1/merchant/register', {
          merchant_id: `m-${tag}-rt`,
          agent_endpoint: proposer.server.url,
          subscription_tags: [tag],
        });
        expect(runtimeSeller.status, runtimeSeller.text).toBe(200);
        const merchant = { id: `m-${tag}`, token: seller.body.registration_token as string };

        /** A checkout planned through API `api`: 201, awaiting the buyer's consent. */
        const plan = async (api: number) => {
          const b = await buyable(apis[api]!.url, dev.apiKey, merchant, product);
          const res = await post(api, '/v1/agentic-checkout', checkoutBody(b), { prefer: 'wait=30' });
          expect(res.status, res.text).toBe(201);
          expect(res.body.checkout.status).toBe('awaiting_confirmation');
          return { b, id: res.body.checkout.checkout_id as string };
        };
        /** A commerce runtime through API `api`, to its end (a match token awaiting the user). */
        const runtime = async (api: number, n: number) => {
          const res = await post(
            api,
            '/v1/commerce-runtime',
            { intent: { raw_query: `${tag} wireless headphones ${n}`, intent_tags: [tag] } },
            { prefer: 'wait=30' },
          );
          expect(res.status, res.text).toBe(201);
          expect(res.body.runtime.runtime_session.stage).toBe('awaiting_user_confirmation');
          return res.body.runtime.runtime_session.workflow_id as string;
        };
        const confirm = async (api: number, c: { b: Buyable; id: string }) => {
          const res = await post(api, `/v1/agentic-checkout/${c.id}/confirm`, confirmBody(c.b), { prefer: 'wait=30' });
          expect(res.status, res.text).toBe(200);
          expect(res.body.checkout).toMatchObject({ checkout_id: c.id, status: 'confirmed', receipt: { status: 'order_placed' } });
          return res.body.checkout;
        };

        // On r1: three checkouts awaiting consent, one more that r1's last worker will leave behind, two runtimes.
        const inFlight = [await plan(0), await plan(1), await plan(0)];
        const stranded = await plan(1);
        const r1Runtimes = [await runtime(0, 1), await runtime(1, 2)];
        for (const c of [...inFlight, stranded])
          expect(await versionOf(workflowIds.checkout(c.id))).toEqual({
            buildId: r1,
            deploymentName: taskQueue,
            behavior: 'VERSIONING_BEHAVIOR_PINNED',
          });
        for (const id of r1Runtimes) expect((await versionOf(id)).buildId).toBe(r1);

        // The upgrade: worker B (r1) stops, B' (r2) starts and makes r2 current; r1 drains.
        const [workerA, workerB] = workers;
        await workerB!.stop(30_000);
        expect(await workerB!.exited, 'worker B drained and exited by itself').toBe(0);
        await startVersionedWorker(r2);
        const upgradedAt = Date.now();
        const after = await deployment();
        expect(after.current).toBe(r2);
        expect(after.status(r1)).toBe('WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING');
        expect(after.status(r2)).toBe('WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT');

        // New runs start on r2.
        const r2Checkouts = [await plan(0), await plan(1)];
        const r2Runtimes = [await runtime(1, 3), await runtime(0, 4)];
        for (const c of r2Checkouts) expect((await versionOf(workflowIds.checkout(c.id))).buildId).toBe(r2);
        for (const id of r2Runtimes) expect((await versionOf(id)).buildId).toBe(r2);

        // The checkouts planned on r1 are confirmed (through both APIs) and finish on r1, every task of theirs.
        for (const [i, c] of inFlight.entries()) await confirm(i % 2, c);
        for (const c of inFlight) {
          const wid = workflowIds.checkout(c.id);
          expect((await temporal.workflow.getHandle(wid).describe()).status.name).toBe('COMPLETED');
          expect(await versionOf(wid)).toMatchObject({ buildId: r1, behavior: 'VERSIONING_BEHAVIOR_PINNED' });
          const tasks = await taskVersions(wid);
          expect(tasks.filter((t) => t.at >= upgradedAt).length, 'the confirm ran after the upgrade').toBeGreaterThan(0);
          expect(new Set(tasks.map((t) => t.buildId))).toEqual(new Set([r1]));
        }
        for (const [i, c] of r2Checkouts.entries()) await confirm(i % 2, c);
        for (const c of r2Checkouts)
          expect(new Set((await taskVersions(workflowIds.checkout(c.id))).map((t) => t.buildId))).toEqual(new Set([r2]));
        // What an operator filters on: the runs of r1 carry its version in a search attribute.
        const r1Runs = await eventually(
          'the r1 checkouts listed by version',
          async () => {
            const ids: string[] = [];
            const query = `TemporalWorkerDeploymentVersion = '${taskQueue}:${r1}' AND WorkflowType = 'agenticCheckout'`;
            for await (const wf of temporal.workflow.list({ query })) ids.push(wf.workflowId);
            return ids.length === inFlight.length + 1 && ids;
          },
          15_000,
        );
        expect(r1Runs.sort()).toEqual([...inFlight, stranded].map((c) => workflowIds.checkout(c.id)).sort());

        // r1's last worker stops with a checkout of r1 still awaiting consent: r2 does not take it.
        await workerA!.stop(30_000);
        expect(await workerA!.exited, 'worker A drained and exited by itself').toBe(0);
        const waited = await post(0, `/v1/agentic-checkout/${stranded.id}/confirm`, confirmBody(stranded.b), { prefer: 'wait=3' });
        // A worker polls the queue (r2's), so the confirm is not refused: it waits its 3 s and is pending.
        expect(waited.status, waited.text).toBe(202);
        expect(waited.body).toMatchObject({ checkout_id: stranded.id, status: 'pending' });
        const held = await temporal.workflow.getHandle(workflowIds.checkout(stranded.id)).describe();
        expect(held.status.name).toBe('RUNNING');
        expect(held.raw.pendingWorkflowTask, 'the confirm waits for a worker of r1').toBeTruthy();
        expect(new Set((await taskVersions(workflowIds.checkout(stranded.id))).map((t) => t.buildId))).toEqual(new Set([r1]));
        expect(orders.orders.has(stranded.id), 'no order while no r1 worker polls').toBe(false);
        expect((await get(`/v1/agentic-checkout/${stranded.id}`)).body.checkout.status).toBe('awaiting_confirmation');

        // An r1 worker comes back (say, a restarted replica of the old release): it finishes the checkout,
        // and r1 does not become current again.
        await startVersionedWorker(r1);
        expect((await deployment()).current).toBe(r2);
        // The buyer's agent asks again, as a 202 invites it to: the confirm completes (joining the one pending).
        const done = await eventually(
          'the stranded checkout confirmed by the r1 worker',
          async () => {
            const res = await post(1, `/v1/agentic-checkout/${stranded.id}/confirm`, confirmBody(stranded.b), { prefer: 'wait=20' });
            expect([200, 202], res.text).toContain(res.status);
            return res.status === 200 && res.body.checkout;
          },
          90_000,
        );
        expect(done).toMatchObject({ checkout_id: stranded.id, status: 'confirmed', receipt: { status: 'order_placed' } });
        expect(new Set((await taskVersions(workflowIds.checkout(stranded.id))).map((t) => t.buildId))).toEqual(new Set([r1]));
        expect((await deployment()).current).toBe(r2);

        // One order per checkout at the merchant, under the checkout's own key.
        const all = [...inFlight, stranded, ...r2Checkouts];
        expect([...orders.orders.keys()].sort()).toEqual(all.map((c) => c.id).sort());
        // No run of the deployment failed, timed out or was terminated.
        const bad: string[] = [];
        const query = `TaskQueue = '${taskQueue}' AND ExecutionStatus != 'Running' AND ExecutionStatus != 'Completed'`;
        for await (const wf of temporal.workflow.list({ query })) bad.push(`${wf.workflowId}: ${wf.status.name}`);
        expect(bad).toEqual([]);
        for (const c of all)
          expect((await temporal.workflow.getHandle(workflowIds.checkout(c.id)).describe()).status.name, c.id).toBe('COMPLETED');
      } finally {
        await orders.server.close();
        await proposer.server.close();
      }
    },
  );
});

describe('which version a starting worker makes current', () => {
  it('manual leaves promotion to the operator except for a deployment with none; auto promotes a new version, never an older one back; replicas promoting at once both succeed', async () => {
    const queue = `promote-${letters()}`;
    const running: Array<() => Promise<void>> = [];
    /** An in-process worker of `buildId` on the queue, polling, and what it decides with `promote`. */
    const start = async (buildId: string, promote: 'auto' | 'manual'): Promise<Promotion> => {
      const config = testConfig({
        TEMPORAL_TASK_QUEUE: queue,
        WORKER_VERSIONING: 'on',
        WORKER_BUILD_ID: buildId,
        WORKER_VERSION_PROMOTE: promote,
      });
      const { worker, version, close } = await createWorker({
        address: config.TEMPORAL_ADDRESS!,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: queue,
        deps: { db, config },
      });
      expect(version).toEqual({ deploymentName: queue, buildId });
      const run = worker.run();
      running.push(async () => {
        worker.shutdown();
        await run;
        await close();
      });
      return ensureCurrentVersion({ client: temporal, namespace: 'default', version: version!, promote });
    };
    const current = async () =>
      (await temporal.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName: queue })).workerDeploymentInfo
        ?.routingConfig?.currentDeploymentVersion?.buildId;
    try {
      // A new deployment: even a manual worker makes itself current (else no new run would start anywhere).
      expect(await start('m1', 'manual')).toEqual({ outcome: 'promoted', previous: null });
      expect(await current()).toBe('m1');
      // Manual: a second version waits for the operator.
      expect(await start('m2', 'manual')).toMatchObject({
        outcome: 'left',
        current: `${queue}:m1`,
        reason: 'WORKER_VERSION_PROMOTE=manual',
      });
      expect(await current()).toBe('m1');
      // Auto: two replicas of a new version at once; both end with it current, neither fails.
      const both = await Promise.all([start('m3', 'auto'), start('m3', 'auto')]);
      for (const p of both) expect(['promoted', 'current']).toContain(p.outcome);
      expect(both.some((p) => p.outcome === 'promoted')).toBe(true);
      expect(await current()).toBe('m3');
      // A replica of the version m3 replaced, restarting with auto: it does not take the deployment back.
      const back = await start('m1', 'auto');
      expect(back).toMatchObject({ outcome: 'left', current: `${queue}:m3` });
      expect(await current()).toBe('m3');
      // m2 was never current: an auto worker of it is a new version to the deployment, so it is promoted.
      expect(await start('m2', 'auto')).toEqual({ outcome: 'promoted', previous: `${queue}:m3` });
      expect(await current()).toBe('m2');
    } finally {
      for (const stop of running) await stop();
    }
  }, 120_000);
});
