import * as D from '../../src/schemas/dispatch';
import { attemptView, deliveryView, getDelivery, listAttempts, listDispatchQueue } from '../../src/dispatch/deliveries';
import { replayDeadLetters } from '../../src/dispatch/client';
import { apiCaller, SYSTEM, type Caller } from '../../src/tenancy';
import type { AppContext } from '../context';
import { callerMerchantToken, callerMerchantTokenErrors } from './merchants';
import { auth, linkTo, type RouteRegistry } from './registry';

/** Operators (supply key) see every merchant's deliveries; an API key with X-Merchant-Token, that merchant's own. */
const readers = auth.supplyOrApiKeyAnd('proposals', 'MerchantToken', callerMerchantToken, callerMerchantTokenErrors);
const callerOf = (ctx: AppContext): Caller => (ctx.state.supply ? SYSTEM : apiCaller(ctx.state.apiKey?.developerId, ctx.state.merchantId));

const TAG = 'Dispatch queue';
/** How long a retry call waits for the replay workflow to send its replays (their outcomes are in the answer). */
const REPLAY_WAIT_MS = 25_000;

/** Registered before the merchant routes: /v1/merchant/dispatch-queue is not a merchant id. */
export function dispatchRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/v1/merchant/dispatch-queue',
    tag: TAG,
    summary: 'Intent.Surge dispatch queue',
    description:
      "Counts per state and the newest deliveries (filter by state, merchant_id, intent_id), each with its last attempt. Operators (supply key) see every merchant; an API key with X-Merchant-Token sees that merchant's deliveries only (another merchant_id filter lists nothing).",
    auth: readers,
    query: D.DispatchQueueQuery,
    responses: {
      200: {
        description: 'Queue summary and deliveries.',
        schema: D.DispatchQueue,
        links: {
          GetDelivery: linkTo('get', '/v1/merchant/dispatch-queue/{deliveryId}', {
            parameters: { 'path.deliveryId': '$response.body#/deliveries/0/delivery_id' },
          }),
        },
      },
    },
    handler: async (ctx, { query }) => ({ body: await listDispatchQueue(ctx.deps.db, query, callerOf(ctx)) }),
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/dispatch-queue/{deliveryId}',
    tag: TAG,
    summary: 'One delivery with every attempt',
    description:
      "Operators see any delivery; a merchant (API key with X-Merchant-Token) its own: another merchant's answers 404 as an unknown id.",
    auth: readers,
    params: D.DeliveryIdParams,
    notFoundCode: 'delivery_not_found',
    responses: { 200: { description: 'The delivery and its attempts, oldest first.', schema: D.DeliveryDetail } },
    errors: [[404, 'delivery_not_found', 'No delivery with this id.']],
    handler: async (ctx, { params }) => {
      const delivery = await getDelivery(ctx.deps.db, params.deliveryId, callerOf(ctx));
      const attempts = await listAttempts(ctx.deps.db, delivery.delivery_id);
      return { body: { delivery: deliveryView(delivery, attempts.at(-1) ?? null), attempts: attempts.map(attemptView) } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/merchant/dispatch-queue/retry',
    tag: TAG,
    summary: 'Replay dead-lettered deliveries',
    description:
      'Replays the named delivery, or every dead-lettered one (of merchant_id, when given; up to 2000 per call): the replay workflow sends each one attempt with the same webhook-id, and one that does not deliver continues in a run of its own (delivery-<id>-replay-<n>) on the retry schedule. The answer lists each replay with its outcome (delivered, retrying, dead_lettered, or sending when it is not known yet) and the workflow that has it now. A filter that matches no dead letter starts nothing (status nothing_to_replay). A delivery that was delivered is never sent again.',
    auth: auth.supply,
    body: D.RetryBody,
    responses: {
      200: {
        description: 'The replays sent, each with its outcome; or nothing to replay (no workflow started).',
        schema: D.RetryResult,
      },
      202: { description: 'Still sending replays; the workflow id tells where.', schema: D.RetryResult },
    },
    errors: [
      [404, 'delivery_not_found', 'No delivery with this id (of merchant_id, when given).'],
      [409, 'delivery_not_in_dlq', 'The delivery is not dead-lettered.'],
      [503, 'temporal_unavailable', 'Temporal is not reachable.'],
    ],
    handler: async (ctx, { body }) => {
      const out = await replayDeadLetters(ctx.deps.temporal, ctx.deps.db, {
        deliveryId: body.delivery_id,
        merchantId: body.merchant_id,
        waitMs: REPLAY_WAIT_MS,
      });
      return { status: out.status === 'scheduling' ? 202 : 200, body: { state: body.state, ...out } };
    },
  });
}
