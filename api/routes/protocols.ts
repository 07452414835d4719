import { z } from 'zod';
import { receiveAcpOrderEvent, receiveUcpOrderEvent } from '../../src/checkout/order-events';
import { platformProfile } from '../../src/protocols/ucp/platform-profile';
import { SUPPORTED_UCP_VERSIONS } from '../../src/protocols/ucp/discovery';
import { ucpSignerOf } from '../../src/protocols/adapters';
import { pathId } from '../../src/schemas/common';
import { ucpDiscoverer } from '../../src/registry/ucp-discovery';
import type { AppContext } from '../context';
import { auth, type RouteRegistry } from './registry';

/**
 * The gateway as a commerce-protocol client (docs/MERCHANTS.md): the UCP platform profile its
 * requests name in `UCP-Agent`, and the webhooks UCP businesses and ACP sellers send order events to.
 * The events are verified by signature (no API key: the merchant is not a gateway developer).
 */

const TAG = 'Commerce protocols';

const OrderEventReceipt = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().meta({ description: 'The same event arrived before; nothing changed.' }),
    checkout_id: z
      .string()
      .nullable()
      .meta({ description: 'The checkout the event applied to; null: no checkout of the gateway has that order.' }),
    status: z.string().meta({ description: 'The order status the event states (placed, shipped, delivered, canceled, refunded, …).' }),
  })
  .meta({ id: 'OrderEventReceipt' });

const AnyJson = z.record(z.string(), z.unknown());

/** The raw body exactly as received: signatures are over these bytes. */
const rawBodyOf = (ctx: AppContext) => (ctx.request as { rawBody?: string }).rawBody ?? '';

export function protocolRoutes(r: RouteRegistry): void {
  const profile = async (ctx: AppContext, version: (typeof SUPPORTED_UCP_VERSIONS)[number]) => {
    const signer = await ucpSignerOf(ctx.deps.config.UCP_SIGNING_KEY);
    ctx.set('Cache-Control', 'public, max-age=300');
    return {
      body: platformProfile({ publicBaseUrl: ctx.deps.config.publicBaseUrl, version, signingJwks: signer ? [signer.publicJwk] : [] }),
    };
  };

  r.add({
    method: 'get',
    path: '/ucp/platform-profile',
    tag: TAG,
    summary: 'UCP platform profile of the gateway (2026-04-08)',
    description:
      'The profile every request to a UCP business names in `UCP-Agent`: the capabilities the gateway uses (checkout, fulfillment, order, catalog search), its webhook for order events (`/ucp/webhooks/orders`) and the public keys its request signatures verify with (UCP_SIGNING_KEY).',
    auth: auth.none,
    responses: { 200: { description: 'The UCP profile.', schema: AnyJson } },
    handler: (ctx) => profile(ctx, '2026-04-08'),
  });

  r.add({
    method: 'get',
    path: '/ucp/platform-profile/{version}',
    tag: TAG,
    summary: 'UCP platform profile of the gateway at an older version',
    description: 'The same profile in the shape of an older UCP release the gateway speaks (2026-01-11), for businesses of that version.',
    auth: auth.none,
    params: z.object({ version: z.enum(['2026-01-11']) }),
    notFoundCode: 'version_not_found',
    responses: { 200: { description: 'The UCP profile.', schema: AnyJson } },
    errors: [[404, 'version_not_found', 'The gateway has no profile for that version.']],
    handler: (ctx, { params }) => profile(ctx, params.version),
  });

  r.add({
    method: 'post',
    path: '/ucp/webhooks/orders',
    tag: TAG,
    summary: 'Order events from UCP businesses',
    description:
      "A UCP business POSTs its order (placed, shipped, delivered, canceled, refunded) here, signed as its UCP version says (RFC 9421 with the business profile's keys, or a detached JWS in Request-Signature for 2026-01-11). The order's `checkout_id` is the business's session id, which names the gateway checkout: its `order` (status, tracking) and audit trail are updated. An event for an order the gateway did not place is acknowledged and stored nowhere.",
    auth: auth.none,
    body: AnyJson,
    bodyRequired: true,
    responses: { 200: { description: 'Verified and applied (or a repeat).', schema: OrderEventReceipt } },
    errors: [
      [400, 'invalid_order_event', 'The body is not a UCP order.'],
      [401, 'invalid_signature', 'The event is not signed by the business that placed the order.'],
    ],
    handler: async (ctx) => {
      const { db, config } = ctx.deps;
      // A business that rotated its keys since its profile was read: its profile is read again.
      const rediscover = ucpDiscoverer({ allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS, timeoutMs: config.DISPATCH_TIMEOUT_MS });
      return { body: await receiveUcpOrderEvent(db, { headers: ctx.headers, rawBody: rawBodyOf(ctx), path: ctx.path }, rediscover) };
    },
  });

  r.add({
    method: 'post',
    path: '/acp/webhooks/{merchantId}/orders',
    tag: TAG,
    summary: 'Order events from an ACP seller',
    description:
      'An ACP seller POSTs `order_create` / `order_update` events here, with `Merchant-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed with the webhook_secret its registration returned (5 minutes of clock tolerance). The event names the checkout session: the gateway checkout gets the order status and tracking.',
    auth: auth.none,
    params: z.object({ merchantId: pathId(128) }),
    body: AnyJson,
    bodyRequired: true,
    notFoundCode: 'merchant_not_found',
    responses: { 200: { description: 'Verified and applied (or a repeat).', schema: OrderEventReceipt } },
    errors: [
      [400, 'invalid_order_event', 'The body is not an ACP order event.'],
      [401, 'invalid_signature', 'Merchant-Signature is missing, malformed, outside the time window or wrong.'],
      [404, 'merchant_not_found', 'No ACP seller with this id.'],
    ],
    handler: async (ctx, { params }) => ({
      body: await receiveAcpOrderEvent(ctx.deps.db, ctx.deps.config.KEY_ENCRYPTION_KEY, params.merchantId, {
        headers: ctx.headers,
        rawBody: rawBodyOf(ctx),
      }),
    }),
  });
}
