import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createDb, type Db } from '../../src/db/connect';
import { workflowIds } from '../../src/temporal/names';
import { onboard, type Onboarded } from '../helpers/console';
import { call } from '../helpers/http';
import { startLoopback, type LoopbackServer } from '../helpers/loopback';
import { TEST_SUPPLY_KEY } from '../helpers/stack';
import { eventually, letters, startDeployment, type Deployment } from './deployment';

/**
 * Merchants that fail (500), hang (past the answer deadline) and answer 410, in the split deployment:
 * each delivery goes to the dead-letter queue as the retry schedule says (3 attempts; 410 at once),
 * every attempt is in the audit, and once the merchants heal a replay out of the DLQ delivers each
 * exactly once, under the webhook-id of the first attempt. Postgres and Temporal agree at each end.
 */
const SCHEDULE = '0,0.3,0.3';
const TIMEOUT_MS = 800;

type Mode = 'fail' | 'hang' | 'gone' | 'ok';
interface Merchant {
  mode: Mode;
  requests: Array<{ webhookId: string; answered: number | 'hang' }>;
  server: LoopbackServer;
}

let d: Deployment;
let db: Db;
let dev: Onboarded;
const merchants: Merchant[] = [];

/** A merchant endpoint whose behaviour the test switches (`mode`), recording every request and its answer. */
async function scripted(mode: Mode): Promise<Merchant> {
  const m: Merchant = { mode, requests: [], server: undefined as unknown as LoopbackServer };
  m.server = await startLoopback((req: http.IncomingMessage, res) => {
    req.resume();
    const webhookId = String(req.headers['webhook-id']);
    const status = m.mode === 'fail' ? 500 : m.mode === 'gone' ? 410 : m.mode === 'hang' ? 'hang' : 200;
    m.requests.push({ webhookId, answered: status });
    if (status === 'hang') return; // never answers: the gateway's deadline cuts it off
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end('{}');
  });
  merchants.push(m);
  return m;
}

const supply = (method: string, path: string, body?: unknown) =>
  call(d.url, method, path, { body, headers: { 'x-supply-key': TEST_SUPPLY_KEY } });

async function settled(intentId: string, count: number, timeoutMs: number) {
  return eventually(
    `deliveries of ${intentId} settled`,
    async () => {
      const q = await supply('GET', `/v1/merchant/dispatch-queue?intent_id=${intentId}`);
      const { pending, inflight, delivered, dlq } = q.body.summary;
      return pending + inflight === 0 && delivered + dlq === count ? (q.body.deliveries as any[]) : null;
    },
    timeoutMs,
    150,
  );
}

/** Every request a merchant received has its attempt row (and no row lacks a request). */
async function expectAuditMatches(deliveryId: string, m: Merchant) {
  const rows = await db
    .selectFrom('delivery_attempts')
    .select(['attempt', 'outcome', 'status_code'])
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute();
  const received = m.requests.filter((r) => r.webhookId === deliveryId);
  expect(
    rows.map((r) => r.status_code),
    deliveryId,
  ).toEqual(received.map((r) => (r.answered === 'hang' ? null : r.answered)));
  expect(rows.map((r) => r.attempt)).toEqual(rows.map((_, i) => i + 1));
  return rows;
}

beforeAll(async () => {
  d = await startDeployment({
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    env: { DISPATCH_RETRY_SCHEDULE: SCHEDULE, DISPATCH_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
  db = createDb(inject('databaseUrl'), { max: 4 });
  dev = await onboard(d.url);
});
afterAll(async () => {
  await d?.close();
  await Promise.all(merchants.map((m) => m.server.close()));
  await db?.destroy();
});

describe('merchants that fail, hang and answer 410, then heal; replay from the dead-letter queue', () => {
  it('dead-lettered per the schedule with every attempt audited; the replay delivers each exactly once under the same webhook-id', async () => {
    const tag = letters();
    const kinds = { fail: await scripted('fail'), hang: await scripted('hang'), gone: await scripted('gone'), ok: await scripted('ok') };
    const idOf = new Map<Merchant, string>();
    for (const [kind, m] of Object.entries(kinds)) {
      const merchant_id = `m-${tag}-${kind}`;
      const reg = await call(d.url, 'POST', '/v1/merchant/register', {
        token: dev.apiKey,
        body: { merchant_id, agent_endpoint: `${m.server.url}/hook`, subscription_tags: [tag] },
      });
      expect(reg.status, reg.text).toBe(200);
      idOf.set(m, merchant_id);
    }
    const intent = await call(d.url, 'POST', '/v1/intents', {
      token: dev.apiKey,
      body: { raw_query: `${tag} camping stove`, intent_tags: [tag] },
    });
    expect(intent.status, intent.text).toBe(201);
    const intentId = intent.body.intent.intent_id as string;

    const t0 = Date.now();
    const first = await settled(intentId, 4, 45_000);
    const toDlqMs = Date.now() - t0;
    const by = (m: Merchant) => first.find((x) => x.merchant_id === idOf.get(m))!;
    expect(by(kinds.ok)).toMatchObject({ state: 'delivered', attempts: 1 });
    // The schedule: 3 attempts for a failing or hanging merchant, 1 for 410 (gone for good).
    expect(by(kinds.fail)).toMatchObject({ state: 'dlq', attempts: 3, last_attempt: { status_code: 500, outcome: 'failed' } });
    expect(by(kinds.hang)).toMatchObject({ state: 'dlq', attempts: 3, last_attempt: { status_code: null, outcome: 'failed' } });
    expect(by(kinds.hang).last_attempt.error).toMatch(/^timeout/);
    expect(by(kinds.gone)).toMatchObject({ state: 'dlq', attempts: 1, last_attempt: { status_code: 410, outcome: 'gone' } });
    for (const m of Object.values(kinds)) await expectAuditMatches(by(m).delivery_id, m);
    // Temporal agrees: the dead-lettered runs ended Failed, the delivered one Completed.
    for (const m of [kinds.fail, kinds.hang, kinds.gone]) {
      const wf = await eventually(
        'closed',
        async () => {
          const desc = await d.temporal.workflow.getHandle(workflowIds.delivery(by(m).delivery_id, 0)).describe();
          return desc.status.name === 'RUNNING' ? null : desc;
        },
        10_000,
      );
      expect(wf.status.name).toBe('FAILED');
    }

    // Heal, and replay each dead-lettered delivery (by id: other tests' dead letters are theirs).
    for (const m of [kinds.fail, kinds.hang, kinds.gone]) m.mode = 'ok';
    const t1 = Date.now();
    const replayedBy = new Map<string, string>();
    for (const m of [kinds.fail, kinds.hang, kinds.gone]) {
      const r = await supply('POST', '/v1/merchant/dispatch-queue/retry', { delivery_id: by(m).delivery_id });
      expect(r.status, r.text).toBe(200);
      expect(r.body.replays).toHaveLength(1);
      replayedBy.set(by(m).delivery_id, r.body.replays[0].workflow_id);
      // The healed merchant takes the replay's own attempt: the replay workflow delivered it.
      expect(r.body.replays[0]).toMatchObject({
        delivery_id: by(m).delivery_id,
        workflow_id: r.body.replay_workflow_id,
        run_id: expect.any(String),
      });
    }
    const after = await settled(intentId, 4, 30_000);
    const replayMs = Date.now() - t1;
    console.log(
      `[faults] merchant faults: all dead-lettered ${toDlqMs} ms after the intent (schedule ${SCHEDULE} s, deadline ${TIMEOUT_MS} ms); replay delivered in ${replayMs} ms`,
    );
    for (const d0 of after) expect(d0.state, d0.merchant_id).toBe('delivered');

    for (const m of Object.values(kinds)) {
      const deliveryId = by(m).delivery_id;
      // Exactly one request answered 2xx per merchant, every request under the first attempt's webhook-id.
      expect(
        m.requests.filter((r) => r.answered === 200),
        idOf.get(m),
      ).toHaveLength(1);
      expect(new Set(m.requests.map((r) => r.webhookId))).toEqual(new Set([deliveryId]));
      const rows = await expectAuditMatches(deliveryId, m);
      expect(rows.filter((r) => r.outcome === 'delivered')).toHaveLength(1);
      const row = after.find((x) => x.delivery_id === deliveryId)!;
      if (m === kinds.ok) {
        // Delivered at the first attempt, which the fan-out sends itself: it never needed a run of its own.
        expect(row).toMatchObject({ replays: 0, workflow_id: `surge-${intentId}` });
        await expect(d.temporal.workflow.getHandle(workflowIds.delivery(deliveryId, 0)).describe()).rejects.toBeInstanceOf(
          WorkflowNotFoundError,
        );
        continue;
      }
      // Delivered by the replay workflow's own attempt: no replay run was needed.
      expect(row.replays).toBe(1);
      const replay = await d.temporal.workflow.getHandle(replayedBy.get(deliveryId)!).describe();
      expect(replay.status.name).toBe('COMPLETED');
      await expect(d.temporal.workflow.getHandle(workflowIds.delivery(deliveryId, row.replays)).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    }
    // A second replay finds nothing to send: delivered stays delivered, sent once.
    const again = await supply('POST', '/v1/merchant/dispatch-queue/retry', { delivery_id: by(kinds.fail).delivery_id });
    expect(again.status).toBe(409);
    expect(kinds.fail.requests.filter((r) => r.answered === 200)).toHaveLength(1);
  }, 90_000);
});
