import type { IncomingHttpHeaders } from 'node:http';
import { sql } from 'kysely';
import type { Db } from '../db/connect';
import { AppError } from '../errors';
import { parseAcpOrderEvent, verifyAcpOrderEvent, AcpOrderEventError } from '../protocols/acp/order-events';
import { readBusinessSummary } from '../protocols/ucp/discovery';
import { parseUcpOrderEvent, verifyUcpOrderEvent, UcpOrderEventInvalid } from '../protocols/ucp/order-events';
import { openWebhookSecret } from '../registry/secrets';
import { rereadUcpProfile } from '../registry/ucp-discovery';
import { recordOrderEvent, type OrderEvent } from './merchant-session';

/**
 * Order events protocol merchants send the gateway (docs/MERCHANTS.md, "Order events"): each is
 * verified as its protocol says, then applied to the checkout it names (src/checkout/merchant-session.ts
 * `recordOrderEvent`). An event that cannot be verified changes nothing: 401 `invalid_signature`. One
 * for a checkout the gateway does not know is acknowledged (a business may send events for orders
 * placed elsewhere): a UCP one is stored nowhere (its business, and so its keys, cannot be known), an
 * ACP one (verified with its seller's secret) is kept among that merchant's events with no checkout.
 */

export interface EventReceipt {
  received: true;
  duplicate: boolean;
  checkout_id: string | null;
  status: string;
}

/** A protocol's parsed event as the checkout records it. */
const asOrderEvent = (
  e: {
    event_id: string;
    order_id: string | null;
    status: string;
    tracking: Array<{ carrier?: string; number?: string; url?: string }>;
    occurred_at: string | null;
  },
  sessionId: string,
): OrderEvent => ({
  event_id: e.event_id,
  session_id: sessionId,
  order_id: e.order_id,
  status: e.status,
  tracking: e.tracking.map((t) => ({ carrier: t.carrier ?? null, number: t.number ?? null, url: t.url ?? null })),
  occurred_at: e.occurred_at,
});

const unverified = (message: string) => new AppError(401, 'invalid_signature', `The order event is not verified: ${message}.`);

/**
 * A UCP business's order event (`POST /ucp/webhooks/orders`): the body is the order, its
 * `checkout_id` the business's session id, which names the gateway checkout and so the business whose
 * profile keys must have signed it.
 */
export async function receiveUcpOrderEvent(
  db: Db,
  req: { headers: IncomingHttpHeaders; rawBody: string; path: string },
  rediscover?: (baseUrl: string) => Promise<Record<string, unknown>>,
): Promise<EventReceipt> {
  let event;
  try {
    event = parseUcpOrderEvent(req.rawBody, req.headers);
  } catch (err) {
    if (err instanceof UcpOrderEventInvalid) throw new AppError(400, 'invalid_order_event', err.message);
    throw err;
  }
  const owner = await db
    .selectFrom('agentic_checkouts as c')
    .innerJoin('merchants as m', 'm.merchant_id', 'c.merchant_id')
    .select(['m.merchant_id', 'm.agent_endpoint', 'm.protocol_profile'])
    .where(sql<string>`c.merchant_session->>'session_id'`, '=', event.checkout_id)
    .where('m.protocol_version', '=', 'ucp')
    .orderBy('c.created_at', 'desc')
    .executeTakeFirst();
  if (!owner) return { received: true, duplicate: false, checkout_id: null, status: event.status };
  const verify = (profile: Record<string, unknown> | null) => {
    const business = readBusinessSummary(profile);
    return verifyUcpOrderEvent(
      req.headers,
      req.rawBody,
      { signing_keys: business?.signing_keys ?? [], version: business?.version },
      { method: 'POST', path: req.path },
    );
  };
  let check = await verify(owner.protocol_profile);
  // A key the stored profile does not have: the business may have rotated its keys since it was read.
  // Its profile is read again (and kept) once, and the event verified with the keys it lists now.
  if (!check.ok && check.code === 'key_not_found' && rediscover) {
    const profile = await rereadUcpProfile(db, rediscover, owner);
    if (profile) check = await verify(profile);
  }
  if (!check.ok) throw unverified(check.message);
  const stored = await recordOrderEvent(db, owner.merchant_id, 'ucp', asOrderEvent(event, event.checkout_id), event.raw);
  return { received: true, duplicate: stored.duplicate, checkout_id: stored.checkout_id, status: event.status };
}

/**
 * An ACP seller's order event (`POST /acp/webhooks/{merchantId}/orders`): `Merchant-Signature` is an
 * HMAC with the webhook secret the gateway issued the merchant at registration.
 */
export async function receiveAcpOrderEvent(
  db: Db,
  keyEncryptionKey: Buffer | undefined,
  merchantId: string,
  req: { headers: IncomingHttpHeaders; rawBody: string },
): Promise<EventReceipt> {
  const m = await db
    .selectFrom('merchants')
    .select(['merchant_id', 'protocol_version', 'webhook_secret_sealed'])
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!m || m.protocol_version !== 'acp') throw new AppError(404, 'merchant_not_found', `No ACP seller '${merchantId}' is registered.`);
  let secret: string;
  try {
    secret = openWebhookSecret(keyEncryptionKey, m.merchant_id, m.webhook_secret_sealed);
  } catch {
    throw unverified("the merchant's webhook secret cannot be read; re-register it (rotate_webhook_secret)");
  }
  const check = verifyAcpOrderEvent(req.headers as Record<string, string | string[] | undefined>, req.rawBody, secret);
  if (!check.ok) throw unverified(`Merchant-Signature ${check.reason}`);
  let event;
  try {
    event = parseAcpOrderEvent(req.rawBody, { signedAt: check.timestamp });
  } catch (err) {
    if (err instanceof AcpOrderEventError) throw new AppError(400, 'invalid_order_event', err.message);
    throw err;
  }
  const stored = await recordOrderEvent(db, m.merchant_id, 'acp', asOrderEvent(event, event.session_id), event.raw);
  return { received: true, duplicate: stored.duplicate, checkout_id: stored.checkout_id, status: event.status };
}
