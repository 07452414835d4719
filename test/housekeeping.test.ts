import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Client } from '@temporalio/client';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { ensureHousekeepingSchedules, housekeepingScheduleId, HOUSEKEEPING_CHORES } from '../src/housekeeping/schedules';
import { HOUSEKEEPING_WORKFLOWS, type HousekeepingChore } from '../workflows/housekeeping.shared';
import { replayAndRecord as recordHistory } from './helpers/histories';
import { workflowIds } from '../src/temporal/names';

/**
 * The chores the API ran on timers in every process now run as Temporal Schedules that the worker
 * ensures: each one is in place once per task queue, and triggering it (as an operator does in the
 * UI) runs its workflow, which does the chore.
 */
let api: TestApi;
let worker: { stop(): Promise<void> };
let dev: Onboarded;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.config, api.db);
  dev = await onboard(api.url);
});
afterAll(async () => {
  for (const chore of HOUSEKEEPING_CHORES)
    await api
      .temporal!.client.schedule.getHandle(housekeepingScheduleId(chore, api.config.TEMPORAL_TASK_QUEUE))
      .delete()
      .catch(() => {});
  await worker?.stop();
  await api?.close();
});

/**
 * Triggers the chore's schedule and returns the result of the run it started (bounded); the run is
 * kept as this release's shape of its workflow (test/helpers/histories.ts).
 */
async function triggerAndWait(client: Client, chore: HousekeepingChore): Promise<unknown> {
  const handle = client.schedule.getHandle(housekeepingScheduleId(chore, api.config.TEMPORAL_TASK_QUEUE));
  const before = (await handle.describe()).info.recentActions.length;
  await handle.trigger();
  for (let i = 0; i < 80; i++) {
    const actions = (await handle.describe()).info.recentActions;
    if (actions.length > before) {
      const { workflowId, firstExecutionRunId } = actions.at(-1)!.action.workflow;
      const result = await client.workflow.getHandle(workflowId, firstExecutionRunId).result();
      await recordHistory(client, workflowId, `${HOUSEKEEPING_WORKFLOWS[chore]}.json`);
      return result;
    }
    await sleep(250);
  }
  throw new Error(`schedule of ${chore} started no run`);
}

describe('housekeeping schedules', () => {
  it('are ensured once per task queue: a second worker start finds them', async () => {
    const first = await ensureHousekeepingSchedules(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE);
    const again = await ensureHousekeepingSchedules(api.temporal!.client, api.config.TEMPORAL_TASK_QUEUE);
    expect(first.map((s) => s.scheduleId)).toEqual(
      HOUSEKEEPING_CHORES.map((c) => housekeepingScheduleId(c, api.config.TEMPORAL_TASK_QUEUE)),
    );
    expect(again.every((s) => !s.created)).toBe(true);
    const described = await api
      .temporal!.client.schedule.getHandle(housekeepingScheduleId('surgeSweep', api.config.TEMPORAL_TASK_QUEUE))
      .describe();
    expect(described.spec.intervals?.[0]?.every).toBe(30_000);
    expect(described.policies.overlap).toBe('SKIP');
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

    const result = (await triggerAndWait(api.temporal!.client, 'purge')) as { idempotencyKeys: number; rateLimitBuckets: number };
    expect(result.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(result.rateLimitBuckets).toBeGreaterThanOrEqual(1);
    const left = await api.db.selectFrom('idempotency_keys').select('idem_key').where('owner_id', '=', owner).execute();
    expect(left.map((r) => r.idem_key)).toEqual(['new']);
    const buckets = await sql<{ key: string }>`select key from rate_limits where key like ${`${stale}%`}`.execute(api.db);
    expect(buckets.rows.map((r) => r.key)).toEqual([`${stale}-live`]);
  });

  it('proposal expiry sweep runs and reports what it expired', async () => {
    const result = (await triggerAndWait(api.temporal!.client, 'proposalExpiry')) as { affected: number };
    expect(result.affected).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(result.affected)).toBe(true);
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

      const result = (await triggerAndWait(api.temporal!.client, 'surgeSweep')) as { affected: number };
      expect(result.affected).toBeGreaterThanOrEqual(1);
      const row = await api.db.selectFrom('intents').select('surge_started_at').where('intent_id', '=', intentId).executeTakeFirstOrThrow();
      expect(row.surge_started_at).not.toBeNull();
      const surge = await api.temporal!.client.workflow.getHandle(workflowIds.surge(intentId)).describe();
      expect(surge.taskQueue).toBe(api.config.TEMPORAL_TASK_QUEUE);
    } finally {
      await offline.close();
    }
  });
});
