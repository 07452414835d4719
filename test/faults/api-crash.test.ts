import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { sql } from 'kysely';
import { createDb, type Db } from '../../src/db/connect';
import { onboard, type Onboarded } from '../helpers/console';
import { call } from '../helpers/http';
import { stockedProduct } from '../helpers/catalog';
import { answersWithin } from '../helpers/deadline';
import pg from 'pg';
import {
  buyable,
  checkoutBody,
  confirmBody,
  proposingMerchant,
  eventually,
  letters,
  orderMerchant,
  sleep,
  startDeployment,
  tryCall,
  type Deployment,
} from './deployment';

/**
 * The API SIGKILLed with keyed requests in flight, restarted, and every request retried with its
 * Idempotency-Key and body: each retry answers within seconds (once the dead claim's heartbeat is
 * stale the retry takes it over; before, it is told 409 idempotency_in_flight and retries shortly)
 * with the run the first attempt started; nothing exists twice
 * (intent, runtime, merchant query, match token) and every run ends consistent in Temporal and
 * Postgres.
 */
let d: Deployment;
let db: Db;
let dev: Onboarded;

beforeAll(async () => {
  d = await startDeployment({ databaseUrl: inject('databaseUrl'), temporalAddress: inject('temporalAddress') });
  db = createDb(inject('databaseUrl'), { max: 4 });
  dev = await onboard(d.url);
});
afterAll(async () => {
  await d?.close();
  await db?.destroy();
});

/**
 * What a client following the contract does with 409 `idempotency_in_flight` ("retry shortly"): sends
 * those requests again until the dead request's claim is taken over (its heartbeat stale). Bounded.
 */
async function settleInFlight<R extends { body?: any }>(answers: R[], again: (i: number) => Promise<R>): Promise<R[]> {
  for (let round = 0; round < 30 && answers.some((r) => r.body?.error === 'idempotency_in_flight'); round++) {
    await sleep(500);
    answers = await Promise.all(answers.map((r, i) => (r.body?.error === 'idempotency_in_flight' ? again(i) : r)));
  }
  return answers;
}

describe('API SIGKILL with keyed requests in flight', () => {
  it('retries answer within seconds with the same runtimes and intents; no intent, runtime, query or token twice', async () => {
    const product = await stockedProduct(db);
    const tag = letters();
    const merchantId = `m-${tag}`;
    // Holds every answer 1.2 s (well within the 3 s merchant deadline): the runtimes are mid-query when the API dies.
    const merchant = await proposingMerchant(product, 1200);
    try {
      const reg = await call(d.url, 'POST', '/v1/merchant/register', {
        token: dev.apiKey,
        body: { merchant_id: merchantId, agent_endpoint: merchant.server.url, subscription_tags: [tag] },
      });
      expect(reg.status, reg.text).toBe(200);

      const N = 6;
      const runtimeReq = (i: number) => ({
        key: `rt-${tag}-${i}`,
        body: { intent: { raw_query: `${tag} wireless headphones ${i}`, intent_tags: [tag] } },
      });
      const intentReq = (i: number) => ({
        key: `in-${tag}-${i}`,
        body: { raw_query: `${tag} water bottle ${i}`, intent_tags: [tag, 'bottle'] },
      });
      const send = (path: string, r: { key: string; body: unknown }) =>
        tryCall(d.url, 'POST', path, { token: dev.apiKey, body: r.body, headers: { 'idempotency-key': r.key, prefer: 'wait=20' } });

      const inFlight = [
        ...Array.from({ length: N }, (_, i) => send('/v1/commerce-runtime', runtimeReq(i))),
        ...Array.from({ length: N }, (_, i) => send('/v1/intents', intentReq(i))),
      ];
      // Every runtime has reached its merchant query (held 1.2 s): kill the API now.
      await eventually('all runtimes query the merchant', async () => merchant.requests.length >= N, 20_000, 50);
      await d.api.kill();
      const first = await Promise.all(inFlight);
      const cut = first.slice(0, N).filter((r) => r.status === 0).length;
      expect(cut, 'the runtime requests were cut by the kill').toBe(N);

      await d.startApi();
      // A retry that arrives while a dead claim's last heartbeat is under 2 s old (a quick restart) is
      // told 409 idempotency_in_flight, and retries shortly, as the contract says.
      // Answered within seconds, no lock wait: the deadline is half the 60 s a dead claim used to hold
      // its key, so missing it means the retries waited for the claim, not that the machine was slow.
      const retrying = Date.now();
      const again = (i: number) => (i < N ? send('/v1/commerce-runtime', runtimeReq(i)) : send('/v1/intents', intentReq(i - N)));
      const retries = await answersWithin(
        'the keyed retries after the restart',
        (async () => settleInFlight(await Promise.all(Array.from({ length: 2 * N }, (_, i) => again(i))), again))(),
        30_000,
      );
      console.log(`[faults] API SIGKILL: ${cut} runtime requests cut; retries answered within ${Date.now() - retrying} ms`);
      for (const r of retries.slice(0, N)) {
        expect(r.status, r.text).toBe(201);
        expect(r.body.runtime.runtime_session.stage).toBe('awaiting_user_confirmation');
      }
      for (const r of retries.slice(N)) expect(r.status, r.text).toBe(201);

      // One runtime per key: the retries answered the runs the first attempts started.
      const runtimeIds = retries.slice(0, N).map((r) => r.body.runtime.runtime_session.runtime_id as string);
      expect(new Set(runtimeIds).size).toBe(N);
      const rows = await db.selectFrom('commerce_runtimes').selectAll().where('developer_id', '=', dev.developerId).execute();
      expect(rows.map((r) => r.runtime_id).sort()).toEqual([...runtimeIds].sort());
      // The merchant was asked once per run: the takeover found the running workflow, not a new one.
      const queries = merchant.requests.filter((r) => r.body.type === 'runtime.query');
      expect(queries.length).toBe(N);
      expect([...merchant.byStep.values()].every((n) => n === 1)).toBe(true);
      expect(new Set(queries.map((r) => r.body.data.runtime_id))).toEqual(new Set(runtimeIds));
      // The keyed intents fan out to the same merchant (it subscribes to the tag): once each.
      const deliveries = await eventually(
        'one delivery per keyed intent',
        async () => {
          const got = merchant.requests.filter((r) => r.body.type !== 'runtime.query');
          return got.length >= N ? got : null;
        },
        30_000,
      );
      await sleep(1000);
      expect(merchant.requests.filter((r) => r.body.type !== 'runtime.query')).toHaveLength(N);
      expect(new Set(deliveries.map((r) => r.headers['webhook-id'])).size).toBe(N);

      // Intents: one per runtime and one per keyed create, whatever the kill interrupted.
      const intents = await db
        .selectFrom('intents')
        .select(['intent_id', 'raw_query'])
        .where('developer_id', '=', dev.developerId)
        .where(sql<boolean>`${tag} = any(intent_tags)`)
        .execute();
      expect(intents).toHaveLength(2 * N);
      expect(new Set(intents.map((i) => i.raw_query)).size).toBe(2 * N);
      const intentIds = retries.slice(N).map((r) => r.body.intent.intent_id as string);
      for (const id of intentIds) expect(intents.map((i) => i.intent_id)).toContain(id);

      // One match token per run, each run terminal in both Postgres and Temporal, audit complete.
      for (const id of runtimeIds) {
        const rt = (await call(d.url, 'GET', `/v1/commerce-runtime/${id}`, { token: dev.apiKey })).body.runtime;
        expect(rt.runtime_session.finished_at).not.toBeNull();
        expect(
          rt.agent_steps.map((s: any) => s.kind),
          JSON.stringify(rt.agent_steps.map((s: any) => [s.kind, s.status, s.error])),
        ).toEqual(['resolve_intent', 'merchant_query', 'rank', 'mint_token']);
        expect(rt.runtime_trace.consumed).toEqual({ iterations: 4, merchant_queries: 1, proposal_versions: 1 });
        const tokens = await db
          .selectFrom('match_tokens')
          .innerJoin('match_sessions', 'match_sessions.match_session_id', 'match_tokens.match_session_id')
          .select('match_token_id')
          .where('match_sessions.intent_id', '=', rt.intent.intent_id)
          .execute();
        expect(tokens.map((t) => t.match_token_id)).toEqual([rt.match_token.match_token_id]);
        const wf = await d.temporal.workflow.getHandle(`runtime-${id}`).describe();
        expect(wf.status.name).toBe('COMPLETED');
      }

      // And later retries replay the stored answer.
      const replay = await send('/v1/commerce-runtime', runtimeReq(0));
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.runtime.runtime_session.runtime_id).toBe(runtimeIds[0]);
    } finally {
      await merchant.server.close();
    }
  }, 120_000);
});

/**
 * Holds the keyed requests' answers back until the API is killed *after* their work committed: the
 * tables they create rows in are locked (SHARE: reads pass, inserts wait) until every claim is in;
 * then the claim rows are locked (the answer cannot be stored), the tables released, the resources
 * committed, and the API SIGKILLed. The worst moment: done, but nobody was told.
 */
async function killAfterCommit<T>(keys: string[], tables: string[], committed: () => Promise<boolean>, send: () => Promise<T>): Promise<T> {
  const tableLock = new pg.Client({ connectionString: inject('databaseUrl') });
  const claimLock = new pg.Client({ connectionString: inject('databaseUrl') });
  await Promise.all([tableLock.connect(), claimLock.connect()]);
  try {
    await tableLock.query('begin');
    await tableLock.query(`lock table ${tables.join(', ')} in share mode`);
    const inFlight = send();
    await eventually(
      'every claim taken',
      async () => {
        const r = await db
          .selectFrom('idempotency_keys')
          .select('idem_key')
          .where('owner_id', '=', dev.developerId)
          .where('idem_key', 'in', keys)
          .execute();
        return r.length === keys.length;
      },
      20_000,
      50,
    );
    await claimLock.query('begin');
    const claimPid = (await claimLock.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    await claimLock.query('select 1 from idempotency_keys where owner_id = $1 and idem_key = any($2) for update', [dev.developerId, keys]);
    await tableLock.query('commit');
    await eventually('every create committed', committed, 30_000, 50);
    await sleep(300); // the API reaches the (blocked) storing of its answers
    await d.api.kill();
    // The dead process's statements still queued behind the claim lock would run once it is released
    // (Postgres notices the closed socket only when it answers): end them, as if the process had died
    // before sending them, so that no answer gets stored.
    await tableLock.query('select pg_terminate_backend(pid) from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [claimPid]);
    await claimLock.query('rollback');
    return await inFlight;
  } finally {
    await tableLock.end();
    await claimLock.end();
  }
}

describe('API SIGKILL after keyed creates committed, before they were answered', () => {
  it('retries answer the merchant, match session, proposal and checkout the first run created, with usable credentials; one order each at the merchant', async () => {
    const product = await stockedProduct(db);
    const tag = letters();
    const merchant = await orderMerchant();
    try {
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        tryCall(d.url, 'POST', path, { token: dev.apiKey, body, headers });
      const seller = await post('/v1/merchant/register', { merchant_id: `m-${tag}`, agent_endpoint: merchant.url });
      expect(seller.status, seller.text).toBe(200);
      const forSessions = await Promise.all(
        [0, 1].map(() => buyable(d.url, dev.apiKey, { id: `m-${tag}`, token: seller.body.registration_token }, product)),
      );
      const forCheckouts = await Promise.all(
        [0, 1].map(() => buyable(d.url, dev.apiKey, { id: `m-${tag}`, token: seller.body.registration_token }, product)),
      );

      // Keyed: two merchant registrations, two match sessions (each intent has the one `buyable` made), two checkout creates.
      const reg = (i: number) => ({
        path: '/v1/merchant/register',
        key: `reg-${tag}-${i}`,
        body: { merchant_id: `m-${tag}-${i}`, agent_endpoint: merchant.url },
      });
      const ms = (i: number) => ({
        path: '/v1/match',
        key: `ms-${tag}-${i}`,
        body: { intent_id: forSessions[i]!.intentId, proposal_ids: [forSessions[i]!.proposalId] },
      });
      const chk = (i: number) => ({ path: '/v1/agentic-checkout', key: `chk-${tag}-${i}`, body: checkoutBody(forCheckouts[i]!) });
      const prop = (i: number) => ({
        path: '/v1/proposals',
        key: `prop-${tag}-${i}`,
        headers: { 'x-merchant-token': seller.body.registration_token as string },
        body: {
          merchant_agent_id: `m-${tag}`,
          intent_id: forSessions[i]!.intentId,
          product_id: product.product_id,
          offer_title: 'Trail bottle, second offer',
          price: product.price_cents / 100,
        },
      });
      const requests: Array<{ path: string; key: string; body: unknown; headers?: Record<string, string> }> = [
        reg(0),
        reg(1),
        ms(0),
        ms(1),
        chk(0),
        chk(1),
        prop(0),
        prop(1),
      ];
      const send = () => Promise.all(requests.map((r) => post(r.path, r.body, { ...r.headers, 'idempotency-key': r.key })));
      const merchantsOf = () => db.selectFrom('merchants').select('merchant_id').where('merchant_id', 'like', `m-${tag}-%`).execute();
      const sessionsOf = () =>
        db
          .selectFrom('match_sessions')
          .select('match_session_id')
          .where(
            'intent_id',
            'in',
            forSessions.map((g) => g.intentId),
          )
          .execute();
      const proposalsOf = () =>
        db
          .selectFrom('proposals')
          .select('proposal_id')
          .where(
            'intent_id',
            'in',
            forSessions.map((g) => g.intentId),
          )
          .execute();
      const checkoutsOf = () =>
        db
          .selectFrom('agentic_checkouts')
          .select('checkout_id')
          .where(
            'intent_id',
            'in',
            forCheckouts.map((g) => g.intentId),
          )
          .execute();
      const cut = await killAfterCommit(
        requests.map((r) => r.key),
        ['merchants', 'match_sessions', 'agentic_checkouts', 'proposals'],
        async () =>
          (await merchantsOf()).length === 2 &&
          (await sessionsOf()).length === 4 &&
          (await checkoutsOf()).length === 2 &&
          (await proposalsOf()).length === 4,
        send,
      );
      expect(cut.map((r) => r.status)).toEqual(requests.map(() => 0));
      const planned = (await checkoutsOf()).map((c) => c.checkout_id).sort();
      const sessionsBefore = (await sessionsOf()).map((s) => s.match_session_id).sort();
      const proposalsBefore = (await proposalsOf()).map((p) => p.proposal_id).sort();

      await d.startApi();
      const t0 = Date.now();
      const retried = await settleInFlight(await send(), (i) => {
        const r = requests[i]!;
        return post(r.path, r.body, { ...r.headers, 'idempotency-key': r.key });
      });
      console.log(`[faults] keyed creates committed before an API SIGKILL: retries answered within ${Date.now() - t0} ms`);
      const [regs, sessions, created, proposals] = [retried.slice(0, 2), retried.slice(2, 4), retried.slice(4, 6), retried.slice(6)];
      // Taken over, not replayed: the kill left no answer stored.
      for (const r of retried) expect(r.headers.get('idempotent-replayed'), r.text).toBeNull();

      // Registration: created (as the first run would have said), with credentials that work.
      for (const r of regs) expect(r.status, r.text).toBe(200);
      expect(regs.map((r) => r.body.created)).toEqual([true, true]);
      for (const [i, r] of regs.entries()) {
        const beat = await post(
          '/v1/merchant/heartbeat',
          { merchant_id: `m-${tag}-${i}` },
          { 'x-merchant-token': r.body.registration_token },
        );
        expect(beat.status, beat.text).toBe(200);
      }
      expect(await merchantsOf()).toHaveLength(2);
      // Match sessions: the ones the first run stored, none added.
      for (const r of sessions) expect(r.status, r.text).toBe(201);
      expect(sessions.map((r) => r.body.match_session.match_session_id).every((id) => sessionsBefore.includes(id))).toBe(true);
      expect((await sessionsOf()).map((s) => s.match_session_id).sort()).toEqual(sessionsBefore);
      // Proposals: the ones the first run stored.
      for (const r of proposals) expect(r.status, r.text).toBe(201);
      expect(proposals.map((r) => r.body.proposal.proposal_id).every((id) => proposalsBefore.includes(id))).toBe(true);
      expect((await proposalsOf()).map((p) => p.proposal_id).sort()).toEqual(proposalsBefore);
      // Checkouts: the ids the first run planned; nothing planned twice; each workflow waits for its confirm.
      for (const r of created) expect(r.status, r.text).toBe(201);
      expect(created.map((r) => r.body.checkout.checkout_id).sort()).toEqual(planned);
      expect(await checkoutsOf()).toHaveLength(2);
      for (const id of planned) expect((await d.temporal.workflow.getHandle(`checkout-${id}`).describe()).status.name).toBe('RUNNING');
      // A later retry replays the stored answer.
      const replay = await post(reg(0).path, reg(0).body, { 'idempotency-key': reg(0).key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.registration_token).toBe(regs[0]!.body.registration_token);

      // Each confirmed: one order per checkout at the merchant, terminal in Postgres and Temporal, planned and handed off once.
      for (const [i, g] of forCheckouts.entries()) {
        const id = created[i]!.body.checkout.checkout_id as string;
        const confirmed = await post(`/v1/agentic-checkout/${id}/confirm`, confirmBody(g), { prefer: 'wait=30' });
        expect(confirmed.status, confirmed.text).toBe(200);
        expect(confirmed.body.checkout.status).toBe('confirmed');
        await eventually(
          `checkout-${id} completed`,
          async () => (await d.temporal.workflow.getHandle(`checkout-${id}`).describe()).status.name === 'COMPLETED',
          10_000,
        );
        const row = await db
          .selectFrom('agentic_checkouts')
          .select(['status', 'audit_trail'])
          .where('checkout_id', '=', id)
          .executeTakeFirstOrThrow();
        expect(row.status).toBe('confirmed');
        const steps = (row.audit_trail as Array<{ step: string }>).map((a) => a.step);
        expect(steps.filter((s) => s === 'plan_created')).toHaveLength(1);
        expect(steps.filter((s) => s.startsWith('merchant_handoff_attempt_'))).toHaveLength(1);
      }
      expect([...merchant.orders.keys()].sort()).toEqual(planned);
      expect(merchant.requests).toHaveLength(2);
    } finally {
      await merchant.server.close();
    }
  }, 90_000);
});

describe('API SIGKILL after a keyed decision event and a keyed console key creation committed, before they were answered', () => {
  it('retries answer the events and the key the first run stored: none twice, and the key works with the secret the retry shows', async () => {
    const tag = letters();
    const intent = await call(d.url, 'POST', '/v1/intents', { token: dev.apiKey, body: { raw_query: `${tag} trail running shoes` } });
    expect(intent.status, intent.text).toBe(201);
    const intentId = intent.body.intent.intent_id as string;
    const label = `crash-${tag}`;
    const requests = [
      ...[0, 1].map((i) => ({
        path: '/v1/decision-events',
        key: `fb-${tag}-${i}`,
        token: dev.apiKey,
        body: { event_type: 'click', intent_id: intentId, agent_id: `shopper-${tag}-${i}` },
      })),
      // The console creates with the developer session token: the developer owns this key as well.
      { path: '/v1/developers/keys', key: `key-${tag}`, token: dev.developerToken, body: { label, scopes: ['match'] } },
    ];
    const send = () =>
      Promise.all(
        requests.map((r) => tryCall(d.url, 'POST', r.path, { token: r.token, body: r.body, headers: { 'idempotency-key': r.key } })),
      );
    const eventsOf = () => db.selectFrom('decision_events').select('feedback_id').where('intent_id', '=', intentId).execute();
    const keysOf = () =>
      db
        .selectFrom('api_keys')
        .select(['key_id', 'key_hash'])
        .where('developer_id', '=', dev.developerId)
        .where('label', '=', label)
        .execute();

    const cut = await killAfterCommit(
      requests.map((r) => r.key),
      ['decision_events', 'api_keys'],
      async () => (await eventsOf()).length === 2 && (await keysOf()).length === 1,
      send,
    );
    expect(cut.map((r) => r.status)).toEqual(requests.map(() => 0));
    const eventsBefore = (await eventsOf()).map((e) => e.feedback_id).sort();
    const [keyBefore] = await keysOf();

    await d.startApi();
    const t0 = Date.now();
    const retried = await settleInFlight(await send(), (j) => {
      const q = requests[j]!;
      return tryCall(d.url, 'POST', q.path, { token: q.token, body: q.body, headers: { 'idempotency-key': q.key } });
    });
    console.log(
      `[faults] keyed decision events and key creation committed before an API SIGKILL: retries answered within ${Date.now() - t0} ms`,
    );
    const [events, [created]] = [retried.slice(0, 2), retried.slice(2)];
    for (const r of events) expect(r.status, r.text).toBe(201);
    for (const r of retried) expect(r.headers.get('idempotent-replayed'), 'taken over, not replayed: no answer was stored').toBeNull();
    expect(events.map((r) => r.body.decision_event.feedback_id).sort()).toEqual(eventsBefore);
    expect((await eventsOf()).map((e) => e.feedback_id).sort()).toEqual(eventsBefore);

    expect(created!.status, created!.text).toBe(201);
    expect(created!.body.key.key_id).toBe(keyBefore!.key_id);
    const keysAfter = await keysOf();
    expect(keysAfter.map((k) => k.key_id)).toEqual([keyBefore!.key_id]);
    // The first secret was never shown to anyone: the retry's replaces it, and works.
    expect(keysAfter[0]!.key_hash).not.toBe(keyBefore!.key_hash);
    expect((await call(d.url, 'GET', '/v1/whoami', { token: created!.body.api_key })).status).toBe(200);
    const replay = await tryCall(d.url, 'POST', requests[2]!.path, {
      token: dev.developerToken,
      body: requests[2]!.body,
      headers: { 'idempotency-key': requests[2]!.key },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(created!.body);
  }, 60_000);
});
