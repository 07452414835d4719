import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from 'kysely';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/store';
import { createDb, queryWithGenericPlan, type Db } from '../src/db/connect';
import { RequestLogWriter } from '../src/console/request-logs';
import { freePort } from '../src/net';
import net from 'node:net';

describe('buffered request logs', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(inject('databaseUrl'));
  });
  afterAll(() => db.destroy());

  const entry = (i: number, developer: string) => ({
    request_id: `req_unit_${developer}_${i}`,
    key_id: `key_${developer}`,
    developer_id: developer,
    channel: null,
    method: 'GET',
    path: '/v1/whoami',
    status_code: 200,
    duration_ms: 1,
    created_at: new Date(Date.now() + i),
  });
  const count = async (developer: string) =>
    (
      await db
        .selectFrom('request_logs')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('developer_id', '=', developer)
        .executeTakeFirstOrThrow()
    ).n;

  it('writes nothing on the request path, everything on close', async () => {
    const writer = new RequestLogWriter(db, { flushMs: 60_000 });
    for (let i = 0; i < 1234; i++) writer.push(entry(i, 'dev_unit_close'));
    // Batches of 500 are written as they fill; the rest waits for the timer or close().
    await new Promise((r) => setTimeout(r, 100));
    expect(writer.pending).toBe(234);
    await writer.close();
    expect(writer.pending).toBe(0);
    expect(await count('dev_unit_close')).toBe(1234);
  });

  it('keeps entries while Postgres is unreachable and writes them once it answers again', async () => {
    // The writer talks to Postgres through a loopback port that first refuses, then forwards.
    const target = new URL(inject('databaseUrl'));
    const port = await freePort();
    const viaProxy = Object.assign(new URL(target.toString()), { port: String(port) }).toString();
    const flaky = createDb(viaProxy, { max: 1 });
    const errors: unknown[] = [];
    const writer = new RequestLogWriter(flaky, { flushMs: 10, onError: (e) => errors.push(e) });
    writer.push(entry(1, 'dev_unit_retry'));
    writer.push(entry(2, 'dev_unit_retry'));
    await writer.flush();
    expect(errors.length).toBe(1);
    expect(writer.pending).toBe(2);

    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', () => r()));
    try {
      // The writer retries on its own timer; nothing was dropped.
      for (let i = 0; i < 50 && (await count('dev_unit_retry')) < 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await count('dev_unit_retry')).toBe(2);
      expect(writer.pending).toBe(0);
    } finally {
      await writer.close();
      await flaky.destroy();
      await new Promise((r) => proxy.close(r));
    }
  });
});

describe('queries with a generic plan', () => {
  it('run as named prepared statements on sessions forcing generic plans, with the same rows as a plain query', async () => {
    const db = createDb(inject('databaseUrl'));
    try {
      const mode = sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.compile(db);
      expect(await queryWithGenericPlan(db, mode)).toEqual([{ mode: 'force_generic_plan' }]);
      // The Db's own sessions keep the default, so queries that need their values planned get them.
      expect((await db.executeQuery(mode)).rows).toEqual([{ mode: 'auto' }]);

      const query = sql<{
        n: number;
        label: string;
      }>`select g as n, ${'item '}::text || g as label from generate_series(1, ${5}::int) g where g % ${2}::int = 1 order by g`.compile(db);
      const generic = await queryWithGenericPlan(db, query);
      expect(generic).toEqual([
        { n: 1, label: 'item 1' },
        { n: 3, label: 'item 3' },
        { n: 5, label: 'item 5' },
      ]);
      expect(generic).toEqual((await db.executeQuery(query)).rows);
      // Prepared once per session, then executed with its one generic plan (one at a time, the
      // calls reuse the same pooled session).
      await queryWithGenericPlan(db, query);
      const plans = sql<{
        generic_plans: string;
        custom_plans: string;
      }>`select generic_plans, custom_plans from pg_prepared_statements where statement = ${query.sql}`.compile(db);
      expect(await queryWithGenericPlan(db, plans)).toEqual([{ generic_plans: '2', custom_plans: '0' }]);
    } finally {
      await db.destroy();
    }
  });

  it('inside a transaction run on the transaction, as any query', async () => {
    const db = createDb(inject('databaseUrl'));
    try {
      const seen = await db.transaction().execute(async (trx) => {
        await sql`create temporary table generic_plan_probe (x int) on commit drop`.execute(trx);
        await sql`insert into generic_plan_probe values (7)`.execute(trx);
        return queryWithGenericPlan(trx, sql<{ x: number }>`select x from generic_plan_probe`.compile(trx));
      });
      expect(seen).toEqual([{ x: 7 }]);
    } finally {
      await db.destroy();
    }
  });
});

describe('document compression', () => {
  it('card documents, rankings and product snapshots are stored with lz4 where the server has it', async () => {
    const db = createDb(inject('databaseUrl'));
    try {
      const { rows } = await sql<{ column: string; compression: string }>`
        select attrelid::regclass || '.' || attname as column, attcompression::text as compression from pg_attribute
        where (attrelid, attname) in (('rec_cards'::regclass, 'document'), ('match_sessions'::regclass, 'ranked_proposals'), ('proposals'::regclass, 'product_snapshot'))
        order by 1`.execute(db);
      const lz4 = await sql`create temporary table lz4_probe (x text compression lz4)`.execute(db).then(
        () => true,
        () => false,
      );
      expect(rows).toEqual(
        ['match_sessions.ranked_proposals', 'proposals.product_snapshot', 'rec_cards.document'].map((column) => ({
          column,
          compression: lz4 ? 'l' : '',
        })),
      );
    } finally {
      await db.destroy();
    }
  });
});

describe('idempotency retention', () => {
  it('purges records older than 24 h and keeps newer ones', async () => {
    const db = createDb(inject('databaseUrl'));
    try {
      const row = (key: string, age: string) => ({
        owner_id: 'dev_unit_purge',
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
      await db
        .insertInto('idempotency_keys')
        .values([row('old', '25 hours'), row('new', '1 hour')])
        .execute();
      expect(await purgeExpiredIdempotencyKeys(db)).toBeGreaterThanOrEqual(1);
      const left = await db.selectFrom('idempotency_keys').select('idem_key').where('owner_id', '=', 'dev_unit_purge').execute();
      expect(left.map((r) => r.idem_key)).toEqual(['new']);
    } finally {
      await db.destroy();
    }
  });
});
