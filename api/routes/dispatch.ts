import * as D from '../../src/schemas/dispatch';
import { attemptView, deliveryView, getDelivery, listAttempts, listDispatchQueue } from '../../src/dispatch/deliveries';
import { replayDeadLetters } from '../../src/dispatch/client';
import { auth, type RouteRegistry } from './registry';

const TAG = 'Dispatch queue';
/** How long a retry call waits for the replay workflow to report the runs it started. */
const REPLAY_WAIT_MS = 25_000;

/** Registered before the merchant routes: /v1/merchant/dispatch-queue is not a merchant id. */
export function dispatchRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/v1/merchant/dispatch-queue',
    tag: TAG,
    summary: 'Intent.Surge dispatch queue',
    description: 'Counts per state and the newest deliveries (filter by state, merchant_id, intent_id), each with its last attempt.',
    auth: auth.supply,
    query: D.DispatchQueueQuery,
    responses: { 200: { description: 'Queue summary and deliveries.', schema: D.DispatchQueue } },
    handler: async (ctx, { query }) => ({ body: await listDispatchQueue(ctx.deps.db, query) }),
  });

  r.add({
    method: 'get',
    path: '/v1/merchant/dispatch-queue/{deliveryId}',
    tag: TAG,
    summary: 'One delivery with every attempt',
    auth: auth.supply,
    params: D.DeliveryIdParams,
    notFoundCode: 'delivery_not_found',
    responses: { 200: { description: 'The delivery and its attempts, oldest first.', schema: D.DeliveryDetail } },
    errors: [[404, 'delivery_not_found', 'No delivery with this id.']],
    handler: async (ctx, { params }) => {
      const [delivery, attempts] = await Promise.all([getDelivery(ctx.deps.db, params.deliveryId), listAttempts(ctx.deps.db, params.deliveryId)]);
      return { body: { delivery: deliveryView(delivery, attempts.at(-1) ?? null), attempts: attempts.map(attemptView) } };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/merchant/dispatch-queue/retry',
    tag: TAG,
    summary: 'Replay dead-lettered deliveries',
    description:
      'Replays the named delivery, or every dead-lettered one (up to 2000 per call), each as a new delivery run with the same webhook-id. A delivery that was delivered is never sent again.',
    auth: auth.supply,
    body: D.RetryBody,
    responses: { 200: { description: 'The replays started.', schema: D.RetryResult }, 202: { description: 'Still starting replays; the workflow id tells where.', schema: D.RetryResult } },
    errors: [
      [404, 'delivery_not_found', 'No delivery with this id.'],
      [409, 'delivery_not_in_dlq', 'The delivery is not dead-lettered.'],
      [503, 'temporal_unavailable', 'Temporal is not reachable.'],
    ],
    handler: async (ctx, { body }) => {
      const out = await replayDeadLetters(ctx.deps.temporal, ctx.deps.db, { deliveryId: body.delivery_id, waitMs: REPLAY_WAIT_MS });
      return { status: out.status === 'scheduled' ? 200 : 202, body: { state: body.state, ...out } };
    },
  });
}
