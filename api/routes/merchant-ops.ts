import * as S from '../../src/schemas/merchant-ops';
import { getMerchant } from '../../src/registry/merchants';
import { computeMerchantSla } from '../../src/supply/sla';
import { recordReputation } from '../../src/supply/reputation';
import { windowEndingAt } from '../../src/supply/window';
import { merchantToken } from './merchants';
import { auth, type RouteRegistry } from './registry';

const TAG = 'Supply operations';
const notFound: [number, string, string] = [404, 'merchant_not_found', 'No merchant agent with this id is registered.'];

export function merchantOpsRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/sla',
    tag: TAG,
    summary: 'Merchant SLA metrics',
    description:
      'Proposal response latency after Intent.Surge delivery, delivery success rate, proposal acceptance, on-time fulfillment and decision feedback counts over the last `days` days, each with its sample size n (a metric with n = 0 is null). Definitions in docs/SUPPLY-OPS.md. Operators (supply key) read any merchant; with an API key the call also needs the X-Merchant-Token of merchantId: a merchant reads its own SLA only.',
    auth: auth.supplyOrApiKeyAnd(
      'reports',
      'MerchantToken',
      merchantToken((ctx) => ctx.params.merchantId),
      [
        [401, 'missing_registration_token', 'An API key caller did not send X-Merchant-Token.'],
        [403, 'invalid_registration_token', 'X-Merchant-Token is not the registration token of merchantId.'],
      ],
    ),
    params: S.MerchantOpsParams,
    query: S.MerchantOpsQuery,
    invalidCode: 'invalid_query',
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'SLA metrics with sample sizes.', schema: S.MerchantSla } },
    errors: [notFound],
    handler: async (ctx, { params, query }) => {
      const merchant = await getMerchant(ctx.deps.db, params.merchantId);
      return { body: await computeMerchantSla(ctx.deps.db, merchant, windowEndingAt(new Date(), query.days)) };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/{merchantId}/reputation',
    tag: TAG,
    summary: 'Recompute merchant reputation',
    description:
      'Recomputes a 0..100 score from the SLA metrics, decision events and the trust scores of the merchant’s proposals over the last `days` days, stores it as a new snapshot and returns it with its basis (every component with value, n, weight and points), the earlier snapshots and the change against the previous one.',
    auth: auth.supply,
    params: S.MerchantOpsParams,
    query: S.MerchantOpsQuery,
    invalidCode: 'invalid_query',
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'The new snapshot, its history and trend.', schema: S.MerchantReputation } },
    errors: [notFound],
    handler: async (ctx, { params, query }) => {
      const merchant = await getMerchant(ctx.deps.db, params.merchantId);
      return { body: await recordReputation(ctx.deps.db, merchant, windowEndingAt(new Date(), query.days)) };
    },
  });
}
