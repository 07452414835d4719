import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';
import { stockedProduct } from './helpers/catalog';
import { recordStatements } from './helpers/statements';
import { benchMerchants, type BenchMerchants } from '../bench/merchant-agents';

/**
 * What a commerce runtime costs Postgres on the worker side (docs/BENCHMARKS.md, "Throughput under
 * load"): every statement the worker's activities send, counted per activity, for the benchmark's
 * run (three merchants each answering one proposal at catalog price). Each statement is a round trip
 * and, outside a transaction, a commit; under load they were the worker's main cost. The ceiling
 * keeps the count from creeping back; `RUNTIME_COST_PRINT=1` prints the statements.
 */
const ENV = { ALLOW_PRIVATE_ENDPOINTS: 'true' };
/**
 * Statements of the worker's activities per runtime of the benchmark's shape (resolve with 3 queries,
 * rank with a mint that finishes the run); 77 at first, 28 before the queries took the intent and
 * merchant rows their resolve step had read.
 */
const WORKER_STATEMENTS_CEILING = 26;

let api: TestApi;
let dev: Onboarded;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let merchants: BenchMerchants;
let statements: ReturnType<typeof recordStatements>;

beforeAll(async () => {
  api = await startTestApi({ env: ENV });
  dev = await onboard(api.url);
  const product = await stockedProduct(api.db);
  merchants = benchMerchants(() => product, 0);
  const tag = `cost${Math.random().toString(36).slice(2, 8)}`;
  for (const name of ['a', 'b', 'c']) {
    const res = await call(api.url, 'POST', '/v1/merchant/register', {
      token: dev.apiKey,
      body: { merchant_id: `m-${tag}-${name}`, agent_endpoint: await merchants.add(), subscription_tags: [tag] },
    });
    expect(res.status, res.text).toBe(200);
  }
  (globalThis as { costTag?: string }).costTag = tag;
  worker = await startTestWorker({ ...api.config, publicBaseUrl: api.url }, api.db);
  statements = recordStatements();
});

afterAll(async () => {
  statements?.restore();
  await worker?.stop();
  merchants?.close();
  await api?.close();
});

describe('commerce runtime: Postgres statements per run', () => {
  it(`the benchmark's runtime (3 merchants) sends at most ${WORKER_STATEMENTS_CEILING} statements from the worker`, async () => {
    const tag = (globalThis as { costTag?: string }).costTag!;
    const run = async () => {
      const res = await call(api.url, 'POST', '/v1/commerce-runtime', {
        token: dev.apiKey,
        body: { intent: { raw_query: `${tag} wireless headphones`, intent_tags: [tag] } },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.runtime.runtime_session.stage).toBe('awaiting_user_confirmation');
      // Finished by its mint step (patch runtime-mint-finishes): the row's end is written all the same.
      expect(res.body.runtime.runtime_session.finished_at).not.toBeNull();
      expect(res.body.runtime.runtime_trace).toMatchObject({ audit_status: 'completed', current_step: 5 });
      expect(res.body.runtime.agent_steps.map((s: { kind: string; status: string }) => `${s.kind}:${s.status}`)).toEqual([
        'resolve_intent:succeeded',
        'merchant_query:succeeded',
        'merchant_query:succeeded',
        'merchant_query:succeeded',
        'rank:succeeded',
        'mint_token:succeeded',
      ]);
    };
    // The first run warms the worker's caches (signing keys, catalog snapshot): the second is counted.
    await run();
    statements.counting = true;
    await run();
    statements.counting = false;
    // Counted only inside an activity (the API shares the process and the pool).
    const seen = statements.seen.filter((s) => s.where !== 'api').map((s) => ({ activity: s.where, text: s.text }));
    const perActivity = new Map<string, number>();
    for (const s of seen) perActivity.set(s.activity, (perActivity.get(s.activity) ?? 0) + 1);
    // Commits: a statement outside a transaction is one, a transaction (begin … commit) is one.
    let commits = 0;
    let inTransaction = false;
    for (const s of seen) {
      const t = s.text.trim().toLowerCase();
      if (t === 'begin') inTransaction = true;
      else if (t === 'commit' || t === 'rollback') {
        inTransaction = false;
        commits++;
      } else if (!inTransaction) commits++;
    }
    if (process.env.RUNTIME_COST_PRINT) {
      console.log(`worker statements per runtime: ${seen.length}, commits: ${commits}`, Object.fromEntries(perActivity));
      for (const s of seen) console.log(`${s.activity}: ${s.text.replace(/\s+/g, ' ').slice(0, 220)}`);
    }
    expect(seen.length).toBeLessThanOrEqual(WORKER_STATEMENTS_CEILING);
  });
});
