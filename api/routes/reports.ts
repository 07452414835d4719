import { AttributionQuery, AttributionReport, SettlementPreview, SettlementPreviewBody } from '../../src/schemas/reports';
import { attributionReport } from '../../src/supply/attribution';
import { settlementPreview } from '../../src/supply/settlement';
import { auth, type RouteRegistry } from './registry';
import { bodyMember, merchantToken } from './merchants';

const TAG = 'Supply operations';

export function reportRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/v1/report/attribution',
    tag: TAG,
    summary: 'Attribution ROI report',
    description:
      "Impressions (issued cards), clicks (CTA redirects), match tokens, payment authorizations and attributed orders with GMV, commission and ROI over the last `days`, in total, per channel and for the top products. Orders join on rec_id, then match token, then checkout; refunded and cancelled orders are excluded; amounts are per currency. The response lists the join rules; docs/REPORTS.md explains them. With the supply key the report is platform-wide; with an API key (scope reports) it counts that key's developer's traffic only (scope: developer), and unattributed orders, which belong to no developer, are 0.",
    auth: auth.supplyOrApiKey('reports'),
    query: AttributionQuery,
    invalidCode: 'invalid_query',
    responses: { 200: { description: 'The attribution report.', schema: AttributionReport } },
    handler: async (ctx, { query }) => ({
      body: await attributionReport(
        ctx.deps.db,
        query,
        ctx.state.supply ? { platform: true } : { developerId: ctx.state.apiKey?.developerId ?? null },
      ),
    }),
  });

  r.add({
    method: 'post',
    path: '/v1/billing/settlement-preview',
    tag: TAG,
    summary: 'Billing settlement preview',
    description:
      "What a merchant would be billed for the window: commission on each attributed order (the order's own commission or plan, else the proposal's plan, else the merchant's metadata.billing.commission_plan), a fee per qualified lead and per accepted match. Counts and orders not given in the body are computed from the database. Nothing is stored or billed. Operators (supply key) preview any merchant; with an API key the call also needs the X-Merchant-Token of merchant_id: a merchant previews its own settlement only.",
    auth: auth.supplyOrApiKeyAnd('reports', 'MerchantToken', merchantToken(bodyMember('merchant_id')), [
      [400, 'missing_fields', 'merchant_id is missing (checked with the registration token, before the body).'],
      [401, 'missing_registration_token', 'An API key caller did not send X-Merchant-Token.'],
      [403, 'invalid_registration_token', 'X-Merchant-Token is not the registration token of merchant_id.'],
    ]),
    body: SettlementPreviewBody,
    bodyRequired: true,
    missingFields: ['merchant_id'],
    missingCode: 'invalid_payload',
    invalidCode: 'invalid_payload',
    responses: { 200: { description: 'The settlement preview (preview: true).', schema: SettlementPreview } },
    errors: [[404, 'merchant_not_found', 'No merchant with this merchant_id.']],
    handler: async (ctx, { body }) => ({ body: await settlementPreview(ctx.deps.db, ctx.deps.config, body) }),
  });
}
