import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, TEST_SUPPLY_KEY, type TestApi } from './helpers/stack';
import { fromMinorUnits } from '../src/money';

/**
 * One money module for every currency: a price in yen has no minor units and one in Kuwaiti dinar
 * has three, and both must come back out of proposal, match token, payment authorization and the
 * settlement preview as the amount that went in.
 */

let api: TestApi;
let dev: Onboarded;
let productId: number;
const uid = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(api.url, 'POST', path, { token: dev.apiKey, body, headers });

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'true' } });
  dev = await onboard(api.url);
  // A product from the top of the seeded range that other files do not single out.
  productId = 17_500 + Math.floor(Math.random() * 2_000);
});
afterAll(() => api.close());

describe('a non-USD price through proposal, token, payment authorization and settlement', () => {
  for (const { currency, price, minor, commission } of [
    { currency: 'JPY', price: 2400, minor: 2400, commission: 240 },
    { currency: 'KWD', price: 12.345, minor: 12345, commission: 1235 },
  ]) {
    it(`${currency} ${price} round-trips`, async () => {
      const merchantId = uid(`money-${currency.toLowerCase()}`);
      const reg = await post('/v1/merchant/register', { merchant_id: merchantId, agent_endpoint: 'http://127.0.0.1:9/hook' });
      expect(reg.status, reg.text).toBe(200);
      const intent = await post('/v1/intents', { raw_query: `matcha whisk set ${uid('q')}`, budget_range: { max: price * 2, currency } });
      expect(intent.status, intent.text).toBe(201);
      expect(intent.body.intent.budget_range).toMatchObject({ max: price * 2, currency });
      const intentId = intent.body.intent.intent_id;

      const prop = await post(
        '/v1/proposals',
        {
          merchant_agent_id: merchantId,
          intent_id: intentId,
          product_id: productId,
          offer_title: 'Whisk set',
          price,
          currency,
          commission_plan: { model: 'cps', rate: 0.1 },
        },
        { 'x-merchant-token': reg.body.registration_token },
      );
      expect(prop.status, prop.text).toBe(201);
      expect(prop.body.proposal).toMatchObject({ price, currency });
      const stored = await api.db
        .selectFrom('proposals')
        .select(['price_cents', 'currency'])
        .where('proposal_id', '=', prop.body.proposal.proposal_id)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ price_cents: minor, currency });

      const session = await post('/v1/match', { intent_id: intentId });
      expect(session.status, session.text).toBe(201);
      const ranked = session.body.match_session.ranked_proposals ?? session.body.ranked_proposals;
      expect(JSON.stringify(ranked ?? session.body)).toContain(`"price":${price}`);
      const accepted = await post(`/v1/match/${session.body.match_session.match_session_id}/accept`, {});
      expect(accepted.status, accepted.text).toBe(200);
      const token = accepted.body.match_token;
      expect(token).toMatchObject({ amount: price, currency });
      expect(decodeJwt(token.signed_token)).toMatchObject({ amount: price, currency });

      const path = `/v1/match-tokens/${token.match_token_id}/payment-authorization`;
      // A price read as cents (×100) would not match.
      expect((await post(path, { expected_amount: minor / 100, currency })).body.error).toBe('amount_mismatch');
      const auth = await post(path, { expected_amount: price, currency: currency.toLowerCase() });
      expect(auth.status, auth.text).toBe(200);
      expect(auth.body.payment_authorization).toMatchObject({ status: 'authorized', amount: price, currency });
      const authRow = await api.db
        .selectFrom('payment_authorizations')
        .select(['amount_cents', 'currency'])
        .where('match_token_id', '=', token.match_token_id)
        .executeTakeFirstOrThrow();
      expect(authRow).toEqual({ amount_cents: minor, currency });

      // The platform reports the order under the match token; the preview bills it in its currency.
      await api.db
        .insertInto('affiliate_orders')
        .values({
          order_id: uid('order'),
          match_token_id: token.match_token_id,
          amount_cents: minor,
          currency,
          status: 'completed',
          ordered_at: new Date(Date.now() - 60_000),
          import_batch: uid('money-test'),
        })
        .execute();
      const preview = await call(api.url, 'POST', '/v1/billing/settlement-preview', {
        headers: { 'x-supply-key': TEST_SUPPLY_KEY },
        body: { merchant_id: merchantId, currency },
      });
      expect(preview.status, preview.text).toBe(200);
      const line = preview.body.line_items.find((l: { type: string }) => l.type === 'commission');
      expect(line).toMatchObject({ amount_cents: commission, basis: 'proposal_plan' });
      expect(preview.body.totals).toMatchObject({ gmv_cents: minor, commission_cents: commission, currency });
      expect(preview.body.totals.total).toBe(fromMinorUnits(preview.body.totals.total_cents, currency));
    });
  }
});
