import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { sql } from 'kysely';
import { createDb, type Db } from '../../src/db/connect';
import { migrateToLatest } from '../../src/db/migrate';
import { seedCatalog } from '../../src/catalog/seed';
import { startEmbeddedPostgres, type EmbeddedDb } from '../../src/dev/embedded-postgres';
import { freePort } from '../../src/net';
import { onboard, type Onboarded } from '../helpers/console';
import { call } from '../helpers/http';
import { stockedProduct } from '../helpers/catalog';
import { answersWithin } from '../helpers/deadline';
import { START_DEADLINE_MS } from '../../src/runtime/client';
import { proposingMerchant, eventually, letters, sleep, startDeployment, tryCall, type Deployment } from './deployment';

/**
 * Postgres stopped for 20 s under commerce-runtime traffic, on a cluster this file owns (embedded
 * Postgres), with the API and the worker as real processes. Every run must end terminal, the same in
 * Temporal and in Postgres, with one intent, at most one token and no proposal stored twice; every
 * caller gets an answer (503 while nothing could be stored, 202 + status URL once the run exists),
 * none is left hanging.
 */
const OUTAGE_MS = 20_000;
/** Each caller's `Prefer: wait`. */
const WAIT_S = 30;
/**
 * Twice the longest a caller may be held (its wait plus the workflow start's deadline): a caller still
 * waiting then was left hanging, whatever the load on the machine.
 */
const HUNG_AFTER_MS = 2 * (WAIT_S * 1000 + START_DEADLINE_MS);
let tmp: string;
let pg: EmbeddedDb;
let db: Db;
let d: Deployment;
let dev: Onboarded;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-faults-pg-'));
  pg = await startEmbeddedPostgres({ dir: path.join(tmp, 'pg'), port: await freePort(), database: 'faults' });
  db = createDb(pg.url, { max: 4 });
  await migrateToLatest(db);
  await seedCatalog(db, { products: 200, creators: 5, videos: 5 });
  d = await startDeployment({ databaseUrl: pg.url, temporalAddress: inject('temporalAddress') });
  dev = await onboard(d.url);
});
afterAll(async () => {
  await d?.close();
  await db?.destroy();
  await pg?.stop().catch(() => undefined);
  await rm(tmp, { recursive: true, force: true });
});

describe('Postgres stopped 20 s under runtime traffic', () => {
  it('every run ends terminal and consistent in Temporal and Postgres; nothing stored twice; no caller left hanging', async () => {
    const product = await stockedProduct(db);
    const tag = letters();
    const merchant = await proposingMerchant(product, 300);
    try {
      const reg = await call(d.url, 'POST', '/v1/merchant/register', {
        token: dev.apiKey,
        body: { merchant_id: `m-${tag}`, agent_endpoint: merchant.server.url, subscription_tags: [tag] },
      });
      expect(reg.status, reg.text).toBe(200);
      let n = 0;
      const start = () =>
        tryCall(d.url, 'POST', '/v1/commerce-runtime', {
          token: dev.apiKey,
          body: { intent: { raw_query: `${tag} headphones ${n++}`, intent_tags: [tag] } },
          headers: { prefer: `wait=${WAIT_S}` },
        });

      // Traffic before, through and after the outage: a run every 500 ms, each caller waiting up to 30 s.
      const calls: Array<Promise<Awaited<ReturnType<typeof start>> & { sentAt: number }>> = [];
      const t0 = Date.now();
      const send = () => {
        const sentAt = Date.now() - t0;
        calls.push(answersWithin(`the run sent at ${sentAt} ms`, start(), HUNG_AFTER_MS).then((r) => ({ ...r, sentAt })));
      };
      for (let i = 0; i < 4; i++, await sleep(500)) send();
      await pg.stop();
      const stoppedAt = Date.now() - t0;
      for (let i = 0; i < OUTAGE_MS / 1000; i++, await sleep(1000)) send();
      await pg.start();
      const back = Date.now() - t0;
      for (let i = 0; i < 4; i++, await sleep(500)) send();
      const answers = await Promise.all(calls);
      console.log(
        `[faults] Postgres down ${stoppedAt}-${back} ms; answers (sent at ms → status in ms): ${answers.map((a) => `${a.sentAt}→${a.status}/${a.ms}`).join(' ')}`,
      );
      for (const a of answers) {
        expect([201, 202, 503], a.text).toContain(a.status);
        if (a.status === 202) expect(a.body.status_url).toBe(`/v1/commerce-runtime/${a.body.runtime_id}`);
      }
      // Before and after the outage the runs complete for their callers.
      expect(
        answers.filter((a) => a.sentAt < stoppedAt - 1000 || a.sentAt > back + 3000).every((a) => a.status === 201 || a.status === 202),
      ).toBe(true);

      // Every stored run closes, the same in Postgres and in Temporal.
      const rows = await eventually(
        'every run closed',
        async () => {
          const r = await db.selectFrom('commerce_runtimes').selectAll().where('developer_id', '=', dev.developerId).execute();
          return r.every((x) => x.finished_at) ? r : null;
        },
        120_000,
        500,
      );
      expect(rows.length).toBeGreaterThanOrEqual(answers.filter((a) => a.status === 201 || a.status === 202).length);
      for (const a of answers.filter((x) => x.status === 201 || x.status === 202)) {
        const id = a.status === 201 ? a.body.runtime.runtime_session.runtime_id : a.body.runtime_id;
        expect(rows.map((r) => r.runtime_id)).toContain(id);
      }
      const stages = new Map<string, number>();
      for (const r of rows) {
        stages.set(`${r.stage}/${r.runtime_trace.audit_status}`, (stages.get(`${r.stage}/${r.runtime_trace.audit_status}`) ?? 0) + 1);
        expect(r.runtime_trace.audit_status).not.toBe('running');
        const wf = await d.temporal.workflow.getHandle(`runtime-${r.runtime_id}`).describe();
        if (r.stage === 'failed') expect(wf.status.name).toBe('FAILED');
        else expect(wf.status.name).toBe('COMPLETED');
        // One intent per run, at most one token, no proposal stored twice for a step.
        const intents = await db
          .selectFrom('intents')
          .select('intent_id')
          .where(sql<boolean>`workflow->>'runtime_id' = ${r.runtime_id}`)
          .execute();
        expect(intents.map((i) => i.intent_id)).toEqual([r.intent_id]);
        const proposals = await db
          .selectFrom('proposals')
          .select(sql<string>`metadata->>'runtime_step'`.as('step'))
          .where('intent_id', '=', r.intent_id!)
          .execute();
        expect(new Set(proposals.map((p) => p.step)).size).toBe(proposals.length);
        const sessions = await db.selectFrom('match_sessions').select('match_session_id').where('intent_id', '=', r.intent_id!).execute();
        expect(sessions.length).toBeLessThanOrEqual(1);
        const tokens = await db
          .selectFrom('match_tokens')
          .innerJoin('match_sessions', 'match_sessions.match_session_id', 'match_tokens.match_session_id')
          .select('match_token_id')
          .where('match_sessions.intent_id', '=', r.intent_id!)
          .execute();
        expect(tokens.length).toBeLessThanOrEqual(1);
        if (r.stage === 'awaiting_user_confirmation') expect(tokens.map((t) => t.match_token_id)).toEqual([r.match_token_id]);
        // The audit: one step per index, and the consumed counts add up to the steps.
        const steps = await db
          .selectFrom('commerce_runtime_steps')
          .select(['index', 'kind'])
          .where('runtime_id', '=', r.runtime_id)
          .orderBy('index')
          .execute();
        expect(steps.map((s) => s.index)).toEqual(steps.map((_, i) => i));
      }
      console.log(`[faults] Postgres outage: ${rows.length} runs, ended ${JSON.stringify([...stages])}`);
    } finally {
      await merchant.server.close();
    }
  }, 240_000);
});
