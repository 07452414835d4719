import { mkdtemp, rm } from 'node:fs/promises';
import { SURGE_START_DEADLINE_MS } from '../src/dispatch/client';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { startEmbeddedPostgres, type EmbeddedDb } from '../src/dev/embedded-postgres';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { freePort } from '../src/net';
import { call, waitForHealth } from './helpers/http';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { onboard } from './helpers/console';
import { answersWithin } from './helpers/deadline';

/** /healthz against dependencies this file owns, so it can stop and restart them for real. */

/**
 * /healthz answers within 2 s (each check has 1.5 s), a new intent within SURGE_START_WAIT_MS (1 s) of
 * its fan-out start (which gives up by SURGE_START_DEADLINE_MS). These are the deadlines of waits, so
 * a test only makes sure they hold at all: an answer past twice the longest of them is a hang, not a
 * slow machine.
 */
const HUNG_AFTER_MS = 2 * SURGE_START_DEADLINE_MS;
let tmp: string;
let pg: EmbeddedDb;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-health-'));
  pg = await startEmbeddedPostgres({ dir: path.join(tmp, 'pg'), port: await freePort(), database: 'health' });
});
afterAll(async () => {
  await pg?.stop().catch(() => {});
  await rm(tmp, { recursive: true, force: true });
});

describe('GET /healthz', () => {
  it('200 when both answer; 503 while Postgres is stopped; 200 again once it is back', async () => {
    const db = createDb(pg.url, { max: 2 });
    await migrateToLatest(db);
    const api: TestApi = await startTestApi({ db, env: { DATABASE_URL: pg.url } });
    try {
      const ok = await call(api.url, 'GET', '/healthz');
      expect(ok.status).toBe(200);
      // No worker polls this API's (fresh) task queue: reported, without failing the check.
      expect(ok.body).toEqual({ status: 'ok', db: 'ok', temporal: 'ok', worker: 'unavailable', pollers: { workflow: 0, activity: 0 } });
      expect(ok.headers.get('cache-control')).toBe('no-store');

      await pg.stop();
      const down = await waitForHealth(api.url, 503);
      expect(down.body).toMatchObject({ status: 'unavailable', db: 'unavailable', temporal: 'ok', worker: 'unavailable' });
      // Its checks have deadlines: answered while Postgres refuses.
      expect((await answersWithin('/healthz with Postgres stopped', call(api.url, 'GET', '/healthz'), HUNG_AFTER_MS)).status).toBe(503);

      await pg.start();
      const back = await waitForHealth(api.url, 200);
      expect(back.body.db).toBe('ok');
    } finally {
      await api.close();
      await db.destroy();
    }
  });

  it('503 with temporal unavailable while the Temporal server is down', async () => {
    const port = await freePort();
    const dbFile = path.join(tmp, 'temporal.db');
    let server: DevServer = await startDevServer({ port, dbFile, install: true });
    const api = await startTestApi({ env: { TEMPORAL_ADDRESS: server.address } });
    try {
      expect((await call(api.url, 'GET', '/healthz')).status).toBe(200);
      await server.stop();
      const down = await waitForHealth(api.url, 503);
      expect(down.body).toEqual({ status: 'unavailable', db: 'ok', temporal: 'unavailable', worker: 'unavailable', pollers: null });
      expect((await answersWithin('/healthz with Temporal stopped', call(api.url, 'GET', '/healthz'), HUNG_AFTER_MS)).status).toBe(503);
      // An intent is answered while Temporal is away (its fan-out start is waited for at most
      // SURGE_START_WAIT_MS); the sweep starts its fan-out later.
      const dev = await onboard(api.url);
      const t1 = Date.now();
      const intent = await answersWithin(
        'an intent with Temporal stopped',
        call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, body: { raw_query: 'a tent for two while temporal is down' } }),
        HUNG_AFTER_MS,
      );
      expect(intent.status, intent.text).toBe(201);
      const row = await api.db
        .selectFrom('intents')
        .select('surge_started_at')
        .where('intent_id', '=', intent.body.intent.intent_id)
        .executeTakeFirstOrThrow();
      expect(row.surge_started_at).toBeNull();
      server = await startDevServer({ port, dbFile, install: true });
      await waitForHealth(api.url, 200, 30_000);
      // The fan-out start gave up at its deadline; its last retry (the client backs off up to 6 s) has run
      // before the API closes its Temporal connection, so no retry fires on a closed channel.
      await new Promise((r) => setTimeout(r, Math.max(0, t1 + SURGE_START_DEADLINE_MS + 8_000 - Date.now())));
    } finally {
      await api.close();
      await server.stop();
    }
  });

  it('worker ok while a worker polls the task queue', async () => {
    const api = await startTestApi();
    const worker = await startTestWorker(api.config, api.db);
    try {
      let body;
      for (let i = 0; i < 40; i++) {
        body = (await call(api.url, 'GET', '/healthz')).body;
        // The workflow and the activity pollers start one after the other: wait for both.
        if (body.worker === 'ok' && body.pollers?.workflow > 0 && body.pollers?.activity > 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(body).toMatchObject({ status: 'ok', worker: 'ok' });
      expect(body.pollers.workflow).toBeGreaterThan(0);
      expect(body.pollers.activity).toBeGreaterThan(0);
    } finally {
      await worker.stop();
      await api.close();
    }
  });
});
