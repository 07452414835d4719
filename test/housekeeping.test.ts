import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Client } from '@temporalio/client';
import { call } from './helpers/http';
import { stockedProduct } from './helpers/catalog';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { ScheduleNotFoundError } from '@temporalio/client';
import { ensurePurgeSchedule, purgeScheduleId } from '../src/housekeeping/schedules';
import { replacedScheduleIds, runChore, setSystemChoresPaused, systemChoresWorkflowId } from '../src/housekeeping/chores';
import { HOUSEKEEPING_WORKFLOWS, SYSTEM_CHORES_WORKFLOW, type SystemChore } from '../workflows/housekeeping.shared';
import { bootWorker } from '../worker/run';
import { replayAndRecord as recordHistory } from './helpers/histories';
import { workflowIds } from '../src/temporal/names';

/**
 * The chores the API ran on timers in every process now run once per task queue: the hourly purge as
 * a Temporal Schedule the worker ensures (triggering it, as an operator does in the UI, runs its
 * workflow), the frequent ones in the system-chores loop every worker boot starts (one loop however
 * many boots; its `runChore` Update runs a chore now and answers with what it did).
 */
let api: TestApi;
let worker: { stop(): Promise<void> };
let dev: Onboarded;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  api = await startTestApi({ env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  worker = await startTestWorker(api.config, api.db);
  dev = await onboard(api.url);
});
afterAll(async () => {
  await api
    .temporal!.client.schedule.getHandle(purgeScheduleId(api.config.TEMPORAL_TASK_QUEUE))
    .delete()
    .catch(() => {});
  await api
    .temporal!.client.workflow.getHandle(systemChoresWorkflowId(api.config.TEMPORAL_TASK_QUEUE))
    .terminate('test over')
    .catch(() => {});
  await worker?.stop();
  await api?.close();
});

/**
 * Triggers the purge schedule and returns the result of the run it started (bounded); the run is
 * kept as this release's shape of its workflow (test/helpers/histories.ts).
 */
async function triggerPurgeAndWait(client: Client): Promise<unknown> {
  const handle = client.schedule.getHandle(purgeScheduleId(api.config.TEMPORAL_TASK_QUEUE));
  const before = (await handle.describe()).info.recentActions.length;
  await handle.trigger();
  for (let i = 0; i < 80; i++) {
    const actions = (await handle.describe()).info.recentActions;
    if (actions.length > before) {
      const { workflowId, firstExecutionRunId } = actions.at(-1)!.action.workflow;
      const result = await client.workflow.getHandle(workflowId, firstExecutionRunId).result();
      await recordHistory(client, workflowId, `${HOUSEKEEPING_WORKFLOWS.purge}.json`);
      return result;
    }
    await sleep(250);
  }
  throw new Error('the purge schedule started no run');
}

const chore = (name: SystemChore) => runChore(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE, name);

/** The system-chores runs on this test's task queue, open or closed (visibility, bounded until it lists `atLeast`). */
async function listedLoops(query: string, atLeast: number): Promise<Array<{ workflowId: string; runId: string; status: string }>> {
  let runs: Array<{ workflowId: string; runId: string; status: string }> = [];
  for (let i = 0; i < 60; i++) {
    runs = [];
    const q = `WorkflowType = '${SYSTEM_CHORES_WORKFLOW}' AND TaskQueue = '${api.config.TEMPORAL_TASK_QUEUE}'${query}`;
    for await (const wf of api.temporal!.client.workflow.list({ query: q }))
      runs.push({ workflowId: wf.workflowId, runId: wf.runId, status: wf.status.name });
    if (runs.length >= atLeast) return runs;
    await sleep(250);
  }
  return runs;
}

describe('housekeeping', () => {
  it('the purge schedule is ensured once per task queue: a second worker start finds it', async () => {
    const first = await ensurePurgeSchedule(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE);
    const again = await ensurePurgeSchedule(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE);
    expect(first.scheduleId).toBe(purgeScheduleId(api.config.TEMPORAL_TASK_QUEUE));
    expect(again.created).toBe(false);
    const described = await api.temporal!.client.schedule.getHandle(first.scheduleId).describe();
    expect(described.spec.intervals?.[0]?.every).toBe(3_600_000);
    expect(described.policies.overlap).toBe('SKIP');
  });

  it('booted twice, a task queue has one system-chores loop; the boot removes the Schedules the loop replaced', async () => {
    const client = api.temporal!.client;
    const taskQueue = api.config.TEMPORAL_TASK_QUEUE;
    // A deployment upgraded from the release with a Schedule per chore: its Schedules are still there.
    for (const scheduleId of replacedScheduleIds(taskQueue))
      await client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '1 hour' }] },
        action: { type: 'startWorkflow', workflowType: HOUSEKEEPING_WORKFLOWS.surgeSweep, workflowId: scheduleId, taskQueue, args: [] },
        state: { paused: true },
      });
    const boot = async () => {
      const booted = await bootWorker({ deps: { db: api.db, config: api.config }, temporal: api.temporal! });
      try {
        await booted.worker.runUntil(Promise.resolve());
      } finally {
        await booted.close();
      }
      return booted;
    };
    const first = await boot();
    const second = await boot();
    expect(first.schedules.removed.sort()).toEqual(replacedScheduleIds(taskQueue).sort());
    expect(second.schedules.removed).toEqual([]);
    for (const scheduleId of replacedScheduleIds(taskQueue))
      await expect(client.schedule.getHandle(scheduleId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    await client.schedule
      .getHandle(first.schedules.reconciliation.scheduleId)
      .delete()
      .catch(() => {});

    expect(first.systemChores.workflowId).toBe(systemChoresWorkflowId(taskQueue));
    expect(second.systemChores).toEqual(first.systemChores);
    const running = await listedLoops(` AND ExecutionStatus = 'Running'`, 1);
    expect(running).toEqual([{ workflowId: systemChoresWorkflowId(taskQueue), runId: first.systemChores.runId, status: 'RUNNING' }]);
    // Nothing else of the loop was ever started on this queue (the second boot joined the first's run).
    expect(await listedLoops('', 1)).toHaveLength(1);
    // Its current details say what its last tick did (the test worker runs it from here on).
    const details = async () =>
      (
        await client.workflow
          .getHandle(systemChoresWorkflowId(taskQueue))
          .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
      ).currentDetails ?? '';
    for (let i = 0; i < 120 && !(await details()).startsWith('last tick'); i++) await sleep(250);
    expect(await details()).toMatch(
      /^last tick .*: swept: \d+ missed fan-out\(s\); expired \d+ proposal\(s\); reconciled \d+ open runtime/,
    );
  });

  it('purge: drops idempotency records past 24 h and rate-limit buckets expired over an hour ago', async () => {
    const owner = `dev_hk_${Date.now()}`;
    const row = (key: string, age: string) => ({
      owner_id: owner,
      idem_key: key,
      method: 'POST',
      path: '/x',
      request_hash: 'h',
      state: 'completed' as const,
      response_status: 200,
      response_body: '{}',
      locked_at: sql<Date>`now()`,
      created_at: sql<Date>`now() - ${age}::interval`,
    });
    await api.db
      .insertInto('idempotency_keys')
      .values([row('old', '25 hours'), row('new', '1 hour')])
      .execute();
    const stale = `hk-test:${owner}`;
    await sql`insert into rate_limits (key, points, expire) values (${stale}, 3, ${Date.now() - 2 * 3600_000}), (${`${stale}-live`}, 1, ${Date.now() + 60_000})`.execute(
      api.db,
    );

    const result = (await triggerPurgeAndWait(api.temporal!.client)) as { idempotencyKeys: number; rateLimitBuckets: number };
    expect(result.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(result.rateLimitBuckets).toBeGreaterThanOrEqual(1);
    const left = await api.db.selectFrom('idempotency_keys').select('idem_key').where('owner_id', '=', owner).execute();
    expect(left.map((r) => r.idem_key)).toEqual(['new']);
    const buckets = await sql<{ key: string }>`select key from rate_limits where key like ${`${stale}%`}`.execute(api.db);
    expect(buckets.rows.map((r) => r.key)).toEqual([`${stale}-live`]);
  });

  it('proposal expiry: the chore run now marks a proposal past its expiry expired, and says how many', async () => {
    const product = await stockedProduct(api.db);
    const merchantId = `hk-${Date.now()}`;
    const reg = await call(api.url, 'POST', '/v1/merchant/register', {
      token: dev.apiKey,
      body: { merchant_id: merchantId, agent_endpoint: 'http://127.0.0.1:9/hook' },
    });
    expect(reg.status, reg.text).toBe(200);
    const intent = await call(api.url, 'POST', '/v1/intents', {
      token: dev.apiKey,
      body: { raw_query: 'housekeeping expiry trail shoes' },
    });
    expect(intent.status, intent.text).toBe(201);
    const proposal = await call(api.url, 'POST', '/v1/proposals', {
      token: dev.apiKey,
      headers: { 'x-merchant-token': reg.body.registration_token },
      body: {
        merchant_agent_id: merchantId,
        intent_id: intent.body.intent.intent_id,
        product_id: product.product_id,
        offer_title: 'Trail runner',
        price: product.price_cents / 100,
      },
    });
    expect(proposal.status, proposal.text).toBe(201);
    const proposalId = proposal.body.proposal.proposal_id as string;
    // Past its validity, and nobody has read it since.
    await api.db
      .updateTable('proposals')
      .set({ valid_until: sql`now() - interval '1 second'` })
      .where('proposal_id', '=', proposalId)
      .execute();

    const result = await chore('proposalExpiry');
    expect(result).toMatchObject({ chore: 'proposalExpiry', expired: expect.any(Number) });
    expect((result as { expired: number }).expired).toBeGreaterThanOrEqual(1);
    const row = await api.db
      .selectFrom('proposals')
      .select('proposal_state')
      .where('proposal_id', '=', proposalId)
      .executeTakeFirstOrThrow();
    expect(row.proposal_state).toBe('expired');
  });

  it('surge sweep: an intent stored while Temporal was away gets its fan-out', async () => {
    const offline = await startTestApi({ withTemporal: false, db: api.db, env: { TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE } });
    try {
      const res = await call(offline.url, 'POST', '/v1/intents', {
        token: dev.apiKey,
        body: { raw_query: 'housekeeping sweep travel mug' },
      });
      expect(res.status, res.text).toBe(201);
      const intentId = res.body.intent.intent_id as string;
      // Older than the sweep's 10 s grace (a create that is still starting its fan-out is left alone).
      await api.db
        .updateTable('intents')
        .set({ created_at: sql`now() - interval '30 seconds'` })
        .where('intent_id', '=', intentId)
        .execute();

      const result = await chore('surgeSweep');
      expect(result).toMatchObject({ chore: 'surgeSweep', started: expect.any(Number) });
      expect((result as { started: number }).started).toBeGreaterThanOrEqual(1);
      const row = await api.db.selectFrom('intents').select('surge_started_at').where('intent_id', '=', intentId).executeTakeFirstOrThrow();
      expect(row.surge_started_at).not.toBeNull();
      const surge = await api.temporal!.client.workflow.getHandle(workflowIds.surge(intentId)).describe();
      expect(surge.taskQueue).toBe(api.config.TEMPORAL_TASK_QUEUE);
    } finally {
      await offline.close();
    }
  });

  it('runtime reconcile and the catalog check run through the loop; an unknown chore is refused; pause stops the timed chores, not runChore', async () => {
    const reconciled = await chore('runtimeReconcile');
    expect(reconciled).toMatchObject({
      chore: 'runtimeReconcile',
      checked: expect.any(Number),
      closed: expect.any(Number),
      voided: expect.any(Number),
    });
    // The global setup's catalog is walked by no one on this queue: the check starts the walk (or finds it).
    const catalog = await chore('catalogEmbedding');
    expect(catalog).toMatchObject({ chore: 'catalogEmbedding' });
    await expect(chore('nothing' as SystemChore)).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/unknown chore nothing/) },
    });

    const client = api.temporal!.client;
    const taskQueue = api.config.TEMPORAL_TASK_QUEUE;
    expect(await setSystemChoresPaused(client, taskQueue, true)).toMatchObject({ paused: true });
    expect(await chore('surgeSweep')).toMatchObject({ chore: 'surgeSweep', started: expect.any(Number) });
    expect(await setSystemChoresPaused(client, taskQueue, false)).toMatchObject({ paused: false });
    // A walk the check started is left to finish or is stopped here: it is not this file's subject.
    if ('walk' in catalog && catalog.walk)
      await client.workflow
        .getHandle(catalog.walk)
        .terminate('test over')
        .catch(() => {});
    // This release's shape of the loop (timers, local activities, Updates) for the replay suite.
    await recordHistory(client, systemChoresWorkflowId(taskQueue), 'system-chores.json');
  });
});
