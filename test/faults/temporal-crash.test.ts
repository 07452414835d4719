import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createDb, type Db } from '../../src/db/connect';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { freePort } from '../../src/net';
import { workflowIds } from '../../src/temporal/names';
import { onboard, type Onboarded } from '../helpers/console';
import { call } from '../helpers/http';
import { json, startLoopback, type LoopbackServer } from '../helpers/loopback';
import { eventually, letters, sleep, startDeployment, type Deployment } from './deployment';

/**
 * The Temporal dev server SIGKILLed mid fan-out and started again on the same file (so it keeps its
 * state), while the API and worker processes keep running. Every merchant must end with every intent
 * delivered under one stable `webhook-id`, Postgres and Temporal agreeing on each delivery.
 * This file owns its dev server: the shared one of the run stays up for the other files.
 */
const MERCHANTS = 20;
const INTENTS = 4;
const DOWN_MS = 3000;

let tmp: string;
let port: number;
let temporal: DevServer;
let d: Deployment;
let db: Db;
let dev: Onboarded;
let sink: LoopbackServer;
/** Every request the merchants received: which merchant (path) and its webhook-id. */
const seen: Array<{ merchant: string; webhookId: string }> = [];

const startTemporal = () => startDevServer({ port, dbFile: path.join(tmp, 'temporal.db'), install: false });

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'faults-temporal-'));
  port = await freePort();
  temporal = await startTemporal();
  d = await startDeployment({
    databaseUrl: inject('databaseUrl'),
    temporalAddress: temporal.address,
    env: { DISPATCH_RETRY_SCHEDULE: '0,1,2', DISPATCH_TIMEOUT_MS: '2000' },
  });
  db = createDb(inject('databaseUrl'), { max: 4 });
  dev = await onboard(d.url);
  // One sink behind every merchant, answering after 0.5 s: the kill lands while deliveries are in flight.
  sink = await startLoopback((req, res) => {
    seen.push({ merchant: req.url ?? '', webhookId: String(req.headers['webhook-id']) });
    req.resume();
    setTimeout(() => json(res, 200, { ok: true }), 500);
  });
});
afterAll(async () => {
  await d?.close();
  await temporal?.stop();
  await sink?.close();
  await db?.destroy();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('Temporal dev server SIGKILLed and restarted mid fan-out', () => {
  it('every merchant gets every intent under one webhook-id; none lost; Postgres and Temporal agree', async () => {
    const tag = letters();
    const merchantIds: string[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const merchant_id = `m-${tag}-${i}`;
      const reg = await call(d.url, 'POST', '/v1/merchant/register', {
        token: dev.apiKey,
        body: { merchant_id, agent_endpoint: `${sink.url}/m${i}`, subscription_tags: [tag] },
      });
      expect(reg.status, reg.text).toBe(200);
      merchantIds.push(merchant_id);
    }
    const intentIds: string[] = [];
    for (let i = 0; i < INTENTS; i++) {
      const res = await call(d.url, 'POST', '/v1/intents', {
        token: dev.apiKey,
        body: { raw_query: `${tag} espresso grinder ${i}`, intent_tags: [tag] },
      });
      expect(res.status, res.text).toBe(201);
      intentIds.push(res.body.intent.intent_id);
    }
    const total = MERCHANTS * INTENTS;
    await eventually('deliveries in flight', async () => seen.length >= 12, 30_000, 20);

    temporal.process.kill('SIGKILL');
    await new Promise((r) => temporal.process.once('exit', r));
    const killedAt = Date.now();
    const atKill = seen.length;
    // The kill lands mid fan-out: deliveries in flight (the sink answers after 0.5 s), not yet recorded
    // delivered. (Sends seen are no measure of it: a page sends all its first attempts at once.)
    const deliveredAtKill = (
      await db.selectFrom('deliveries').select('delivery_id').where('intent_id', 'in', intentIds).where('state', '=', 'delivered').execute()
    ).length;
    // A caller creating an intent meanwhile gets it at once; its fan-out is the sweep's (every 30 s) once Temporal is back.
    const during = await call(d.url, 'POST', '/v1/intents', {
      token: dev.apiKey,
      body: { raw_query: 'a kettle, asked while Temporal is down' },
    });
    const duringMs = Date.now() - killedAt;
    expect(during.status, during.text).toBe(201);
    await sleep(Math.max(0, DOWN_MS - duringMs));
    // What Postgres holds as delivered when Temporal comes back: the rest is the restarted server's work.
    const deliveredAtRestart = (
      await db.selectFrom('deliveries').select('delivery_id').where('intent_id', 'in', intentIds).where('state', '=', 'delivered').execute()
    ).length;
    temporal = await startTemporal();
    const back = Date.now();

    const deliveries = await eventually(
      'every delivery settled',
      async () => {
        const rows = await db
          .selectFrom('deliveries')
          .select(['delivery_id', 'merchant_id', 'intent_id', 'state', 'replays'])
          .where('intent_id', 'in', intentIds)
          .execute();
        return rows.length === total && rows.every((r) => r.state === 'delivered' || r.state === 'dlq') ? rows : null;
      },
      60_000,
    );
    const settledMs = Date.now() - back;
    for (const w of d.workers) expect(w.child.exitCode, `worker exited:\n${w.stderrTail()}`).toBeNull();
    expect(deliveredAtKill).toBeLessThan(total);

    // None lost: every delivery delivered, to its own merchant.
    expect(deliveries.filter((r) => r.state !== 'delivered')).toEqual([]);
    const byId = new Map(deliveries.map((r) => [r.delivery_id, r]));
    const mine = seen.filter((s) => byId.has(s.webhookId));
    expect(new Set(mine.map((s) => s.webhookId)).size).toBe(total);
    for (const s of mine) expect(s.merchant).toBe(`/m${merchantIds.indexOf(byId.get(s.webhookId)!.merchant_id)}`);
    // One webhook-id per merchant and intent: a repeated request (at-least-once) carries the same id.
    for (const intentId of intentIds) {
      for (const [i, m] of merchantIds.entries()) {
        const ids = new Set(
          mine.filter((s) => s.merchant === `/m${i}` && byId.get(s.webhookId)!.intent_id === intentId).map((s) => s.webhookId),
        );
        expect(ids.size, `${m} / ${intentId}`).toBe(1);
      }
    }
    const repeats = mine.length - total;
    console.log(
      `[faults] Temporal SIGKILL mid fan-out: an intent created while down answered 201 in ${duringMs} ms; ${atKill}/${total} requests before the kill (${deliveredAtKill} recorded delivered), ${deliveredAtRestart} delivered at the restart, down ${back - killedAt} ms, ` +
        `all settled ${settledMs} ms after the restart; ${repeats} repeated request(s), same webhook-id`,
    );

    // The audit: each delivery's delivered attempt recorded once.
    const delivered = await db
      .selectFrom('delivery_attempts')
      .select(['delivery_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('outcome', '=', 'delivered')
      .where('delivery_id', 'in', [...byId.keys()])
      .groupBy('delivery_id')
      .execute();
    expect(delivered).toHaveLength(total);
    for (const row of delivered) expect(Number(row.n)).toBe(1);

    // Temporal agrees: every intent's fan-out Completed, and so did every delivery run (a delivery gets
    // one only when the fan-out's first attempt did not deliver it; none left running, none failed). A
    // page whose completion the dead server never received is re-run once its heartbeat times out and
    // finds its deliveries delivered: nothing is sent again.
    expect(deliveries.every((r) => r.replays === 0)).toBe(true);
    const ids = [...intentIds.map((id) => workflowIds.surge(id)), ...deliveries.map((r) => workflowIds.delivery(r.delivery_id, 0))];
    const statuses = await eventually(
      'every fan-out and delivery workflow closed',
      async () => {
        const all = await Promise.all(
          ids.map(async (id) => {
            const desc = await d.temporal.workflow
              .getHandle(id)
              .describe()
              .catch((err: unknown) => {
                if (err instanceof WorkflowNotFoundError && id.startsWith('delivery-')) return null; // delivered by the fan-out
                throw err;
              });
            return desc && ([id, desc.status.name, desc.closeTime?.getTime() ?? 0] as const);
          }),
        );
        const runs = all.filter((x) => x !== null);
        return runs.every(([, st]) => st !== 'RUNNING') ? runs : null;
      },
      60_000,
      1000,
    );
    console.log(
      `[faults] Temporal SIGKILL mid fan-out: every fan-out and delivery workflow closed ${Date.now() - back} ms after the restart`,
    );
    expect(statuses.filter(([, st]) => st !== 'COMPLETED')).toEqual([]);
    expect(statuses.filter(([id]) => id.startsWith('surge-'))).toHaveLength(INTENTS);
    // The kill landed mid fan-out: work was left for the restarted server (workflows that closed only
    // after the restart; their deliveries may have finished while it was down). Counted from the
    // server's exit, not from `back`: nothing closes while it is dead, and the worker may finish a
    // fan-out in the moment between the restarted server answering and `back` being taken.
    expect(statuses.filter(([, , closedAt]) => closedAt > killedAt).length, 'workflows closed after the restart').toBeGreaterThan(0);
    expect(seen.filter((s) => byId.has(s.webhookId))).toHaveLength(mine.length); // still nothing sent again
  }, 150_000);
});
